// Input checks shared by every module. Each throws a RangeError whose message names the
// function, so a bad call fails loudly instead of returning a plausible-looking number.

/** Throws unless every entry is a finite number. */
export function assertFinite(fn: string, name: string, values: readonly number[]): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new RangeError(`${fn}: ${name}[${i}] is ${String(v)}, expected a finite number`);
    }
  }
}

/** Throws unless both arrays have the same length of at least `min` and hold finite numbers. */
export function assertPaired(
  fn: string,
  x: readonly number[],
  y: readonly number[],
  min: number,
): void {
  if (x.length !== y.length) {
    throw new RangeError(`${fn}: x has ${x.length} values but y has ${y.length}`);
  }
  if (x.length < min) {
    throw new RangeError(`${fn}: needs at least ${min} pairs, got ${x.length}`);
  }
  assertFinite(fn, 'x', x);
  assertFinite(fn, 'y', y);
}

/** Throws unless `values` holds at least `min` finite numbers. */
export function assertSample(
  fn: string,
  name: string,
  values: readonly number[],
  min: number,
): void {
  if (values.length < min) {
    throw new RangeError(`${fn}: ${name} needs at least ${min} values, got ${values.length}`);
  }
  assertFinite(fn, name, values);
}

/** Element-wise x − y (callers validate first). */
export function differences(x: readonly number[], y: readonly number[]): number[] {
  const d = new Array<number>(x.length);
  for (let i = 0; i < x.length; i++) d[i] = x[i]! - y[i]!;
  return d;
}
