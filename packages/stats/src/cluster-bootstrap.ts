import { quantileSorted } from './quantile.js';
import { createRng } from './rng.js';

/** Options of {@link clusterBootstrap}. */
export interface ClusterBootstrapOptions {
  /** Number of resamples; default 1000. */
  samples?: number;
  /** PRNG seed (see {@link createRng}); default 42. */
  seed?: number;
  /** Confidence level in (0, 1); default 0.95. */
  level?: number;
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
  const rng = createRng(seed);
  const counts = groups.map((size) => new Uint32Array(size));
  let draws: number[][] | undefined;
  for (let b = 0; b < samples; b++) {
    groups.forEach((size, g) => {
      const c = counts[g]!;
      c.fill(0);
      for (let i = 0; i < size; i++) c[rng.nextInt(size)]!++;
    });
    const values = statistic(counts);
    draws ??= values.map(() => []);
    if (values.length !== draws.length)
      throw new RangeError('clusterBootstrap: the statistic returned a different number of values');
    values.forEach((v, k) => {
      if (Number.isFinite(v)) draws![k]!.push(v);
    });
  }
  const alpha = 1 - level;
  return draws!.map((values) => {
    const sorted = Float64Array.from(values).sort();
    return {
      lower: quantileSorted(sorted, alpha / 2),
      upper: quantileSorted(sorted, 1 - alpha / 2),
      defined: values.length,
    };
  });
}
