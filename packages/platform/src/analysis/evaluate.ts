import { getLabelGrades, type Queryable } from '@assay/db';
import {
  evaluateRun,
  MeasureSpecError,
  MissingTopicError,
  prepareQrels,
  resolveMeasures,
} from '@assay/measures';
import { PlatformError } from '../core/errors.js';
import {
  noLabelsError,
  resolveCollection,
  resolveLabelSet,
  resolveRun,
  type CollectionRef,
} from '../core/resolve.js';
import { readTrecRun, runsOrAll } from '../catalog/runs.js';

/** What to evaluate: stored runs against a stored label set. */
export interface EvaluateRunsInput {
  collection: CollectionRef;
  /** The label set (qrels) by name or id. */
  labelSet: string | number;
  /** Runs of the collection by name or id; default every run of the collection. */
  runs?: Array<string | number> | undefined;
  /** trec_eval or ir_measures names (`map`, `ndcg_cut.10`, `nDCG@10`); empty = trec_eval's official set. */
  measures: string[];
  /** Every judged topic counts, a topic a run lacks scores 0 (trec_eval -c); default true. */
  completeTopics?: boolean;
  /** Lowest grade that counts as relevant (trec_eval -l, default 1). */
  relevanceLevel?: number;
  /** Evaluate at most this many documents per topic (trec_eval -M). */
  maxDocs?: number;
  /** Keep only judged documents in each ranking (trec_eval -J). */
  judgedOnly?: boolean;
}

/** One run's values: per judged topic, and the mean over topics as trec_eval reports it. */
export interface RunMeasures {
  run: string;
  /** qid → measure → value (topics in trec_eval's order). */
  perQuery: Record<string, Record<string, number>>;
  /** measure → the summary value (`all` line of trec_eval). */
  mean: Record<string, number>;
}

/** Per-topic and mean values of each run. */
export interface EvaluateRunsResult {
  labelSet: string;
  /** Measure names as trec_eval prints them (`map`, `P_10`, `ndcg_cut_10` …), in order. */
  measures: string[];
  /** How topics missing from a run were treated (trec_eval -c or not). */
  topicHandling: string;
  runs: RunMeasures[];
}

/** Evaluates stored runs against a stored label set with assay's trec_eval-exact measures. */
export async function evaluateRuns(
  db: Queryable,
  input: EvaluateRunsInput,
): Promise<EvaluateRunsResult> {
  const collection = await resolveCollection(db, input.collection);
  const set = await resolveLabelSet(db, collection, input.labelSet);
  const runRefs = await runsOrAll(db, collection, input.runs);
  if (runRefs.length === 0) throw new PlatformError('invalid_input', 'no runs to evaluate');
  for (const [key, value] of [
    ['relevanceLevel', input.relevanceLevel],
    ['maxDocs', input.maxDocs],
  ] as const)
    if (value !== undefined && !Number.isInteger(value))
      throw new PlatformError('invalid_input', `${key} must be an integer`);
  if (input.maxDocs !== undefined && input.maxDocs < 1)
    throw new PlatformError('invalid_input', 'maxDocs must be at least 1');
  let measures;
  try {
    measures = resolveMeasures(input.measures);
  } catch (error) {
    if (error instanceof MeasureSpecError) throw new PlatformError('invalid_input', error.message);
    throw error;
  }
  const qrels = prepareQrels(await getLabelGrades(db, set.id));
  if (qrels.topics.length === 0) throw await noLabelsError(db, set);
  const completeTopics = input.completeTopics ?? true;
  const runs: RunMeasures[] = [];
  let names: string[] = [];
  for (const ref of runRefs) {
    const stored = await resolveRun(db, collection, ref);
    const run = await readTrecRun(db, stored, qrels.topics);
    let result;
    try {
      result = evaluateRun(qrels, run, measures, {
        completeTopics,
        ...(input.relevanceLevel === undefined ? {} : { relevanceLevel: input.relevanceLevel }),
        ...(input.maxDocs === undefined ? {} : { maxDocs: input.maxDocs }),
        ...(input.judgedOnly === undefined ? {} : { judgedOnly: input.judgedOnly }),
      });
    } catch (error) {
      if (error instanceof MissingTopicError)
        throw new PlatformError('invalid_input', error.message, { run: stored.name });
      throw error;
    }
    const numeric = result.columns
      .map((c, i) => ({ c, i }))
      .filter(({ c }) => c.output !== 'string' && c.aggregate !== 'runid');
    names = numeric.map(({ c }) => c.name);
    const perQuery: Record<string, Record<string, number>> = {};
    for (const t of result.topics) {
      perQuery[t.qid] = Object.fromEntries(
        numeric.filter(({ c }) => c.perQuery).map(({ c, i }) => [c.name, t.values[i] as number]),
      );
    }
    const mean = Object.fromEntries(
      numeric.map(({ c, i }) => [c.name, result.summary[i] as number]),
    );
    runs.push({ run: stored.name, perQuery, mean });
  }
  return {
    labelSet: set.name,
    measures: names,
    topicHandling: completeTopics
      ? 'every topic of the label set counts; a topic a run did not retrieve for scores 0 (trec_eval -c)'
      : 'every topic of the label set must be in each run (trec_eval without -c)',
    runs,
  };
}
