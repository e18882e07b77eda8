import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { assertFinite } from './validate.js';

/** Options of {@link predictionPoweredMean}. */
export interface PredictionPoweredOptions {
  /** Confidence level of the intervals, in (0, 1); default 0.95. */
  level?: number;
  /**
   * The weight λ of the predictions: 'tuned' (default) chooses the λ in [0, 1] that
   * minimises the estimated variance (PPI++); a number fixes it (1: plain PPI, 0: the
   * human-only estimate).
   */
  lambda?: number | 'tuned';
}

/** An estimate of a mean with its interval and standard error. */
export interface MeanEstimate {
  estimate: number;
  lower: number;
  upper: number;
  /** Standard error of the estimate (finite-population corrected). */
  se: number;
  /** Two-sided p-value of "the mean is 0" (t with n − 1 degrees of freedom). */
  p: number;
}

/** Result of {@link predictionPoweredMean}. */
export interface PredictionPoweredResult extends MeanEstimate {
  /** The weight of the predictions used (tuned or given). */
  lambda: number;
  /** Labelled units (human-labelled topics or pairs). */
  n: number;
  /** Units of the population (everything the predictions cover). */
  N: number;
  /** Degrees of freedom of the t quantile and p-value: n − 1. */
  df: number;
  /** The labels alone: their mean and its interval. */
  classical: MeanEstimate;
  /** Mean of the predictions over the whole population. */
  predictedMean: number;
  /**
   * S²(y − λf) over the labelled units: with it, the labels needed for a half-width h are
   * about 1 / (h²/(t²·S²) + 1/N).
   */
  residualVariance: number;
}

/** The predictions over the whole population, or only their mean and number when that is all there is. */
export type Population = readonly number[] | { mean: number; size: number };

function sampleMoments(y: readonly number[], f: readonly number[]) {
  const n = y.length;
  let my = 0;
  let mf = 0;
  for (let i = 0; i < n; i++) {
    my += y[i]!;
    mf += f[i]!;
  }
  my /= n;
  mf /= n;
  let syy = 0;
  let sff = 0;
  let syf = 0;
  for (let i = 0; i < n; i++) {
    const dy = y[i]! - my;
    const df = f[i]! - mf;
    syy += dy * dy;
    sff += df * df;
    syf += dy * df;
  }
  return { my, mf, syy: syy / (n - 1), sff: sff / (n - 1), syf: syf / (n - 1) };
}

function meanEstimate(estimate: number, variance: number, df: number, level: number): MeanEstimate {
  const se = Math.sqrt(Math.max(0, variance));
  const half = tQuantile(1 - (1 - level) / 2, df) * se;
  let p: number;
  if (se > 0) p = Math.min(1, 2 * tCdf(-Math.abs(estimate / se), df));
  else p = estimate === 0 ? 1 : 0;
  return { estimate, lower: estimate - half, upper: estimate + half, se, p };
}

/**
 * Prediction-powered estimate of the mean of y over a finite population of N units (PPI,
 * Angelopoulos et al., Science 2023; power-tuned as PPI++, Angelopoulos, Duchi & Zrnic
 * 2023), when y is known only on n units drawn uniformly without replacement and a
 * prediction f (an LLM judge's value) is known on all N. `labelled[i]` and `predicted[i]`
 * are y and f of the i-th labelled unit; `population` holds f of every unit, the labelled
 * ones included (or just their mean and number). With ȳ, f̄ₙ the labelled means and f̄_N the population mean of f:
 *
 *   θ̂ = ȳ + λ·(f̄_N − f̄ₙ),   Var(θ̂) = (1 − n/N)·S²(y − λf)/n,
 *
 * where S² is the sample variance (n − 1 denominator) over the labelled units and
 * (1 − n/N) the finite-population correction: the target is the mean over these N units
 * (every topic the LLM judged), of which the labelled ones are part, so f̄_N is known
 * exactly and adds no variance. For any fixed λ, θ̂ is unbiased. The tuned λ minimises the
 * estimated variance, λ = S(y, f)/S²(f) clipped to [0, 1] (0 when f is constant on the
 * labelled units); λ = 0 gives the human-only mean. Intervals are estimate ± t·se with the
 * Student t quantile on n − 1 degrees of freedom, and `classical` is the labelled mean with
 * the same correction and quantile. When n = N the mean is known: se = 0.
 *
 * Differences between two runs are estimated by passing the per-unit differences (y_A − y_B,
 * f_A − f_B): the estimate is then of mean(A − B) and `p` tests it against 0.
 *
 * @example
 * // nDCG@10 of one run: people judged topics 2 and 5 of 6, the LLM judged all six.
 * predictionPoweredMean([0.61, 0.40], [0.70, 0.45], [0.52, 0.70, 0.33, 0.81, 0.45, 0.60]);
 */
export function predictionPoweredMean(
  labelled: readonly number[],
  predicted: readonly number[],
  population: Population,
  options: PredictionPoweredOptions = {},
): PredictionPoweredResult {
  const fn = 'predictionPoweredMean';
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1))
    throw new RangeError(`${fn}: level must be in (0, 1), got ${level}`);
  if (labelled.length !== predicted.length)
    throw new RangeError(
      `${fn}: ${labelled.length} labelled values but ${predicted.length} predictions of them`,
    );
  const n = labelled.length;
  const listed = Array.isArray(population);
  const N = listed ? population.length : (population as { size: number }).size;
  if (n < 2) throw new RangeError(`${fn}: needs at least 2 labelled units, got ${n}`);
  if (N < n)
    throw new RangeError(`${fn}: the population (${N} units) is smaller than the sample (${n})`);
  assertFinite(fn, 'labelled', labelled);
  assertFinite(fn, 'predicted', predicted);
  if (listed) assertFinite(fn, 'population', population as readonly number[]);
  else if (!Number.isSafeInteger(N) || !Number.isFinite((population as { mean: number }).mean))
    throw new RangeError(`${fn}: the population needs a finite mean and a whole size`);
  const requested = options.lambda ?? 'tuned';
  if (requested !== 'tuned' && !Number.isFinite(requested))
    throw new RangeError(`${fn}: lambda must be 'tuned' or a finite number, got ${requested}`);

  const { my, mf, syy, sff, syf } = sampleMoments(labelled, predicted);
  let fN = 0;
  if (listed) {
    for (const v of population as readonly number[]) fN += v;
    fN /= N;
  } else fN = (population as { mean: number }).mean;
  const lambda =
    requested === 'tuned' ? (sff > 0 ? Math.min(1, Math.max(0, syf / sff)) : 0) : requested;
  const fpc = 1 - n / N;
  const residual = syy - 2 * lambda * syf + lambda * lambda * sff;
  const df = n - 1;
  const ppi = meanEstimate(my + lambda * (fN - mf), (fpc * residual) / n, df, level);
  return {
    ...ppi,
    lambda,
    n,
    N,
    df,
    classical: meanEstimate(my, (fpc * syy) / n, df, level),
    predictedMean: fN,
    residualVariance: Math.max(0, residual),
  };
}
