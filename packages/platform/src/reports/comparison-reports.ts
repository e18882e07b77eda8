// Comparison reports: stored runs compared under one or two stored label sets, as `assay
// compare` compares files, kept as immutable snapshots.
import { getLabelGrades, type LabelSet, type Queryable, type Run } from '@assay/db';
import {
  evaluateRun,
  MeasureSpecError,
  prepareQrels,
  resolveMeasures,
  type RunEvaluation,
} from '@assay/measures';
import type { PValueAdjustment } from '@assay/stats';
import {
  BOOTSTRAP_SAMPLES,
  compareRunsSteps,
  comparisonReportSteps,
  compareSettings,
  CompareSettingsError,
  CompareError,
  testableMeasures,
  type CompareReport,
  type CompareSettings,
  type CorrelationSettings,
  type TestName,
} from '../analysis/index.js';
import { readTrecRun, runsOrAll } from '../catalog/runs.js';
import { PlatformError } from '../core/errors.js';
import {
  noLabelsError,
  resolveCollection,
  resolveLabelSet,
  resolveRun,
  type CollectionRef,
} from '../core/resolve.js';
import { ASSAY_VERSION } from '../core/version.js';
import { inSlices } from '../core/work-slices.js';
import {
  actorRef,
  storeReport,
  type Actor,
  type ReportProvenance,
  type StoredReport,
} from './reports.js';

/** What a comparison report compares: stored runs under one or two stored label sets. */
export interface ComparisonReportInput {
  collection: CollectionRef;
  /** One label set, or two whose leaderboards are rank-correlated (the first is ground truth). */
  labelSets: Array<string | number>;
  /** At least two runs of the collection, by name or id; default every run of it. */
  runs?: Array<string | number> | undefined;
  /** Measures as `assay compare -m` takes them; the first orders the leaderboard. */
  measures: string[];
  /** Default t (paired t-test); wilcoxon or randomization. */
  test?: TestName;
  /** Default holm; one family per measure. */
  correction?: PValueAdjustment;
  /** Significant when the corrected p < alpha (default 0.05). */
  alpha?: number;
  /** Test each run against this run (name or id) only. */
  baseline?: string | number;
  /** Sign flips of the randomization test (default 10000). */
  permutations?: number;
  /** Seed of the randomization test and the bootstrap (default 42). */
  seed?: number;
  /** Two label sets: the k of tau at the top k runs (default 10). */
  topRuns?: number;
  /** Two label sets: the tolerance of the gap-aware tau (default 0.01). */
  tolerance?: number;
  /** Two label sets: bootstrap resamples of the rank correlations' intervals (default 1,000; 0: none). */
  correlationSamples?: number;
  title?: string;
  createdBy?: Actor;
}

/**
 * Computes a comparison of stored runs under one or two stored label sets, exactly as
 * `assay compare` does on the same files (every label set topic counts; Judged@10; seeded
 * bootstrap intervals; pairwise tests with per-measure corrections; with two label sets,
 * rank correlations), and stores it as an immutable report.
 */
export async function createComparisonReport(
  db: Queryable,
  input: ComparisonReportInput,
): Promise<StoredReport> {
  const collection = await resolveCollection(db, input.collection);
  if (input.labelSets.length < 1 || input.labelSets.length > 2)
    throw new PlatformError('invalid_input', 'give one or two label sets');
  const runRefs = await runsOrAll(db, collection, input.runs);
  if (runRefs.length < 2)
    throw new PlatformError('invalid_input', 'pairwise tests need at least two runs');
  const settings = comparisonSettings(input);
  let tested: string[];
  let resolved: ReturnType<typeof resolveMeasures>;
  try {
    const split = testableMeasures(input.measures);
    tested = split.measures;
    resolved = resolveMeasures([...input.measures, 'Judged@10']);
  } catch (error) {
    if (error instanceof MeasureSpecError) throw new PlatformError('invalid_input', error.message);
    throw error;
  }
  if (input.measures.length === 0 || tested.length === 0)
    throw new PlatformError(
      'invalid_input',
      'none of the measures is a mean of per-topic values that can be tested',
    );
  const sets: LabelSet[] = [];
  for (const ref of input.labelSets) sets.push(await resolveLabelSet(db, collection, ref));
  if (sets.length === 2 && sets[0]!.id === sets[1]!.id)
    throw new PlatformError('invalid_input', 'the two label sets are the same');
  const runs: Run[] = [];
  for (const ref of runRefs) {
    const run = await resolveRun(db, collection, ref);
    if (runs.some((r) => r.id === run.id))
      throw new PlatformError('invalid_input', `run "${run.name}" is listed twice`);
    runs.push(run);
  }
  let baseline: string | undefined;
  if (input.baseline !== undefined) {
    const run = await resolveRun(db, collection, input.baseline);
    if (!runs.some((r) => r.id === run.id))
      throw new PlatformError('invalid_input', `the baseline "${run.name}" is none of the runs`);
    baseline = run.name;
  }
  const judged = [];
  for (const set of sets) {
    const qrels = prepareQrels(await getLabelGrades(db, set.id));
    if (qrels.topics.length === 0) throw await noLabelsError(db, set);
    judged.push({ set, qrels });
  }
  checkComparisonWork({
    runs: runs.length,
    measures: tested.length,
    topics: judged.map((j) => j.qrels.topics.length),
    baseline: baseline !== undefined,
    settings,
  });
  const leaderboards: CompareReport['leaderboards'] = [];
  for (const { set, qrels } of judged) {
    const evaluations: RunEvaluation[] = [];
    for (const run of runs) {
      const trecRun = await readTrecRun(db, run, qrels.topics);
      evaluations.push(evaluateRun(qrels, trecRun, resolved, { completeTopics: true }));
    }
    try {
      // Computed a slice at a time: a server keeps answering others meanwhile.
      const comparison = await inSlices(
        compareRunsSteps(evaluations, tested, {
          ...settings,
          ...(baseline === undefined ? {} : { baseline }),
        }),
      );
      leaderboards.push({ qrels: set.name, comparison });
    } catch (error) {
      if (error instanceof CompareError)
        throw new PlatformError('invalid_input', `${set.name}: ${error.message}`);
      throw error;
    }
  }
  const correlation = correlationSettings(input);
  const result = await inSlices(comparisonReportSteps(leaderboards, tested, correlation));
  const provenance: ReportProvenance = {
    assayVersion: ASSAY_VERSION,
    createdBy: actorRef(input.createdBy),
    collection: { id: collection.id, name: collection.name },
    labelSets: sets.map((s) => ({ id: s.id, name: s.name })),
    runs: runs.map((r) => ({ id: r.id, name: r.name })),
    measures: input.measures,
    testedMeasures: tested,
    test: settings.test,
    correction: settings.correction,
    alpha: settings.alpha,
    seed: settings.seed,
    permutations: settings.permutations,
    ...(baseline === undefined ? {} : { baseline }),
    bootstrapSamples: BOOTSTRAP_SAMPLES,
    topicHandling: leaderboards[0]!.comparison.topicHandling,
    ...(sets.length === 2 ? { rankCorrelation: result.rankCorrelationSettings! } : {}),
  };
  const title =
    input.title ??
    `${runs.map((r) => r.name).join(', ')} on ${sets.map((s) => s.name).join(' and ')}`;
  return storeReport(db, collection, 'comparison', title, provenance, result, input.createdBy);
}

/**
 * The most steps one comparison may take: a step is one topic of one resample of the
 * bootstrap, or one topic of one sign flip of the randomization test (about 5 to 20 ns
 * each, so seconds of computing at most). The defaults stay far below it: 10 runs, 3
 * measures and 50 topics with 10,000 permutations take 80 million.
 */
const MAX_COMPARISON_STEPS = 1_000_000_000;

/**
 * Refuses (invalid_input, naming the figures and what to cut) a comparison whose bootstrap
 * intervals and tests would take more than {@link MAX_COMPARISON_STEPS}.
 */
function checkComparisonWork(input: {
  runs: number;
  measures: number;
  /** Topics of each label set compared under. */
  topics: number[];
  baseline: boolean;
  settings: Required<Omit<CompareSettings, 'baseline'>>;
}): void {
  const { runs, measures, settings } = input;
  const pairs = input.baseline ? runs - 1 : (runs * (runs - 1)) / 2;
  const perTest = settings.test === 'randomization' ? settings.permutations : 1;
  let steps = 0;
  for (const topics of input.topics)
    steps += measures * topics * (BOOTSTRAP_SAMPLES * (runs + 1) + pairs * perTest);
  if (steps <= MAX_COMPARISON_STEPS) return;
  const figures =
    `${runs} runs (${pairs} pairs) × ${measures} measures × ${input.topics.join(' + ')} topics` +
    (settings.test === 'randomization' ? ` × ${settings.permutations} permutations` : '');
  throw new PlatformError(
    'invalid_input',
    `${figures} take ${steps.toExponential(2)} steps of bootstrap and tests, over the cap of ${MAX_COMPARISON_STEPS.toExponential(0)} per comparison; compare fewer runs or measures, against a baseline, or with fewer permutations (10000 gives p to about ±0.005)`,
    { cap: 'MAX_COMPARISON_STEPS', limit: MAX_COMPARISON_STEPS, steps },
  );
}

/** The rank-correlation settings a comparison asked for, checked. */
function correlationSettings(input: ComparisonReportInput): Partial<CorrelationSettings> {
  const out: Partial<CorrelationSettings> = {};
  if (input.topRuns !== undefined) {
    if (!Number.isSafeInteger(input.topRuns) || input.topRuns < 2)
      throw new PlatformError('invalid_input', 'topRuns must be a whole number of at least 2');
    out.topRuns = input.topRuns;
  }
  if (input.tolerance !== undefined) {
    if (!(input.tolerance >= 0) || !Number.isFinite(input.tolerance))
      throw new PlatformError('invalid_input', 'tolerance must be 0 or more');
    out.tolerance = input.tolerance;
  }
  if (input.correlationSamples !== undefined) {
    const n = input.correlationSamples;
    if (!Number.isSafeInteger(n) || n < 0 || n > 100_000)
      throw new PlatformError(
        'invalid_input',
        'correlationSamples must be a whole number from 0 to 100000',
      );
    out.samples = n;
  }
  return out;
}

function comparisonSettings(
  input: ComparisonReportInput,
): Required<Omit<CompareSettings, 'baseline'>> {
  try {
    return compareSettings(input);
  } catch (error) {
    if (error instanceof CompareSettingsError)
      throw new PlatformError('invalid_input', error.message);
    throw error;
  }
}
