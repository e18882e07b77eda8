import {
  createReport,
  deleteReport as deleteStoredReport,
  getLabelGrades,
  getReport as getStoredReport,
  listReports as listStoredReports,
  lockReport,
  withTransaction,
  type JsonObject,
  type LabelSet,
  type Queryable,
  type Report,
  type ReportKind,
  type ReportSummary,
  type Run,
} from '@assay/db';
import {
  evaluateRun,
  MeasureSpecError,
  prepareQrels,
  resolveMeasures,
  type RunEvaluation,
} from '@assay/measures';
import { CLUSTER_BOOTSTRAP_SAMPLES, type PValueAdjustment } from '@assay/stats';
import {
  agreement,
  BOOTSTRAP_SAMPLES,
  compareRunsSteps,
  fitGradesToScale,
  MAX_SCALE_GRADES,
  outlyingGrade,
  scaleWidth,
  comparisonReport,
  compareSettings,
  CompareSettingsError,
  CompareError,
  observedScale,
  testableMeasures,
  type AgreementReport,
  type CompareReport,
  type CompareSettings,
  type CorrelationSettings,
  type RankCorrelationSettings,
  type GradeScale,
  type TestName,
} from '../analysis/index.js';
import { writeInCollection } from '../catalog/collection-writes.js';
import { PlatformError, writing } from '../core/errors.js';
import { evaluateRuns, type EvaluateRunsInput, type EvaluateRunsResult } from '../analysis/evaluate.js';
import { decodeReport, toJson } from './report-codec.js';
import { readTrecRun, runsOrAll } from '../catalog/runs.js';
import { ASSAY_VERSION } from '../core/version.js';
import {
  noLabelsError,
  resolveCollection,
  resolveLabelSet,
  resolveRun,
  type CollectionRef,
} from '../core/resolve.js';
import { pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';
import { inSlices } from '../core/work-slices.js';

/** Who creates a report or publishes a leaderboard (recorded by id and name). */
export interface Actor {
  id: number;
  name: string;
}

/** A stored thing named in a provenance: its id and its name at the time. */
export interface NamedRef {
  id: number;
  name: string;
}

/** What a report was computed from and how; stored with it and never changed. */
export interface ReportProvenance {
  assayVersion: string;
  createdBy: NamedRef | null;
  collection: NamedRef;
  /** In the order given (a comparison's first label set is ground truth for tau-AP). */
  labelSets: NamedRef[];
  runs: NamedRef[];
  /** Measures as asked for (evaluation, comparison). */
  measures?: string[];
  /** Measure columns tested, in order (comparison). */
  testedMeasures?: string[];
  test?: TestName;
  correction?: PValueAdjustment;
  alpha?: number;
  seed?: number;
  permutations?: number;
  baseline?: string;
  bootstrapSamples?: number;
  topicHandling?: string;
  completeTopics?: boolean;
  relevanceLevel?: number;
  maxDocs?: number;
  judgedOnly?: boolean;
  scale?: GradeScale;
  clip?: boolean;
  /** Two label sets: how the rank correlations and their intervals were computed. */
  rankCorrelation?: RankCorrelationSettings;
  /** A leaderboard of generated answers: what judged them (see the rag use-cases). */
  rag?: {
    kind: 'nuggets' | 'support' | 'rubric';
    assessmentSet: NamedRef;
    responseSet: NamedRef;
    assessor: string;
    nuggetBank?: { id: number; name: string; version: number };
    rubricSet?: NamedRef;
    firstCitationOnly?: boolean;
    /** Answers left out because some of their items were not judged. */
    incompleteAnswers: number;
  };
}

/** A stored report: its snapshot result typed by kind. */
export type StoredReport = Omit<Report, 'kind' | 'result' | 'provenance'> & {
  provenance: ReportProvenance;
} & (
    | { kind: 'evaluation'; result: EvaluateRunsResult }
    | { kind: 'comparison'; result: CompareReport }
    | { kind: 'agreement'; result: AgreementReport }
  );

/** A stored report without its result, as lists show it. */
export type StoredReportSummary = Omit<ReportSummary, 'provenance'> & {
  provenance: ReportProvenance;
};

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

/** What an agreement report compares: two stored label sets of one collection. */
export interface AgreementReportInput {
  collection: CollectionRef;
  labelSetA: string | number;
  labelSetB: string | number;
  /** The grade scale (default: the grades seen in either label set, as `assay agree`). */
  scale?: GradeScale;
  /** Clamp grades outside the scale into it instead of failing. */
  clip?: boolean;
  /** Bootstrap resamples of the topic-clustered intervals (default 1,000; 0: none). */
  samples?: number;
  /** Seed of the bootstrap (default 42). */
  seed?: number;
  title?: string;
  createdBy?: Actor;
}

/** An evaluation of stored runs to store as a report. */
export interface EvaluationReportInput extends EvaluateRunsInput {
  title?: string;
  createdBy?: Actor;
}

// ------------------------------------------------------------------------------- create

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
  const result = comparisonReport(leaderboards, tested, correlation);
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
  return store(db, collection, 'comparison', title, provenance, result, input.createdBy);
}

/** Computes the agreement of two stored label sets, as `assay agree`, and stores it. */
export async function createAgreementReport(
  db: Queryable,
  input: AgreementReportInput,
): Promise<StoredReport> {
  const collection = await resolveCollection(db, input.collection);
  const setA = await resolveLabelSet(db, collection, input.labelSetA);
  const setB = await resolveLabelSet(db, collection, input.labelSetB);
  const a = await getLabelGrades(db, setA.id);
  const b = await getLabelGrades(db, setB.id);
  for (const [set, grades] of [
    [setA, a],
    [setB, b],
  ] as const)
    if (grades.size === 0) throw await noLabelsError(db, set);
  if (input.scale !== undefined) {
    const { min, max } = input.scale;
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min >= max)
      throw new PlatformError(
        'invalid_input',
        'the scale needs integer grades, the lowest below the highest',
      );
  }
  const scale = input.scale ?? observedScale(a, b);
  if (scaleWidth(scale) > MAX_SCALE_GRADES) {
    if (input.scale !== undefined)
      throw new PlatformError(
        'invalid_input',
        `the scale ${scale.min}-${scale.max} holds more than ${MAX_SCALE_GRADES} grades, the most agreement is computed over`,
      );
    const outlier = outlyingGrade(a, b)!;
    const set = outlier.side === 'a' ? setA : setB;
    throw new PlatformError(
      'invalid_input',
      `label set "${set.name}": grade ${outlier.grade} of topic ${outlier.qid} document ${outlier.docno} makes the scale ${scale.min}-${scale.max}, wider than the ${MAX_SCALE_GRADES} grades agreement is computed over; give a scale and clip to clamp it, or fix the label`,
      { labelSet: set.name, grade: outlier.grade, maxScaleGrades: MAX_SCALE_GRADES },
    );
  }
  const clip = input.clip ?? false;
  const clipped = {
    a: fitToScale(a, scale, clip, setA.name),
    b: fitToScale(b, scale, clip, setB.name),
  };
  const samples = input.samples ?? CLUSTER_BOOTSTRAP_SAMPLES;
  const seed = input.seed ?? 42;
  if (!Number.isSafeInteger(samples) || samples < 0 || samples > 100_000)
    throw new PlatformError('invalid_input', 'samples must be a whole number from 0 to 100000');
  if (!Number.isSafeInteger(seed))
    throw new PlatformError('invalid_input', 'seed must be an integer');
  const result = agreement(a, b, scale, clipped, { samples, seed });
  const provenance: ReportProvenance = {
    assayVersion: ASSAY_VERSION,
    createdBy: actorRef(input.createdBy),
    collection: { id: collection.id, name: collection.name },
    labelSets: [setA, setB].map((s) => ({ id: s.id, name: s.name })),
    runs: [],
    scale,
    clip,
    bootstrapSamples: samples,
    seed,
  };
  const title = input.title ?? `${setA.name} vs ${setB.name}`;
  return store(db, collection, 'agreement', title, provenance, result, input.createdBy);
}

/** Evaluates stored runs (as {@link evaluateRuns}) and stores the result as a report. */
export async function createEvaluationReport(
  db: Queryable,
  input: EvaluationReportInput,
): Promise<StoredReport> {
  const collection = await resolveCollection(db, input.collection);
  const set = await resolveLabelSet(db, collection, input.labelSet);
  const runs: Run[] = [];
  for (const ref of await runsOrAll(db, collection, input.runs))
    runs.push(await resolveRun(db, collection, ref));
  const result = await evaluateRuns(db, {
    ...input,
    collection: collection.id,
    labelSet: set.id,
    runs: runs.map((r) => r.id),
  });
  const provenance: ReportProvenance = {
    assayVersion: ASSAY_VERSION,
    createdBy: actorRef(input.createdBy),
    collection: { id: collection.id, name: collection.name },
    labelSets: [{ id: set.id, name: set.name }],
    runs: runs.map((r) => ({ id: r.id, name: r.name })),
    measures: input.measures,
    topicHandling: result.topicHandling,
    completeTopics: input.completeTopics ?? true,
    ...(input.relevanceLevel === undefined ? {} : { relevanceLevel: input.relevanceLevel }),
    ...(input.maxDocs === undefined ? {} : { maxDocs: input.maxDocs }),
    ...(input.judgedOnly === undefined ? {} : { judgedOnly: input.judgedOnly }),
  };
  const title = input.title ?? `${runs.map((r) => r.name).join(', ')} on ${set.name}`;
  return store(db, collection, 'evaluation', title, provenance, result, input.createdBy);
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

/** Grades outside the scale fail, or with `clip` are clamped into it (in place) and counted. */
function fitToScale(
  grades: Map<string, Map<string, number>>,
  scale: GradeScale,
  clip: boolean,
  name: string,
): number {
  return fitGradesToScale(grades, scale, clip, (qid, docno, grade) => {
    throw new PlatformError(
      'invalid_input',
      `label set "${name}": grade ${grade} of topic ${qid} document ${docno} is outside the scale ${scale.min}-${scale.max} (clip to clamp it)`,
    );
  });
}

/**
 * Stores a leaderboard computed elsewhere (the systems of generated answers, scored by an
 * assessment set) as a comparison report of the collection, publishable like any other.
 */
export async function storeComparisonReport(
  db: Queryable,
  input: {
    collection: NamedRef;
    title: string;
    provenance: Omit<ReportProvenance, 'assayVersion' | 'createdBy' | 'collection'>;
    result: CompareReport;
    createdBy?: Actor;
  },
): Promise<StoredReport> {
  const provenance: ReportProvenance = {
    assayVersion: ASSAY_VERSION,
    createdBy: actorRef(input.createdBy),
    collection: input.collection,
    ...input.provenance,
  };
  return store(
    db,
    input.collection,
    'comparison',
    input.title,
    provenance,
    input.result,
    input.createdBy,
  );
}

function actorRef(actor: Actor | undefined): NamedRef | null {
  return actor ? { id: actor.id, name: actor.name } : null;
}

async function store(
  db: Queryable,
  collection: { id: number; name: string },
  kind: ReportKind,
  title: string,
  provenance: ReportProvenance,
  result: EvaluateRunsResult | CompareReport | AgreementReport,
  createdBy: Actor | undefined,
): Promise<StoredReport> {
  const trimmed = title.trim();
  if (trimmed === '') throw new PlatformError('invalid_input', 'the title must not be blank');
  const report = await writing(
    () =>
      writeInCollection(db, collection, (trx) =>
        createReport(trx, {
          collectionId: collection.id,
          kind,
          title: trimmed,
          provenance: toJson(provenance) as JsonObject,
          result: toJson(result),
          createdBy: createdBy?.id ?? null,
        }),
      ),
    'the report conflicts with existing data',
  );
  return decodeReport(report);
}

// -------------------------------------------------------------------------------- read

/** A stored report with its result; not_found when there is none. */
export async function getReport(db: Queryable, id: number): Promise<StoredReport> {
  const report = Number.isSafeInteger(id) ? await getStoredReport(db, id) : undefined;
  if (!report) throw new PlatformError('not_found', `no report ${id}`);
  return decodeReport(report);
}

/** Stored reports without results, newest first, optionally of one collection or kind. */
export async function listReports(
  db: Queryable,
  options: { collection?: CollectionRef; kind?: ReportKind } = {},
): Promise<StoredReportSummary[]> {
  const collection =
    options.collection === undefined ? undefined : await resolveCollection(db, options.collection);
  const reports = await listStoredReports(db, {
    ...(collection ? { collectionId: collection.id } : {}),
    ...(options.kind ? { kind: options.kind } : {}),
  });
  return reports.map(withProvenance);
}

/** A page of {@link listReports} (newest first: by id, descending). */
export async function listReportsPage(
  db: Queryable,
  options: { collection?: CollectionRef; kind?: ReportKind } & PageOptions = {},
): Promise<Page<StoredReportSummary>> {
  const page = seekPage(options, SMALL_PAGE, ['int']);
  const collection =
    options.collection === undefined ? undefined : await resolveCollection(db, options.collection);
  const reports = await listStoredReports(db, {
    ...(collection ? { collectionId: collection.id } : {}),
    ...(options.kind ? { kind: options.kind } : {}),
    page,
  });
  return pageOf(reports, page, (r) => [r.id], withProvenance);
}

function withProvenance(r: ReportSummary): StoredReportSummary {
  return { ...r, provenance: r.provenance as unknown as ReportProvenance };
}

/** Deletes a report; not_found when there is none, conflict while it is published. */
export async function deleteReport(db: Queryable, id: number): Promise<void> {
  if (!Number.isSafeInteger(id)) throw new PlatformError('not_found', `no report ${id}`);
  await withTransaction(db, async (trx) => {
    // Waits for publications in progress, and holds off new ones until the delete is done.
    if (!(await lockReport(trx, id, 'update')))
      throw new PlatformError('not_found', `no report ${id}`);
    const report = await getReport(trx, id);
    if (report.slugs.length > 0)
      throw new PlatformError(
        'conflict',
        `report ${id} is published as ${report.slugs.join(', ')}; unpublish it first`,
      );
    await deleteStoredReport(trx, id);
  });
}
