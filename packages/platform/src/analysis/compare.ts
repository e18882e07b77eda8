// The analysis behind `assay compare` and stored comparison reports: leaderboards from
// per-topic values and pairwise significance tests with per-measure corrections (the rank
// correlation of two leaderboards is in rank-correlation.ts).
import type { RunEvaluation } from '@assay/measures';
import {
  adjustPValues,
  createRng,
  quantileSorted,
  pairedTTest,
  randomizationTestSteps,
  runSteps,
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
  /** Sign-flip assignments of the randomization test. */
  permutations: number;
  /** Seed of the randomization test and of the bootstrap intervals. */
  seed: number;
  /** Compare every run with this run tag only, instead of every pair. */
  baseline?: string;
}

/** Resamples behind each bootstrap interval of a mean. */
export const BOOTSTRAP_SAMPLES = 10000;

/** One run's row of the leaderboard. */
export interface LeaderboardRow {
  run: string;
  /** Mean over topics, per measure, at full precision. */
  means: Record<string, number>;
  /** Per measure: 95% percentile bootstrap interval of the mean (seeded). */
  ci: Record<string, [number, number]>;
  /** Mean Judged@10 (leaderboards of runs; absent for scores of answers). */
  judgedAt10?: number;
  /** Per measure: the runs this run differs from significantly (after correction). */
  differsFrom: Record<string, string[]>;
  /** Per measure: the runs this run is significantly better than (higher mean). */
  betterThan: Record<string, string[]>;
}

/** One paired test between runs a and b on one measure. */
export interface PairTest {
  a: string;
  b: string;
  measure: string;
  /** Mean over topics of a − b. */
  meanDiff: number;
  /** t for the t-test, min(W+, W−) for Wilcoxon, the observed mean difference for randomization. */
  statistic: number;
  p: number;
  /** p after the correction, applied over this measure's comparisons. */
  pAdjusted: number;
  significant: boolean;
}

/** A leaderboard with its tests. */
export interface Comparison {
  topicHandling: string;
  /**
   * What the leaderboard is judged by, as outputs name it before the judgments' name:
   * `qrels` when absent (runs under a label set), e.g. `nugget assignments` for answers.
   */
  source?: string;
  /** Number of topics every mean and test is taken over. */
  topics: number;
  test: TestName;
  correction: PValueAdjustment;
  alpha: number;
  seed: number;
  /** Only with the randomization test. */
  permutations?: number;
  baseline?: string;
  /** Measures in -m order; the first sorts the leaderboard. */
  measures: string[];
  /** Best first by the first measure (ties by run tag). */
  runs: LeaderboardRow[];
  pairs: PairTest[];
  /** Per-topic values by measure and run, in `topicIds` order (for plots; not in JSON). */
  perTopic: Record<string, Record<string, number[]>>;
  topicIds: string[];
}

/** Topic handling every comparison uses; every output format states it. */
export const TOPIC_HANDLING =
  'every qrels topic counts, as with assay eval -c (trec_eval -c): a topic a run has no results for scores 0';

/** What went wrong with the inputs of a comparison (the command reports it, exit code 1). */
export class CompareError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompareError';
  }
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * Builds the leaderboard (sorted by the first measure, best first) and the pairwise tests.
 * `measures` are output column names of the evaluations; `Judged@10` must be among the
 * columns. Every evaluation must cover the same topics (with -c: the qrels topics).
 */
export function compareRuns(
  evaluations: RunEvaluation[],
  measures: string[],
  settings: CompareSettings,
): Comparison {
  return runSteps(compareRunsSteps(evaluations, measures, settings));
}

/**
 * {@link compareRuns} one step at a time: the generator yields between small steps of the
 * bootstrap and the tests and returns the same comparison, so that a server can compute it
 * a slice at a time (see work-slices.ts) while it answers others.
 */
export function* compareRunsSteps(
  evaluations: RunEvaluation[],
  measures: string[],
  settings: CompareSettings,
): Generator<void, Comparison, void> {
  if (evaluations.length < 2) throw new CompareError('comparing needs at least two runs');
  checkTags(evaluations.map((e) => e.runid));
  const topicIds = evaluations[0]!.topics.map((t) => t.qid);
  if (topicIds.length < 2) {
    throw new CompareError(
      `paired tests need at least two topics; the qrels have ${topicIds.length}`,
    );
  }
  const perTopic: Record<string, Record<string, number[]>> = {};
  for (const measure of [...measures, 'Judged@10']) {
    perTopic[measure] = {};
    for (const e of evaluations) {
      const col = e.columns.findIndex((c) => c.name === measure);
      if (col < 0) throw new Error(`measure ${measure} was not computed for ${e.runid}`);
      // Values are keyed by topic id, so runs line up topic by topic whatever their order.
      const byTopic = new Map(e.topics.map((t) => [t.qid, t.values[col] as number]));
      perTopic[measure]![e.runid] = topicIds.map((qid) => {
        const v = byTopic.get(qid);
        if (v === undefined) throw new Error(`run ${e.runid} has no value for topic ${qid}`);
        return v;
      });
    }
  }
  return yield* leaderboard(
    evaluations.map((e) => e.runid),
    topicIds,
    perTopic,
    measures,
    settings,
    { topicHandling: TOPIC_HANDLING, judged: true },
  );
}

/** Per-topic values of one system (a run, a RAG system): topic id → measure → value. */
export interface TopicValues {
  run: string;
  values: ReadonlyMap<string, Readonly<Record<string, number>>>;
}

/**
 * The leaderboard and pairwise tests of systems scored per topic by something other than
 * qrels (e.g. nugget scores of generated answers), exactly as {@link compareRuns} does
 * for runs but without Judged@10: means with bootstrap intervals over `topicIds`, tests
 * and corrections per measure. Every system needs a value of every measure on every topic
 * (the caller decides what a missing answer scores and says so in `topicHandling`).
 */
export function compareTopicValues(
  systems: readonly TopicValues[],
  topicIds: readonly string[],
  measures: string[],
  settings: CompareSettings,
  describe: { topicHandling: string; source: string },
): Comparison {
  if (systems.length < 2) throw new CompareError('comparing needs at least two systems');
  checkTags(systems.map((s) => s.run));
  if (topicIds.length < 2)
    throw new CompareError(`paired tests need at least two topics; there are ${topicIds.length}`);
  const perTopic: Record<string, Record<string, number[]>> = {};
  for (const measure of measures) {
    perTopic[measure] = {};
    for (const s of systems)
      perTopic[measure]![s.run] = topicIds.map((qid) => {
        const v = s.values.get(qid)?.[measure];
        if (v === undefined || !Number.isFinite(v))
          throw new Error(`system ${s.run} has no ${measure} for topic ${qid}`);
        return v;
      });
  }
  return runSteps(
    leaderboard(
      systems.map((s) => s.run),
      [...topicIds],
      perTopic,
      measures,
      settings,
      { topicHandling: describe.topicHandling, source: describe.source, judged: false },
    ),
  );
}

function checkTags(names: readonly string[]): void {
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined)
    throw new CompareError(`two runs carry the tag '${duplicate}'; tags must differ`);
}

/** Means, intervals, the sorted rows and the tests from per-topic values, step by step. */
function* leaderboard(
  names: readonly string[],
  topicIds: string[],
  perTopic: Record<string, Record<string, number[]>>,
  measures: string[],
  settings: CompareSettings,
  describe: { topicHandling: string; source?: string; judged: boolean },
): Generator<void, Comparison, void> {
  const rows: LeaderboardRow[] = names.map((run) => ({
    run,
    means: {},
    ci: {},
    ...(describe.judged ? { judgedAt10: mean(perTopic['Judged@10']![run]!) } : {}),
    differsFrom: {},
    betterThan: {},
  }));
  for (const m of measures) {
    const intervals = yield* bootstrapMeanIntervalsSteps(
      rows.map((r) => perTopic[m]![r.run]!),
      settings.seed,
      BOOTSTRAP_SAMPLES,
    );
    rows.forEach((row, k) => {
      row.means[m] = mean(perTopic[m]![row.run]!);
      row.ci[m] = intervals[k]!;
      row.differsFrom[m] = [];
      row.betterThan[m] = [];
    });
  }
  const first = measures[0]!;
  rows.sort((x, y) => y.means[first]! - x.means[first]! || compareTags(x.run, y.run));
  const { baseline } = settings;
  if (baseline !== undefined && !rows.some((r) => r.run === baseline)) {
    throw new CompareError(
      `--baseline ${baseline} is none of the runs (${rows.map((r) => r.run).join(', ')})`,
    );
  }
  // Pairs in leaderboard order: a above b; with a baseline, every other run against it.
  const pairsOfRuns: Array<[string, string]> = [];
  if (baseline !== undefined) {
    for (const r of rows) if (r.run !== baseline) pairsOfRuns.push([r.run, baseline]);
  } else {
    for (let i = 0; i < rows.length; i++)
      for (let j = i + 1; j < rows.length; j++) pairsOfRuns.push([rows[i]!.run, rows[j]!.run]);
  }
  const rowOf = new Map(rows.map((r) => [r.run, r]));
  const pairs: PairTest[] = [];
  for (const measure of measures) {
    const tested = [];
    for (const [a, b] of pairsOfRuns) {
      const x = perTopic[measure]![a]!;
      const y = perTopic[measure]![b]!;
      const { statistic, p } = yield* runTestSteps(x, y, settings);
      tested.push({ a, b, measure, meanDiff: mean(x.map((v, i) => v - y[i]!)), statistic, p });
      yield;
    }
    // One family per measure: the correction runs over this measure's comparisons only.
    const adjusted = adjustPValues(
      tested.map((t) => t.p),
      settings.correction,
    );
    tested.forEach((t, i) => {
      const pAdjusted = adjusted[i]!;
      const significant = pAdjusted < settings.alpha;
      pairs.push({ ...t, pAdjusted, significant });
      if (!significant) return;
      const ra = rowOf.get(t.a)!;
      const rb = rowOf.get(t.b)!;
      ra.differsFrom[measure]!.push(t.b);
      rb.differsFrom[measure]!.push(t.a);
      if (t.meanDiff > 0) ra.betterThan[measure]!.push(t.b);
      else if (t.meanDiff < 0) rb.betterThan[measure]!.push(t.a);
    });
  }
  return {
    topicHandling: describe.topicHandling,
    ...(describe.source === undefined ? {} : { source: describe.source }),
    topics: topicIds.length,
    test: settings.test,
    correction: settings.correction,
    alpha: settings.alpha,
    seed: settings.seed,
    ...(settings.test === 'randomization' ? { permutations: settings.permutations } : {}),
    ...(baseline === undefined ? {} : { baseline }),
    measures,
    runs: rows,
    pairs,
    perTopic,
    topicIds,
  };
}

/**
 * 95% percentile-bootstrap intervals of the means of several samples of equal length, each
 * exactly what `bootstrapCI(sample, { seed, samples: resamples })` of @assay/stats returns.
 * With one seed every sample is resampled at the same indices (the same topics), so the
 * indices are drawn once per resample and shared: one pass instead of one per run.
 */
export function bootstrapMeanIntervals(
  samples: readonly (readonly number[])[],
  seed: number,
  resamples: number,
): Array<[number, number]> {
  return runSteps(bootstrapMeanIntervalsSteps(samples, seed, resamples));
}

/** {@link bootstrapMeanIntervals} one step at a time (a step per 64 resamples). */
function* bootstrapMeanIntervalsSteps(
  samples: readonly (readonly number[])[],
  seed: number,
  resamples: number,
): Generator<void, Array<[number, number]>, void> {
  const n = samples[0]?.length ?? 0;
  if (n === 0 || samples.some((s) => s.length !== n))
    throw new RangeError('bootstrapMeanIntervals: samples must be non-empty and of equal length');
  const rng = createRng(seed);
  const means = samples.map(() => new Float64Array(resamples));
  const indices = new Uint32Array(n);
  for (let from = 0; from < resamples; from += 64) {
    resampleMeans(samples, rng, indices, means, from, Math.min(resamples, from + 64));
    yield;
  }
  const alpha = 1 - 0.95;
  return means.map((m) => {
    m.sort();
    return [quantileSorted(m, alpha / 2), quantileSorted(m, 1 - alpha / 2)];
  });
}

/** Resamples [from, to): draws the topics once, and each sample's mean at those topics. */
function resampleMeans(
  samples: readonly (readonly number[])[],
  rng: ReturnType<typeof createRng>,
  indices: Uint32Array,
  means: Float64Array[],
  from: number,
  to: number,
): void {
  const n = indices.length;
  for (let b = from; b < to; b++) {
    for (let i = 0; i < n; i++) indices[i] = rng.nextInt(n);
    samples.forEach((values, k) => {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += values[indices[i]!]!;
      means[k]![b] = sum / n;
    });
  }
}

/** Byte order of run tags, the tie-break wherever runs are ordered. */
export function compareTags(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Runs the chosen test. Two runs with identical per-topic values give no evidence of a
 * difference: p = 1 and statistic 0 (scipy returns NaN there for the t-test and for
 * Wilcoxon's normal approximation); that p still counts as a hypothesis in the correction.
 */
function* runTestSteps(
  x: number[],
  y: number[],
  settings: CompareSettings,
): Generator<void, { statistic: number; p: number }, void> {
  switch (settings.test) {
    case 't': {
      const r = pairedTTest(x, y);
      if (Number.isNaN(r.p)) return { statistic: 0, p: 1 };
      return { statistic: r.statistic, p: r.p };
    }
    case 'wilcoxon': {
      const r = wilcoxonSignedRank(x, y);
      if (Number.isNaN(r.p)) return { statistic: r.statistic, p: 1 };
      return { statistic: r.statistic, p: r.p };
    }
    case 'randomization': {
      const r = yield* randomizationTestSteps(x, y, {
        permutations: settings.permutations,
        seed: settings.seed,
      });
      return { statistic: r.meanDiff, p: r.p };
    }
  }
}

/**
 * The pair the per-topic difference plot shows: the best run against the baseline when
 * there is one, else the two best runs (on the first measure).
 */
export function highlightedPair(c: Comparison): [string, string] | undefined {
  if (c.baseline !== undefined) {
    const best = c.runs.find((r) => r.run !== c.baseline);
    return best ? [best.run, c.baseline] : undefined;
  }
  return c.runs.length >= 2 ? [c.runs[0]!.run, c.runs[1]!.run] : undefined;
}
