// How a leaderboard writes its numbers and lays out its axes, for the web app and every
// report alike: statistics to four decimals as trec_eval prints them, p-values, round ticks.

/** Four decimals, as trec_eval prints; `n/a` for NaN, null and undefined; infinities spelt out. */
export function f4(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return 'n/a';
  return Number.isFinite(x) ? x.toFixed(4) : String(x);
}

/**
 * A p-value for reading: four decimals (`0.0123`), and below 0.001 three significant digits
 * in exponent form (`5.00e-4`), so a tiny p is not shown as `0.0000`; `n/a` when missing.
 */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined || Number.isNaN(p)) return 'n/a';
  return p !== 0 && p < 0.001 ? p.toExponential(2) : p.toFixed(4);
}

/** About five round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten). */
export function ticks(lo: number, hi: number): number[] {
  const span = hi - lo || 1;
  const raw = span / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * magnitude).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    // Rounded so that repeated additions of 0.1 give 0.3, not 0.30000000000000004.
    out.push(Number(v.toFixed(12)));
  }
  return out;
}

/** A tick's label: at most six significant digits, no trailing zeros (`0.2`, `-0.05`). */
export function tickLabel(v: number): string {
  return Number(v.toPrecision(6)).toString();
}

/** A linear map of [d0, d1] onto [r0, r1] (r1 < r0 for a y axis growing upwards). */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  return (v) => r0 + ((v - d0) / (d1 - d0)) * (r1 - r0);
}

/**
 * The axis of an interval plot: [lo, hi] covers every interval with 4% padding either side
 * (±0.05 around a single value when every interval is one point).
 */
export function intervalDomain(
  intervals: ReadonlyArray<readonly [number, number]>,
): [number, number] {
  let lo = Math.min(...intervals.map((i) => i[0]));
  let hi = Math.max(...intervals.map((i) => i[1]));
  if (hi - lo < 1e-9) {
    lo -= 0.05;
    hi += 0.05;
  }
  const pad = (hi - lo) * 0.04;
  return [lo - pad, hi + pad];
}
