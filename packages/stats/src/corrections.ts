// Multiple-comparison corrections. Every function returns adjusted p-values in input order,
// capped at 1. NaN entries (for example from a test on identical runs) are passed through as
// NaN and do not count towards the number of hypotheses m.

/** The procedures accepted by {@link adjustPValues}. */
export type PValueAdjustment = 'bonferroni' | 'holm' | 'bh' | 'none';

/** Validates p-values and returns the indices of the non-NaN ones. */
function tested(fn: string, ps: readonly number[]): number[] {
  const indices: number[] = [];
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    if (Number.isNaN(p)) continue;
    if (typeof p !== 'number' || !(p >= 0 && p <= 1)) {
      throw new RangeError(`${fn}: ps[${i}] is ${String(p)}, expected a p-value in [0, 1]`);
    }
    indices.push(i);
  }
  return indices;
}

/** Indices of the non-NaN p-values, ordered by ascending p (ties keep input order). */
function ascending(fn: string, ps: readonly number[]): number[] {
  return tested(fn, ps).sort((a, b) => ps[a]! - ps[b]! || a - b);
}

/** Bonferroni correction: min(1, m·p). */
export function bonferroni(ps: readonly number[]): number[] {
  const m = tested('bonferroni', ps).length;
  return ps.map((p) => (Number.isNaN(p) ? Number.NaN : Math.min(1, m * p)));
}

/**
 * Holm's step-down correction: the i-th smallest p (1-based) becomes
 * max over j ≤ i of min(1, (m − j + 1)·p₍ⱼ₎), so adjusted values never decrease with p.
 */
export function holm(ps: readonly number[]): number[] {
  const order = ascending('holm', ps);
  const m = order.length;
  const out = ps.map(() => Number.NaN);
  let running = 0;
  order.forEach((index, i) => {
    running = Math.max(running, Math.min(1, (m - i) * ps[index]!));
    out[index] = running;
  });
  return out;
}

/**
 * Benjamini–Hochberg step-up correction (false discovery rate), as
 * scipy.stats.false_discovery_control(ps, method='bh'): the i-th smallest p becomes
 * min over j ≥ i of min(1, m·p₍ⱼ₎ / j).
 */
export function benjaminiHochberg(ps: readonly number[]): number[] {
  const order = ascending('benjaminiHochberg', ps);
  const m = order.length;
  const out = ps.map(() => Number.NaN);
  let running = 1;
  for (let i = m - 1; i >= 0; i--) {
    const index = order[i]!;
    running = Math.min(running, (m * ps[index]!) / (i + 1));
    out[index] = running;
  }
  return out;
}

/** Adjusts p-values with the named procedure ('bh' is Benjamini–Hochberg; 'none' copies). */
export function adjustPValues(ps: readonly number[], method: PValueAdjustment): number[] {
  switch (method) {
    case 'bonferroni':
      return bonferroni(ps);
    case 'holm':
      return holm(ps);
    case 'bh':
      return benjaminiHochberg(ps);
    case 'none':
      tested('adjustPValues', ps);
      return [...ps];
    default:
      throw new RangeError(`adjustPValues: unknown method ${JSON.stringify(method)}`);
  }
}
