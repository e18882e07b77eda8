// The analysis behind `assay compare`: leaderboards from per-topic values, pairwise
// significance tests with corrections, and rank correlation between two leaderboards.
import type { RunEvaluation } from '@assay/measures';
import {
  adjustPValues,
  bootstrapCI,
  kendallTauB,
  pairedTTest,
  randomizationTest,
  rankBiasedOverlap,
  spearmanRho,
  tauAP,
  wilcoxonSignedRank,
  type PValueAdjustment,
} from '@assay/stats';

/** Which paired test compares two runs' per-topic values. */
export type TestName = 't' | 'wilcoxon' | 'randomization';

/** Settings of a comparison. */
export interface CompareSettings {
  test: TestName;
  correction: PValueAdjustment;
  alpha: number;
  permutations: number;
  seed: number;
  /** Compare every run with this one only, instead of every pair. */
  baseline?: string;
}

/** One run's row of the leaderboard. */
export interface LeaderboardRow {
  run: string;
  means: Record<string, number>;
  /** 95% bootstrap percentile interval of each mean (seeded, 2,000 resamples). */
  ci: Record<string, [number, number]>;
  judgedAt10: number;
  /** Per measure: the runs this run differs from significantly (after correction). */
  differsFrom: Record<string, string[]>;
  /** Per measure: the runs this run is significantly better than. */
  betterThan: Record<string, string[]>;
}

/** One pairwise test. */
export interface PairTest {
  a: string;
  b: string;
  measure: string;
  /** Mean of a − b over topics. */
  meanDiff: number;
  statistic: number;
  p: number;
  pAdjusted: number;
  significant: boolean;
}

/** A leaderboard with its tests. */
export interface Comparison {
  topicHandling: string;
  topics: number;
  test: TestName;
  correction: PValueAdjustment;
  alpha: number;
  measures: string[];
  runs: LeaderboardRow[];
  pairs: PairTest[];
  /** Per-topic values by measure and run (topic order as `topicIds`), for plots. */
  perTopic: Record<string, Record<string, number[]>>;
  topicIds: string[];
}

/** Topic handling every comparison uses, stated in every output. */
export const TOPIC_HANDLING =
  'every qrels topic counts (as trec_eval -c): a topic a run did not retrieve for scores 0';

/**
 * Builds the leaderboard (sorted by the first measure, best first) and the pairwise tests.
 * `measures` are output column names of the evaluations; `Judged@10` must be among the columns.
 */
export function compareRuns(
  evaluations: RunEvaluation[],
  measures: string[],
  settings: CompareSettings,
): Comparison {
  const names = evaluations.map((e) => e.runid);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined)
    throw new Error(`two runs carry the tag '${duplicate}'; tags must differ to be compared`);
  const topicIds = evaluations[0]!.topics.map((t) => t.qid);
  const perTopic: Record<string, Record<string, number[]>> = {};
  for (const measure of [...measures, 'Judged@10']) {
    perTopic[measure] = {};
    for (const e of evaluations) {
      const col = e.columns.findIndex((c) => c.name === measure);
      if (col < 0) throw new Error(`measure ${measure} was not computed`);
      perTopic[measure]![e.runid] = e.topics.map((t) => t.values[col] as number);
    }
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const rows: LeaderboardRow[] = evaluations.map((e) => {
    const row: LeaderboardRow = {
      run: e.runid,
      means: {},
      ci: {},
      judgedAt10: mean(perTopic['Judged@10']![e.runid]!),
      differsFrom: {},
      betterThan: {},
    };
    for (const m of measures) {
      const values = perTopic[m]![e.runid]!;
      row.means[m] = mean(values);
      const ci = bootstrapCI(values, { seed: settings.seed, samples: 2000 });
      row.ci[m] = [ci.lower, ci.upper];
      row.differsFrom[m] = [];
      row.betterThan[m] = [];
    }
    return row;
  });
  const first = measures[0]!;
  rows.sort((x, y) => y.means[first]! - x.means[first]! || (x.run < y.run ? -1 : 1));
  if (settings.baseline !== undefined && !rows.some((r) => r.run === settings.baseline)) {
    throw new Error(
      `--baseline ${settings.baseline} is not one of the runs (${rows.map((r) => r.run).join(', ')})`,
    );
  }
  const pairsOfRuns: Array<[string, string]> = [];
  if (settings.baseline !== undefined) {
    for (const r of rows)
      if (r.run !== settings.baseline) pairsOfRuns.push([r.run, settings.baseline]);
  } else {
    for (let i = 0; i < rows.length; i++)
      for (let j = i + 1; j < rows.length; j++) pairsOfRuns.push([rows[i]!.run, rows[j]!.run]);
  }
  const pairs: PairTest[] = [];
  for (const measure of measures) {
    const tested = pairsOfRuns.map(([a, b]) => {
      const x = perTopic[measure]![a]!;
      const y = perTopic[measure]![b]!;
      const { statistic, p } = runTest(x, y, settings);
      return { a, b, measure, meanDiff: mean(x.map((v, i) => v - y[i]!)), statistic, p };
    });
    // The correction runs over this measure's comparisons (one family per measure).
    const adjusted = adjustPValues(
      tested.map((t) => t.p),
      settings.correction,
    );
    tested.forEach((t, i) => {
      const pAdjusted = adjusted[i]!;
      const significant = pAdjusted < settings.alpha;
      pairs.push({ ...t, pAdjusted, significant });
      if (significant) {
        const ra = rows.find((r) => r.run === t.a)!;
        const rb = rows.find((r) => r.run === t.b)!;
        ra.differsFrom[measure]!.push(t.b);
        rb.differsFrom[measure]!.push(t.a);
        if (t.meanDiff > 0) ra.betterThan[measure]!.push(t.b);
        else if (t.meanDiff < 0) rb.betterThan[measure]!.push(t.a);
      }
    });
  }
  return {
    topicHandling: TOPIC_HANDLING,
    topics: topicIds.length,
    test: settings.test,
    correction: settings.correction,
    alpha: settings.alpha,
    measures,
    runs: rows,
    pairs,
    perTopic,
    topicIds,
  };
}

function runTest(
  x: number[],
  y: number[],
  settings: CompareSettings,
): { statistic: number; p: number } {
  switch (settings.test) {
    case 't': {
      const r = pairedTTest(x, y);
      // Identical per-topic values: no evidence of a difference (scipy returns NaN here).
      return {
        statistic: Number.isNaN(r.statistic) ? 0 : r.statistic,
        p: Number.isNaN(r.p) ? 1 : r.p,
      };
    }
    case 'wilcoxon': {
      const r = wilcoxonSignedRank(x, y);
      return { statistic: r.statistic, p: Number.isNaN(r.p) ? 1 : r.p };
    }
    case 'randomization': {
      const r = randomizationTest(x, y, {
        permutations: settings.permutations,
        seed: settings.seed,
      });
      return { statistic: r.meanDiff, p: r.p };
    }
  }
}

/** Rank correlation of two leaderboards of the same runs on one measure. */
export interface RankCorrelation {
  kendallTauB: number;
  /** tau-AP with the first leaderboard as ground truth (Yilmaz, Aslam & Robertson 2008). */
  tauAP: number;
  spearman: number;
  /** Rank-biased overlap (Webber et al. 2010, p = 0.9) of the two orderings. */
  rbo: number;
}

/** Correlates two leaderboards from their full-precision means (higher = better). */
export function correlateLeaderboards(
  a: Comparison,
  b: Comparison,
  measure: string,
): RankCorrelation {
  const runs = a.runs.map((r) => r.run).sort();
  const x = runs.map((run) => a.runs.find((r) => r.run === run)!.means[measure]!);
  const y = runs.map((run) => b.runs.find((r) => r.run === run)!.means[measure]!);
  const order = (c: Comparison) =>
    [...c.runs]
      .sort((p, q) => q.means[measure]! - p.means[measure]! || (p.run < q.run ? -1 : 1))
      .map((r) => r.run);
  return {
    kendallTauB: kendallTauB(x, y),
    tauAP: tauAP(x, y),
    spearman: spearmanRho(x, y),
    rbo: rankBiasedOverlap(order(a), order(b), 0.9),
  };
}
