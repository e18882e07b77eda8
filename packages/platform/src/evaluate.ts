import {
  findRunByName,
  getLabelGrades,
  findLabelSetByName,
  getLabelSet,
  getRun,
  getRunEntries,
  type Queryable,
} from '@assay/db';
import { evaluateRun, MeasureSpecError, prepareQrels, resolveMeasures } from '@assay/measures';
import type { Run as TrecRun } from '@assay/trec';
import { PlatformError } from './errors.js';
import { resolveCollection, type CollectionRef } from './resolve.js';

/** What to evaluate: stored runs against a stored label set. */
export interface EvaluateRunsInput {
  collection: CollectionRef;
  labelSet: string | number;
  runs: Array<string | number>;
  measures: string[];
  /** Every judged topic counts, missing ones score 0 (trec_eval -c); default true. */
  completeTopics?: boolean;
  relevanceLevel?: number;
  maxDocs?: number;
  judgedOnly?: boolean;
}

/** Per-topic and mean values of each run. */
export interface EvaluateRunsResult {
  labelSet: string;
  measures: string[];
  topicHandling: string;
  runs: Array<{
    run: string;
    perQuery: Record<string, Record<string, number>>;
    mean: Record<string, number>;
  }>;
}

/** Evaluates stored runs against a stored label set with assay's trec_eval-exact measures. */
export async function evaluateRuns(
  db: Queryable,
  input: EvaluateRunsInput,
): Promise<EvaluateRunsResult> {
  const collection = await resolveCollection(db, input.collection);
  const set =
    typeof input.labelSet === 'number'
      ? await getLabelSet(db, input.labelSet)
      : await findLabelSetByName(db, collection.id, input.labelSet);
  if (!set || set.collectionId !== collection.id)
    throw new PlatformError(
      'not_found',
      `no label set ${JSON.stringify(input.labelSet)} in collection "${collection.name}"`,
    );
  let measures;
  try {
    measures = resolveMeasures(input.measures);
  } catch (error) {
    if (error instanceof MeasureSpecError) throw new PlatformError('invalid_input', error.message);
    throw error;
  }
  const qrels = prepareQrels(await getLabelGrades(db, set.id));
  if (qrels.topics.length === 0)
    throw new PlatformError('invalid_input', `label set "${set.name}" has no labels`);
  const completeTopics = input.completeTopics ?? true;
  const runs = [];
  for (const ref of input.runs) {
    const stored =
      typeof ref === 'number' ? await getRun(db, ref) : await findRunByName(db, collection.id, ref);
    if (!stored || stored.collectionId !== collection.id)
      throw new PlatformError(
        'not_found',
        `no run ${JSON.stringify(ref)} in collection "${collection.name}"`,
      );
    const byTopic = await getRunEntries(db, stored.id);
    const run: TrecRun = { name: stored.name, topics: new Map() };
    for (const [topic, entries] of byTopic)
      run.topics.set(
        topic,
        entries.map((e) => ({ docno: e.docId, rank: e.rank, score: e.score })),
      );
    let result;
    try {
      result = evaluateRun(qrels, run, measures, {
        completeTopics,
        ...(input.relevanceLevel === undefined ? {} : { relevanceLevel: input.relevanceLevel }),
        ...(input.maxDocs === undefined ? {} : { maxDocs: input.maxDocs }),
        ...(input.judgedOnly === undefined ? {} : { judgedOnly: input.judgedOnly }),
      });
    } catch (error) {
      throw new PlatformError('invalid_input', (error as Error).message);
    }
    const numeric = result.columns
      .map((c, i) => ({ c, i }))
      .filter(({ c }) => c.output !== 'string' && c.aggregate !== 'runid');
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
    measures: measures.flatMap((m) => m.names),
    topicHandling: completeTopics
      ? 'every topic of the label set counts; a topic a run did not retrieve for scores 0 (trec_eval -c)'
      : 'every topic of the label set must be in each run (trec_eval without -c)',
    runs,
  };
}
