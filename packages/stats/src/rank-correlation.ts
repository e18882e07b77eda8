import { sampleCorrelation } from 'simple-statistics';
import { averageRanks } from './ranks.js';
import { assertPaired } from './validate.js';

// Score vectors: x[i] and y[i] are two scores of the same system i (for example its MAP
// under human qrels and under LLM qrels). A higher score means a better rank.

/**
 * Kendall's tau-b between two score vectors, with the tie correction
 * (C − D) / √((P − Tx)(P − Ty)), where P is the number of pairs and Tx, Ty the pairs tied in
 * x, y; equal to scipy.stats.kendalltau(x, y).statistic. NaN when either vector is constant.
 * O(n²) in the number of systems.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number {
  assertPaired('kendallTauB', x, y, 2);
  const n = x.length;
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const sx = Math.sign(x[i]! - x[j]!);
      const sy = Math.sign(y[i]! - y[j]!);
      if (sx === 0) tiedX++;
      if (sy === 0) tiedY++;
      const s = sx * sy;
      if (s > 0) concordant++;
      else if (s < 0) discordant++;
    }
  }
  const pairs = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((pairs - tiedX) * (pairs - tiedY));
  return denominator === 0 ? Number.NaN : (concordant - discordant) / denominator;
}

/**
 * Spearman's rho: the Pearson correlation of the average ranks (ties share their mean rank),
 * equal to scipy.stats.spearmanr(x, y).statistic. NaN when either vector is constant.
 */
export function spearmanRho(x: readonly number[], y: readonly number[]): number {
  assertPaired('spearmanRho', x, y, 2);
  const rx = averageRanks(x);
  const ry = averageRanks(y);
  if (rx.every((r) => r === rx[0]) || ry.every((r) => r === ry[0])) return Number.NaN;
  return Math.max(-1, Math.min(1, sampleCorrelation(rx, ry)));
}

/**
 * AP rank correlation τ_AP (Yilmaz, Aslam & Robertson, SIGIR 2008) of the ranking by `y`
 * against the ground-truth ranking by `x`; top-weighted and asymmetric. Without ties,
 * τ_AP = 2/(n − 1) · Σ_{i=2..n} C(i)/(i − 1) − 1, where the systems are sorted by y
 * (descending) and C(i) counts the systems above position i that x also puts above system i.
 *
 * Ties follow Urbano & Marrero (ICTIR 2017), the asymmetric half of their τ_AP,b: a system
 * whose y-tie group starts at position p compares only with the p − 1 systems strictly above
 * the group, and divides by p − 1; systems in the top tie group are skipped and the mean is
 * over the others; a pair tied in x is never counted as correctly ordered. Without ties this
 * is exactly the original τ_AP. NaN when every y is equal.
 */
export function tauAP(x: readonly number[], y: readonly number[]): number {
  assertPaired('tauAP', x, y, 2);
  const n = x.length;
  let sum = 0;
  let counted = 0;
  for (let i = 0; i < n; i++) {
    let above = 0;
    let correct = 0;
    for (let j = 0; j < n; j++) {
      if (y[j]! > y[i]!) {
        above++;
        if (x[j]! > x[i]!) correct++;
      }
    }
    if (above === 0) continue; // in the top tie group
    sum += correct / above;
    counted++;
  }
  return counted === 0 ? Number.NaN : (2 * sum) / counted - 1;
}

/**
 * Symmetric AP correlation: the mean of {@link tauAP} in both directions, for comparing two
 * rankings when neither is the ground truth. With ties this is Urbano & Marrero's τ_AP,b.
 */
export function tauAPSymmetric(x: readonly number[], y: readonly number[]): number {
  return (tauAP(x, y) + tauAP(y, x)) / 2;
}

/**
 * Extrapolated rank-biased overlap RBO_ext (Webber, Moffat & Zobel, TOIS 2010, eq. 32) of two
 * finite rankings of item ids, possibly of different lengths, with persistence p in (0, 1).
 * With S the shorter list (length s), L the longer (length l), and X_d the overlap of the
 * two lists' first d items (for d > s, all of S against the first d of L):
 *
 *   RBO_ext = (1 − p)/p · [ Σ_{d=1..l} X_d/d · p^d + Σ_{d=s+1..l} X_s·(d − s)/(s·d) · p^d ]
 *             + [ (X_l − X_s)/l + X_s/s ] · p^l
 *
 * which for equal lengths k reduces to X_k/k · p^k + (1 − p)/p · Σ_{d=1..k} X_d/d · p^d.
 * Identical lists give 1, disjoint lists 0. Items must be unique within a list. Two empty
 * lists give 1 and one empty list 0 (by convention: the formula is undefined there).
 */
export function rankBiasedOverlap(
  listA: readonly string[],
  listB: readonly string[],
  p = 0.9,
): number {
  if (!(p > 0 && p < 1)) {
    throw new RangeError(`rankBiasedOverlap: p must be in (0, 1), got ${String(p)}`);
  }
  for (const [name, list] of [
    ['listA', listA],
    ['listB', listB],
  ] as const) {
    if (new Set(list).size !== list.length) {
      throw new RangeError(`rankBiasedOverlap: ${name} contains a duplicate item`);
    }
  }
  const [short, long] = listA.length <= listB.length ? [listA, listB] : [listB, listA];
  const s = short.length;
  const l = long.length;
  if (l === 0) return 1;
  if (s === 0) return 0;

  const seenShort = new Set<string>();
  const seenLong = new Set<string>();
  let overlap = 0; // X_d
  let overlapAtS = 0; // X_s
  let sum = 0;
  let weight = 1; // p^d
  for (let d = 1; d <= l; d++) {
    weight *= p;
    const fromLong = long[d - 1]!;
    if (d <= s) {
      const fromShort = short[d - 1]!;
      if (fromShort === fromLong) overlap++;
      else {
        if (seenLong.has(fromShort)) overlap++;
        if (seenShort.has(fromLong)) overlap++;
      }
      seenShort.add(fromShort);
      if (d === s) overlapAtS = overlap;
    } else if (seenShort.has(fromLong)) {
      overlap++;
    }
    seenLong.add(fromLong);
    sum += (overlap / d) * weight;
    if (d > s) sum += ((overlapAtS * (d - s)) / (s * d)) * weight;
  }
  return ((1 - p) / p) * sum + ((overlap - overlapAtS) / l + overlapAtS / s) * weight;
}

/**
 * Kendall's tau-b over the `k` systems ranked highest by `x` (the ground truth): how well
 * `y` orders the top of the leaderboard, where a swap matters most. Systems tied in x at
 * the k-th place are taken in index order (callers pass systems in a fixed order, e.g. by
 * name). With k ≥ n it is {@link kendallTauB}. NaN when either vector is constant on the
 * top k.
 */
export function kendallTauAtTop(x: readonly number[], y: readonly number[], k: number): number {
  assertPaired('kendallTauAtTop', x, y, 2);
  if (!Number.isInteger(k) || k < 2)
    throw new RangeError(`kendallTauAtTop: k must be an integer ≥ 2, got ${String(k)}`);
  const top = x
    .map((_, i) => i)
    .sort((i, j) => x[j]! - x[i]! || i - j)
    .slice(0, k);
  return kendallTauB(
    top.map((i) => x[i]!),
    top.map((i) => y[i]!),
  );
}

/**
 * A gap-aware Kendall tau: every pair of systems counts +1 when x and y order it the same
 * way, −1 when they swap it and 0 when either ties it, weighted by
 * w = min(1, max(|x_i − x_j|, |y_i − y_j|) / tolerance), so a swap of two systems whose
 * scores lie within `tolerance` of each other under both x and y costs little, and pairs
 * farther apart count fully: τ_gap = Σ w·s / Σ w. Symmetric in x and y. With tolerance 0
 * every pair that is not tied in both counts 1 (Kendall's tau-a over those pairs). NaN
 * when every pair is tied in both.
 */
export function gapAwareTau(x: readonly number[], y: readonly number[], tolerance: number): number {
  assertPaired('gapAwareTau', x, y, 2);
  if (!(tolerance >= 0) || !Number.isFinite(tolerance))
    throw new RangeError(`gapAwareTau: tolerance must be ≥ 0, got ${String(tolerance)}`);
  let numerator = 0;
  let denominator = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const dx = x[i]! - x[j]!;
      const dy = y[i]! - y[j]!;
      const gap = Math.max(Math.abs(dx), Math.abs(dy));
      if (gap === 0) continue;
      const w = tolerance === 0 ? 1 : Math.min(1, gap / tolerance);
      numerator += w * Math.sign(dx) * Math.sign(dy);
      denominator += w;
    }
  }
  return denominator === 0 ? Number.NaN : numerator / denominator;
}
