// Rank correlation of two leaderboards of the same runs (e.g. under human and LLM qrels):
// Kendall tau-b, tau-AP, Spearman, RBO, tau at the top and the gap-aware tau, with
// topic-clustered bootstrap intervals.
import type { RunEvaluation } from '@assay/measures';
import {
  clusterBootstrapSteps,
  gapAwareTau,
  kendallTauAtTop,
  kendallTauB,
  rankBiasedOverlap,
  runSteps,
  spearmanRho,
  tauAP,
} from '@assay/stats';
import { compareTags } from './compare.js';

/** Rank correlation of two leaderboards of the same runs on one measure. */
export interface RankCorrelation {
  kendallTauB: number;
  /** tau-AP with the first leaderboard as ground truth (Yilmaz, Aslam & Robertson 2008). */
  tauAP: number;
  spearman: number;
  /** Rank-biased overlap (RBO_ext, Webber et al. 2010, p = 0.9) of the two orderings. */
  rbo: number;
  /** Kendall tau-b over the top k runs of the first leaderboard (k in the settings). */
  kendallTauTop?: number;
  /** Gap-aware tau: swaps of runs within the tolerance of each other cost little. */
  gapAwareTau?: number;
  /** 95% topic-clustered bootstrap intervals of each coefficient. */
  ci?: Record<RankCoefficient, [number, number]>;
}

/** The coefficients a rank correlation holds. */
export type RankCoefficient =
  'kendallTauB' | 'tauAP' | 'spearman' | 'rbo' | 'kendallTauTop' | 'gapAwareTau';

const COEFFICIENTS: readonly RankCoefficient[] = [
  'kendallTauB',
  'tauAP',
  'spearman',
  'rbo',
  'kendallTauTop',
  'gapAwareTau',
];

/** Persistence of the rank-biased overlap between two leaderboards. */
export const RBO_P = 0.9;

/** How two leaderboards are correlated, and how their intervals are drawn. */
export interface CorrelationSettings {
  /** The k of tau at the top k runs (default 10). */
  topRuns: number;
  /** Score difference within which the gap-aware tau barely charges a swap (default 0.01). */
  tolerance: number;
  /** Bootstrap resamples of the intervals (default 1,000; 0: none). */
  samples: number;
  /** Seed of the bootstrap. */
  seed: number;
}

/** The correlation settings when none are given (the seed is the comparison's). */
export const CORRELATION_DEFAULTS = { topRuns: 10, tolerance: 0.01, samples: 1000 } as const;

/**
 * Correlates two leaderboards given as run → full-precision mean (higher is better):
 * Kendall tau-b, tau-AP with `truth` as ground truth, Spearman's rho, RBO (p = 0.9) of
 * the two orderings (best first, equal means ordered by run tag), Kendall tau-b over the
 * top `topRuns` runs of `truth`, and the gap-aware tau with `tolerance`. Both must hold
 * the same runs.
 */
export function correlateMeans(
  truth: ReadonlyMap<string, number>,
  other: ReadonlyMap<string, number>,
  settings: Pick<CorrelationSettings, 'topRuns' | 'tolerance'> = CORRELATION_DEFAULTS,
): RankCorrelation {
  const runs = [...truth.keys()].sort(compareTags);
  const missing = runs.find((r) => !other.has(r));
  if (missing !== undefined || other.size !== truth.size) {
    throw new Error(`the two leaderboards hold different runs${missing ? ` (${missing})` : ''}`);
  }
  const x = runs.map((r) => truth.get(r)!);
  const y = runs.map((r) => other.get(r)!);
  const order = (means: ReadonlyMap<string, number>) =>
    [...runs].sort((p, q) => means.get(q)! - means.get(p)! || compareTags(p, q));
  return {
    kendallTauB: kendallTauB(x, y),
    tauAP: tauAP(x, y),
    spearman: spearmanRho(x, y),
    rbo: rankBiasedOverlap(order(truth), order(other), RBO_P),
    kendallTauTop: kendallTauAtTop(x, y, Math.max(2, settings.topRuns)),
    gapAwareTau: gapAwareTau(x, y, settings.tolerance),
  };
}

/** What rank correlation reads of a leaderboard (a Comparison is one). */
export interface CorrelatedLeaderboard {
  topicIds: readonly string[];
  /** measure → run → value per topic, in `topicIds` order. */
  perTopic: Record<string, Record<string, number[]>>;
  runs: ReadonlyArray<{ run: string; means: Record<string, number> }>;
}

/**
 * A leaderboard of runs evaluated with every qrels topic counting (`assay eval -c`): the
 * per-topic values and means of `measure`, for rank correlation.
 */
export function leaderboardOf(
  evaluations: readonly RunEvaluation[],
  measure: string,
): CorrelatedLeaderboard {
  const topicIds = evaluations[0]?.topics.map((t) => t.qid) ?? [];
  const perTopic: Record<string, number[]> = {};
  const runs = evaluations.map((e) => {
    const col = e.columns.findIndex((c) => c.name === measure);
    if (col < 0) throw new Error(`measure ${measure} was not computed for ${e.runid}`);
    const byTopic = new Map(e.topics.map((t) => [t.qid, t.values[col] as number]));
    const values = topicIds.map((q) => byTopic.get(q) ?? 0);
    perTopic[e.runid] = values;
    return {
      run: e.runid,
      means: { [measure]: values.reduce((s, v) => s + v, 0) / values.length },
    };
  });
  return { topicIds, perTopic: { [measure]: perTopic }, runs };
}

/**
 * Correlates two comparisons' leaderboards on one measure (the first is ground truth),
 * with topic-clustered bootstrap intervals: each resample draws topics with replacement,
 * recomputes every run's mean on them under both leaderboards, and correlates those
 * means. When both leaderboards are over the same topics, one draw serves both (paired);
 * otherwise each leaderboard's topics are drawn independently.
 */
export function correlateLeaderboards(
  a: CorrelatedLeaderboard,
  b: CorrelatedLeaderboard,
  measure: string,
  settings: CorrelationSettings = { ...CORRELATION_DEFAULTS, seed: 42 },
): RankCorrelation {
  return runSteps(correlateLeaderboardsSteps(a, b, measure, settings));
}

/**
 * {@link correlateLeaderboards} one step at a time (a step every few resamples), with the
 * same correlation, so that a server can compute it a slice at a time (see work-slices.ts).
 */
export function* correlateLeaderboardsSteps(
  a: CorrelatedLeaderboard,
  b: CorrelatedLeaderboard,
  measure: string,
  settings: CorrelationSettings = { ...CORRELATION_DEFAULTS, seed: 42 },
): Generator<void, RankCorrelation, void> {
  const means = (c: CorrelatedLeaderboard) =>
    new Map(c.runs.map((r) => [r.run, r.means[measure]!]));
  const point = correlateMeans(means(a), means(b), settings);
  if (settings.samples <= 0) return point;
  const paired =
    a.topicIds.length === b.topicIds.length && a.topicIds.every((t, i) => b.topicIds[i] === t);
  const runs = a.runs.map((r) => r.run);
  const resampled = (c: CorrelatedLeaderboard, counts: Uint32Array) => {
    let weight = 0;
    for (const n of counts) weight += n;
    return new Map(
      runs.map((run) => {
        const values = c.perTopic[measure]![run]!;
        let sum = 0;
        for (let i = 0; i < values.length; i++) sum += counts[i]! * values[i]!;
        return [run, sum / weight];
      }),
    );
  };
  const found = yield* clusterBootstrapSteps(
    paired ? [a.topicIds.length] : [a.topicIds.length, b.topicIds.length],
    (counts) => {
      const r = correlateMeans(
        resampled(a, counts[0]!),
        resampled(b, counts[paired ? 0 : 1]!),
        settings,
      );
      return COEFFICIENTS.map((k) => r[k]!);
    },
    {
      samples: settings.samples,
      seed: settings.seed,
      // Each resample takes every run's mean under both and compares the runs pairwise.
      cost: runs.length * (a.topicIds.length + b.topicIds.length + 6 * runs.length),
    },
  );
  return {
    ...point,
    ci: Object.fromEntries(
      COEFFICIENTS.map((k, i) => [k, [found[i]!.lower, found[i]!.upper]]),
    ) as Record<RankCoefficient, [number, number]>,
  };
}
