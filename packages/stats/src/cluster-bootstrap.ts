import { quantileSorted } from './quantile.js';
import { createRng, type Rng } from './rng.js';
import { runSteps } from './steps.js';

/** Options of {@link clusterBootstrap}. */
export interface ClusterBootstrapOptions {
  /** Number of resamples; default 1000. */
  samples?: number;
  /** PRNG seed (see {@link createRng}); default 42. */
  seed?: number;
  /** Confidence level in (0, 1); default 0.95. */
  level?: number;
  /**
   * Work of one call of the statistic, counted in clusters drawn (e.g. topics × cells of
   * the tables it sums); default 0, a statistic cheap next to the draws. Only how many
   * resamples {@link clusterBootstrapSteps} takes per step depends on it, never the values.
   */
  cost?: number;
}

/** A percentile interval of one statistic from {@link clusterBootstrap}. */
export interface ClusterInterval {
  /** The (1 − level)/2 quantile of the statistic over the resamples where it is defined. */
  lower: number;
  /** The (1 + level)/2 quantile. */
  upper: number;
  /** Resamples on which the statistic was a finite number (the others are left out). */
  defined: number;
}

/** Default resamples of a topic-clustered bootstrap interval. */
export const CLUSTER_BOOTSTRAP_SAMPLES = 1000;

/**
 * Cluster (block) bootstrap with percentile intervals. `groups` gives the number of
 * clusters in each independent group (usually one group: the topics, each topic a cluster
 * of items). Each resample draws, in every group, as many clusters as it has, uniformly
 * with replacement, and calls `statistic` with `counts[g][c]` = how often cluster c of group
 * g was drawn; the statistic weighs each cluster's items by that count (a cluster drawn
 * twice counts twice) and returns one or more numbers. Several groups resample
 * independently (two leaderboards judged on different topics). Intervals are the
 * (1 ∓ level)/2 quantiles of each statistic over the resamples where it is finite,
 * interpolated as numpy.percentile; NaN when it is never finite. Deterministic per seed:
 * group by group, cluster by cluster, `rng.nextInt(size)`.
 *
 * @example
 * // Cohen's kappa with topics resampled: sum the drawn topics' confusion matrices.
 * clusterBootstrap([tables.length], ([counts]) => [cohenKappaFromTable(sum(tables, counts))]);
 */
export function clusterBootstrap(
  groups: readonly number[],
  statistic: (counts: readonly Uint32Array[]) => readonly number[],
  options: ClusterBootstrapOptions = {},
): ClusterInterval[] {
  return runSteps(clusterBootstrapSteps(groups, statistic, options));
}

/**
 * Work of a step of {@link clusterBootstrapSteps}, in clusters drawn (the draws and the
 * statistic's `cost` of each resample), at least one resample: a step stays well under a
 * millisecond unless one resample's statistic alone takes longer.
 */
const WORK_PER_STEP = 4096;

/**
 * {@link clusterBootstrap} one step at a time: the generator yields after every few
 * resamples (about {@link WORK_PER_STEP} clusters drawn or their worth of the statistic's
 * `cost`, at least one resample) and after sorting each statistic's values, and returns the
 * same intervals, so that a caller serving others meanwhile (a server) can pause between
 * steps. The same seed gives the same numbers.
 */
export function* clusterBootstrapSteps(
  groups: readonly number[],
  statistic: (counts: readonly Uint32Array[]) => readonly number[],
  options: ClusterBootstrapOptions = {},
): Generator<void, ClusterInterval[], void> {
  const samples = options.samples ?? CLUSTER_BOOTSTRAP_SAMPLES;
  const seed = options.seed ?? 42;
  const level = options.level ?? 0.95;
  if (!Number.isSafeInteger(samples) || samples < 1)
    throw new RangeError(`clusterBootstrap: samples must be a positive integer, got ${samples}`);
  if (!(level > 0 && level < 1))
    throw new RangeError(`clusterBootstrap: level must be in (0, 1), got ${level}`);
  if (groups.length === 0) throw new RangeError('clusterBootstrap: no groups');
  groups.forEach((size, g) => {
    if (!Number.isSafeInteger(size) || size < 1)
      throw new RangeError(`clusterBootstrap: group ${g} has ${size} clusters`);
  });
  const state: Resampling = {
    groups,
    statistic,
    rng: createRng(seed),
    counts: groups.map((size) => new Uint32Array(size)),
    draws: undefined,
    defined: [],
  };
  const cost = options.cost ?? 0;
  if (!(cost >= 0)) throw new RangeError(`clusterBootstrap: cost must be 0 or more, got ${cost}`);
  const work = groups.reduce((s, size) => s + size, 0) + cost;
  const perStep = Math.max(1, Math.floor(WORK_PER_STEP / work));
  for (let b = 0; b < samples; b += perStep) {
    resample(state, samples, Math.min(perStep, samples - b));
    yield;
  }
  const alpha = 1 - level;
  const intervals: ClusterInterval[] = [];
  for (const [k, values] of state.draws!.entries()) {
    const defined = state.defined[k]!;
    const sorted = values.subarray(0, defined).sort();
    intervals.push({
      lower: quantileSorted(sorted, alpha / 2),
      upper: quantileSorted(sorted, 1 - alpha / 2),
      defined,
    });
    yield;
  }
  return intervals;
}

/** The state of a cluster bootstrap between its steps. */
interface Resampling {
  groups: readonly number[];
  statistic: (counts: readonly Uint32Array[]) => readonly number[];
  rng: Rng;
  /** counts[g][c]: how often cluster c of group g was drawn in the current resample. */
  counts: Uint32Array[];
  /** Per statistic, its finite values so far (the first `defined[k]` of them); sized at the first resample. */
  draws: Float64Array[] | undefined;
  defined: number[];
}

/** Draws `resamples` more resamples and keeps the statistics' finite values (out of `samples`). */
function resample(state: Resampling, samples: number, resamples: number): void {
  const { groups, counts, rng, defined } = state;
  for (let b = 0; b < resamples; b++) {
    for (let g = 0; g < groups.length; g++) {
      const size = groups[g]!;
      const c = counts[g]!;
      c.fill(0);
      for (let i = 0; i < size; i++) c[rng.nextInt(size)]!++;
    }
    const values = state.statistic(counts);
    if (!state.draws) {
      state.draws = values.map(() => new Float64Array(samples));
      for (let k = 0; k < values.length; k++) defined.push(0);
    }
    const draws = state.draws;
    if (values.length !== draws.length)
      throw new RangeError('clusterBootstrap: the statistic returned a different number of values');
    for (let k = 0; k < values.length; k++) {
      const v = values[k]!;
      if (Number.isFinite(v)) draws[k]![defined[k]!++] = v;
    }
  }
}
