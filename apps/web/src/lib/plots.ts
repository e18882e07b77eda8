// Pure computations behind the leaderboard's plots (interval plot, per-topic differences,
// p-value matrix), drawn as the downloadable HTML report draws them.
import type { PairTest } from './api';

/** About five round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten). */
export function ticks(lo: number, hi: number): number[] {
  const span = hi - lo || 1;
  const raw = span / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * magnitude).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    out.push(Number(v.toFixed(12)));
  }
  return out;
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

/** A linear map of [d0, d1] onto [r0, r1]. */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  return (v) => r0 + ((v - d0) / (d1 - d0)) * (r1 - r0);
}

/** One topic's scores of runs a and b and their difference a − b. */
export interface TopicDifference {
  topic: string;
  a: number;
  b: number;
  diff: number;
}

/** Per-topic differences a − b, largest first (ties by topic id). */
export function topicDifferences(
  topicIds: readonly string[],
  a: readonly number[],
  b: readonly number[],
): TopicDifference[] {
  return topicIds
    .map((topic, i) => ({ topic, a: a[i]!, b: b[i]!, diff: a[i]! - b[i]! }))
    .sort((p, q) => q.diff - p.diff || (p.topic < q.topic ? -1 : p.topic > q.topic ? 1 : 0));
}

/** How many topics each run wins and how many are ties. */
export function winsLosses(diffs: readonly TopicDifference[]): {
  wins: number;
  losses: number;
  ties: number;
} {
  const wins = diffs.filter((d) => d.diff > 0).length;
  const losses = diffs.filter((d) => d.diff < 0).length;
  return { wins, losses, ties: diffs.length - wins - losses };
}

/** One cell of a p-value matrix: the row run against the column run. */
export interface PCell {
  /** Mean difference row − column. */
  diff: number;
  p: number;
  pAdjusted: number;
  significant: boolean;
}

/**
 * The corrected p-values of one measure as a run × run matrix in the given order: null on
 * the diagonal and where the pair was not tested (e.g. only tests against a baseline).
 */
export function pValueMatrix(
  runs: readonly string[],
  pairs: readonly PairTest[],
  measure: string,
): (PCell | null)[][] {
  const tests = new Map<string, PairTest>();
  for (const p of pairs) {
    if (p.measure !== measure) continue;
    tests.set(`${p.a}\u0000${p.b}`, p);
    tests.set(`${p.b}\u0000${p.a}`, p);
  }
  return runs.map((a) =>
    runs.map((b) => {
      if (a === b) return null;
      const t = tests.get(`${a}\u0000${b}`);
      if (!t) return null;
      return {
        diff: t.a === a ? t.meanDiff : -t.meanDiff,
        p: t.p,
        pAdjusted: t.pAdjusted,
        significant: t.significant,
      };
    }),
  );
}

/** A p-value as the HTML report writes it: four decimals, below 0.001 in exponent form. */
export function formatP(p: number | null): string {
  if (p === null || Number.isNaN(p)) return 'n/a';
  return p !== 0 && p < 0.001 ? p.toExponential(2) : p.toFixed(4);
}

/** Short tags of runs in leaderboard order, as the HTML report gives them: a–z, A–Z, then numbers. */
export function runTags(runs: readonly string[]): Map<string, string> {
  return new Map(
    runs.map((r, i) => [
      r,
      i < 26
        ? String.fromCharCode(97 + i)
        : i < 52
          ? String.fromCharCode(65 + i - 26)
          : String(i + 1),
    ]),
  );
}
