import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean, sampleStandardDeviation, sampleVariance } from 'simple-statistics';
import { averageRanks, tieGroupSizes } from './ranks.js';
import { quantileSorted } from './quantile.js';
import { createRng, type Rng } from './rng.js';
import { runSteps } from './steps.js';
import { assertPaired, assertSample, differences } from './validate.js';

/** Result of a two-sided Student or Welch t-test. */
export interface TTestResult {
  /** The t statistic (positive when x scores higher than y). */
  statistic: number;
  /** Degrees of freedom (fractional for Welch). */
  df: number;
  /** Two-sided p-value. */
  p: number;
  /** mean(x − y) for the paired test, mean(x) − mean(y) for Welch. */
  meanDiff: number;
  /** Confidence interval for `meanDiff` at the requested level (default 95%). */
  ci: [number, number];
}

/** Options shared by the t-tests. */
export interface TTestOptions {
  /** Confidence level of `ci`, in (0, 1); default 0.95. */
  level?: number;
}

function checkLevel(fn: string, level: number): void {
  if (!(level > 0 && level < 1)) {
    throw new RangeError(`${fn}: level must be in (0, 1), got ${String(level)}`);
  }
}

/** Two-sided p-value of a t statistic; NaN stays NaN, ±Infinity gives 0. */
function tTwoSided(t: number, df: number): number {
  if (Number.isNaN(t) || Number.isNaN(df)) return Number.NaN;
  return Math.min(1, 2 * tCdf(-Math.abs(t), df));
}

function tResult(meanDiff: number, se: number, df: number, level: number): TTestResult {
  const statistic = meanDiff / se;
  const half = Number.isNaN(df) ? Number.NaN : tQuantile(1 - (1 - level) / 2, df) * se;
  return {
    statistic,
    df,
    p: tTwoSided(statistic, df),
    meanDiff,
    ci: [meanDiff - half, meanDiff + half],
  };
}

/**
 * Two-sided paired t-test on per-topic scores, as scipy.stats.ttest_rel. When every
 * difference is equal the statistic is ±Infinity (p = 0), or NaN (p = NaN) if they are all 0.
 *
 * @example
 * const { p } = pairedTTest(ndcgRunA, ndcgRunB); // same topics, same order
 */
export function pairedTTest(
  x: readonly number[],
  y: readonly number[],
  options: TTestOptions = {},
): TTestResult {
  const level = options.level ?? 0.95;
  checkLevel('pairedTTest', level);
  assertPaired('pairedTTest', x, y, 2);
  const d = differences(x, y);
  const n = d.length;
  return tResult(mean(d), sampleStandardDeviation(d) / Math.sqrt(n), n - 1, level);
}

/**
 * Two-sided Welch t-test for two independent samples (unequal variances, Welch–Satterthwaite
 * degrees of freedom), as scipy.stats.ttest_ind(x, y, equal_var=False). Lengths may differ.
 */
export function welchTTest(
  x: readonly number[],
  y: readonly number[],
  options: TTestOptions = {},
): TTestResult {
  const level = options.level ?? 0.95;
  checkLevel('welchTTest', level);
  assertSample('welchTTest', 'x', x, 2);
  assertSample('welchTTest', 'y', y, 2);
  const vx = sampleVariance(x) / x.length;
  const vy = sampleVariance(y) / y.length;
  const se2 = vx + vy;
  const df = (se2 * se2) / ((vx * vx) / (x.length - 1) + (vy * vy) / (y.length - 1));
  return tResult(mean(x) - mean(y), Math.sqrt(se2), df, level);
}

/** Options of {@link wilcoxonSignedRank}. */
export interface WilcoxonOptions {
  /**
   * 'auto' (default) chooses as scipy 1.17 does; 'exact' forces the exact null distribution
   * (cost grows as n³); 'normal' forces the normal approximation.
   */
  method?: 'auto' | 'exact' | 'normal';
  /** Continuity correction for the normal approximation; default false, as scipy. */
  correction?: boolean;
}

/** Result of {@link wilcoxonSignedRank}. */
export interface WilcoxonResult {
  /** W = min(W+, W−), the smaller signed-rank sum, as scipy reports for a two-sided test. */
  statistic: number;
  /** Two-sided p-value. */
  p: number;
  /** Number of non-zero differences that were ranked. */
  n: number;
  /** Number of zero differences dropped. */
  zeros: number;
  /** How `p` was obtained. */
  method: 'exact' | 'normal';
  /** Standardised W+ (without continuity correction), only for the normal method. */
  z?: number;
}

/**
 * P(T ≤ t) and P(T ≥ t) for T = sum of a random subset of `weights` (each element in with
 * probability ½): the exact null distribution of W+ under sign flips. Weights are integers.
 */
function subsetSumTails(weights: readonly number[], t: number): { lower: number; upper: number } {
  const total = weights.reduce((s, w) => s + w, 0);
  let dist = new Float64Array(total + 1);
  dist[0] = 1;
  let reach = 0;
  for (const w of weights) {
    const next = new Float64Array(total + 1);
    for (let s = 0; s <= reach; s++) {
      const q = dist[s]!;
      if (q === 0) continue;
      next[s] = next[s]! + q * 0.5;
      next[s + w] = next[s + w]! + q * 0.5;
    }
    reach += w;
    dist = next;
  }
  let lower = 0;
  let upper = 0;
  for (let s = 0; s <= total; s++) {
    if (s <= t) lower += dist[s]!;
    if (s >= t) upper += dist[s]!;
  }
  return { lower, upper };
}

/**
 * Two-sided Wilcoxon signed-rank test on paired scores, matching scipy.stats.wilcoxon(x, y)
 * with its scipy 1.17 defaults (zero_method='wilcox', correction=False, method='auto'):
 * zero differences are dropped, tied |differences| get average ranks, and with n = x.length
 * (zeros included, as scipy counts them)
 * - n > 50: normal approximation with tie correction;
 * - n ≤ 50, no ties and no zeros: exact null distribution of W+;
 * - n ≤ 13 with ties or zeros: the exact sign-flip distribution of W+ given the tied ranks
 *   (scipy enumerates the same 2^n flips through permutation_test); reported as 'exact';
 * - 13 < n ≤ 50 with ties or zeros: normal approximation with tie correction.
 * The exact p is min(1, 2·min(P(W+ ≤ w), P(W+ ≥ w))). If every difference is zero the
 * exact branch gives p = 1 and the normal branch NaN, as scipy.
 */
export function wilcoxonSignedRank(
  x: readonly number[],
  y: readonly number[],
  options: WilcoxonOptions = {},
): WilcoxonResult {
  const method = options.method ?? 'auto';
  const correction = options.correction ?? false;
  assertPaired('wilcoxonSignedRank', x, y, 1);
  const all = differences(x, y);
  const d = all.filter((v) => v !== 0);
  const zeros = all.length - d.length;
  const n = d.length;
  const ranks = averageRanks(d.map(Math.abs));
  let rPlus = 0;
  let rMinus = 0;
  for (let i = 0; i < n; i++) {
    if (d[i]! > 0) rPlus += ranks[i]!;
    else rMinus += ranks[i]!;
  }
  const ties = tieGroupSizes(d.map(Math.abs));
  const hasTies = ties.some((t) => t > 1);
  const statistic = Math.min(rPlus, rMinus);

  let chosen: 'exact' | 'normal';
  if (method === 'auto') {
    if (all.length > 50) chosen = 'normal';
    else if (!hasTies && zeros === 0) chosen = 'exact';
    else chosen = all.length <= 13 ? 'exact' : 'normal';
  } else {
    chosen = method;
  }

  if (chosen === 'exact') {
    // Average ranks are multiples of ½: double them so the distribution lives on integers.
    const doubled = ranks.map((r) => Math.round(2 * r));
    const { lower, upper } = subsetSumTails(doubled, Math.round(2 * rPlus));
    return { statistic, p: Math.min(1, 2 * Math.min(lower, upper)), n, zeros, method: 'exact' };
  }

  const expected = (n * (n + 1)) / 4;
  const tieTerm = ties.reduce((s, t) => s + (t * t * t - t), 0);
  const se = Math.sqrt((n * (n + 1) * (2 * n + 1) - tieTerm / 2) / 24);
  const z = (rPlus - expected) / se;
  const zc = correction ? z - (Math.sign(z) * 0.5) / se : z;
  const p = Number.isNaN(zc) ? Number.NaN : Math.min(1, 2 * normalCdf(-Math.abs(zc), 0, 1));
  return { statistic, p, n, zeros, method: 'normal', z };
}

/** Options of {@link randomizationTest}. */
export interface RandomizationOptions {
  /** Number of random sign-flip assignments; default 10000. */
  permutations?: number;
  /** PRNG seed (see {@link createRng}); default 42. */
  seed?: number;
}

/** Result of {@link randomizationTest}. */
export interface RandomizationResult {
  /** Observed mean(x − y). */
  meanDiff: number;
  /** Two-sided Monte Carlo p-value, (count + 1) / (permutations + 1). */
  p: number;
  /** Number of random assignments drawn. */
  permutations: number;
}

function checkCount(fn: string, name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${fn}: ${name} must be a positive integer, got ${String(value)}`);
  }
}

/**
 * Fisher's paired randomization test (sign flips) on the mean difference, two-sided. Each
 * permutation flips the sign of every difference with probability ½ (a fair coin from
 * {@link createRng}); p = (#{|permuted mean| ≥ |observed mean|} + 1) / (permutations + 1).
 * Means that differ from the observed one only by rounding count as ≥: the comparison allows
 * a tolerance of 1e-10 × Σ|x − y| / n. Deterministic for a given seed.
 */
export function randomizationTest(
  x: readonly number[],
  y: readonly number[],
  options: RandomizationOptions = {},
): RandomizationResult {
  return runSteps(randomizationTestSteps(x, y, options));
}

/**
 * {@link randomizationTest} one step at a time: the generator yields after every 256
 * permutations and returns the same result, so that a caller serving others meanwhile (a
 * server) can pause between steps.
 */
export function* randomizationTestSteps(
  x: readonly number[],
  y: readonly number[],
  options: RandomizationOptions = {},
): Generator<void, RandomizationResult, void> {
  const permutations = options.permutations ?? 10000;
  const seed = options.seed ?? 42;
  checkCount('randomizationTest', 'permutations', permutations);
  assertPaired('randomizationTest', x, y, 1);
  const d = differences(x, y);
  const n = d.length;
  const rng = createRng(seed);
  let observed = 0;
  let scale = 0;
  for (const v of d) {
    observed += v;
    scale += Math.abs(v);
  }
  // Work with sums (mean × n): same ordering, one division fewer per permutation.
  const threshold = Math.abs(observed) - 1e-10 * scale;
  let count = 0;
  for (let k = 0; k < permutations; k += 256) {
    count += countExtremeFlips(d, rng, threshold, Math.min(256, permutations - k));
    yield;
  }
  return { meanDiff: observed / n, p: (count + 1) / (permutations + 1), permutations };
}

/** Of `permutations` random sign flips of `d`, how many sum to at least `threshold` in size. */
function countExtremeFlips(
  d: readonly number[],
  rng: Rng,
  threshold: number,
  permutations: number,
): number {
  const n = d.length;
  let count = 0;
  for (let k = 0; k < permutations; k++) {
    let sum = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      if (i % 32 === 0) bits = rng.nextUint32();
      sum += bits & 1 ? d[i]! : -d[i]!;
      bits >>>= 1;
    }
    if (Math.abs(sum) >= threshold) count++;
  }
  return count;
}

/** Options of the bootstrap confidence intervals. */
export interface BootstrapOptions {
  /** Number of bootstrap resamples; default 10000. */
  samples?: number;
  /** PRNG seed (see {@link createRng}); default 42. */
  seed?: number;
  /** Confidence level in (0, 1); default 0.95. */
  level?: number;
}

/** A bootstrap percentile confidence interval. */
export interface BootstrapResult {
  /** The statistic on the original data (the mean). */
  estimate: number;
  /** Lower bound: the (1 − level)/2 quantile of the bootstrap means. */
  lower: number;
  /** Upper bound: the (1 + level)/2 quantile of the bootstrap means. */
  upper: number;
  /** The confidence level used. */
  level: number;
  /** Number of resamples drawn. */
  samples: number;
}

/**
 * Percentile bootstrap confidence interval for the mean: `samples` resamples of `values`
 * with replacement, bounds at the (1 ∓ level)/2 quantiles of the resampled means (linear
 * interpolation, as numpy.percentile). Deterministic for a given seed.
 */
export function bootstrapCI(
  values: readonly number[],
  options: BootstrapOptions = {},
): BootstrapResult {
  const samples = options.samples ?? 10000;
  const seed = options.seed ?? 42;
  const level = options.level ?? 0.95;
  checkCount('bootstrapCI', 'samples', samples);
  checkLevel('bootstrapCI', level);
  assertSample('bootstrapCI', 'values', values, 1);
  const n = values.length;
  const rng = createRng(seed);
  const means = new Float64Array(samples);
  for (let b = 0; b < samples; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[rng.nextInt(n)]!;
    means[b] = sum / n;
  }
  means.sort();
  const alpha = 1 - level;
  return {
    estimate: mean(values),
    lower: quantileSorted(means, alpha / 2),
    upper: quantileSorted(means, 1 - alpha / 2),
    level,
    samples,
  };
}

/**
 * Percentile bootstrap confidence interval for the mean paired difference mean(x − y):
 * topics are resampled with their pair intact. Same options and result as {@link bootstrapCI}.
 */
export function bootstrapDiffCI(
  x: readonly number[],
  y: readonly number[],
  options: BootstrapOptions = {},
): BootstrapResult {
  assertPaired('bootstrapDiffCI', x, y, 1);
  return bootstrapCI(differences(x, y), options);
}

/**
 * Cohen's d for paired samples (often written d_z): mean(x − y) / sd(x − y), with the
 * sample standard deviation (n − 1 denominator).
 */
export function cohensD(x: readonly number[], y: readonly number[]): number {
  assertPaired('cohensD', x, y, 2);
  const d = differences(x, y);
  return mean(d) / sampleStandardDeviation(d);
}

/**
 * Hedges' g for paired samples: {@link cohensD} times the small-sample correction
 * J = 1 − 3 / (4(n − 1) − 1), with n − 1 degrees of freedom. Needs at least 3 pairs.
 */
export function hedgesG(x: readonly number[], y: readonly number[]): number {
  assertPaired('hedgesG', x, y, 3);
  const df = x.length - 1;
  return cohensD(x, y) * (1 - 3 / (4 * df - 1));
}
