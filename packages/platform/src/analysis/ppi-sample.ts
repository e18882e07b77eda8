// Which topics (or pairs) people label for a prediction-powered estimate: `assay ppi
// sample`, and campaigns made for estimation. Seeded; every unit has the same chance.
import { createRng, seededPermutation } from '@assay/stats';
import { PpiError } from './ppi.js';

/**
 * How many of `total` units a request asks for: a whole number (`15`) or a fraction of the
 * total in (0, 1) (`0.3`, rounded, at least 1); never more than the total.
 */
export function sampleSize(request: number, total: number): number {
  if (!(request > 0) || !Number.isFinite(request))
    throw new PpiError(
      `the sample size must be a whole number or a fraction in (0, 1), not ${request}`,
    );
  if (request < 1) return Math.min(total, Math.max(1, Math.round(request * total)));
  if (!Number.isInteger(request))
    throw new PpiError(
      `the sample size must be a whole number or a fraction in (0, 1), not ${request}`,
    );
  return Math.min(total, request);
}

/**
 * Chooses `count` of `units` with a seed. Uniform: the first `count` of a seeded
 * permutation. With `scores` (the LLM's per-topic score), stratified: units ordered by score
 * (ties by id) are taken systematically, at positions ⌊u + i·N/count⌋ for i = 0 … count − 1
 * with u uniform in [0, N/count), so each unit still has chance count/N (the estimators stay
 * unbiased) while low, middle and high scorers are all represented. Returns the chosen
 * units sorted by id.
 */
export function sampleUnits(
  units: readonly string[],
  count: number,
  seed: number,
  scores?: ReadonlyMap<string, number>,
): string[] {
  const N = units.length;
  if (!Number.isInteger(count) || count < 1 || count > N)
    throw new PpiError(`cannot choose ${count} of ${N}`);
  let chosen: string[];
  if (scores === undefined) {
    chosen = seededPermutation(N, seed)
      .slice(0, count)
      .map((i) => units[i]!);
  } else {
    const ordered = [...units].sort(
      (a, b) => (scores.get(a) ?? 0) - (scores.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0),
    );
    const step = N / count;
    const start = createRng(seed).next() * step;
    chosen = Array.from({ length: count }, (_, i) => ordered[Math.floor(start + i * step)]!);
  }
  return chosen.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
