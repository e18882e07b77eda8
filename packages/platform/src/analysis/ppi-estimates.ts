// Prediction-powered leaderboards of stored runs: `assay ppi` over a collection's label
// sets, for the API (and a campaign's label set, whose finished topics count as they are
// finished, so the intervals narrow as people label).
import {
  findCampaignByLabelSet,
  getLabelGrades,
  listCampaignItems,
  type Queryable,
} from '@assay/db';
import { evaluateRun, MeasureSpecError, prepareQrels, resolveMeasures } from '@assay/measures';
import type { PValueAdjustment } from '@assay/stats';
import type { Run as TrecRun } from '@assay/trec';
import {
  COMPARE_CORRECTIONS,
  pairUnits,
  PPI_DEFAULTS,
  PpiError,
  ppiLeaderboard,
  testableMeasures,
  topicUnits,
  type PpiReport,
  type PpiSampling,
} from './index.js';
import { PlatformError } from '../core/errors.js';
import {
  resolveCollection,
  resolveLabelSet,
  resolveRun,
  type CollectionRef,
} from '../core/resolve.js';
import { readTrecRun, runsOrAll } from '../catalog/runs.js';

/** What a prediction-powered leaderboard of stored runs is computed from. */
export interface PpiEstimateInput {
  collection: CollectionRef;
  /** People's labels: every judged pair of a sample of topics (or a sample of pairs). */
  humanLabelSet: string | number;
  /** The LLM's labels on every topic. */
  llmLabelSet: string | number;
  /** Runs by name or id; default every run of the collection. */
  runs?: Array<string | number> | undefined;
  /** Measures as `assay ppi -m` (default nDCG@10); the first orders the leaderboard. */
  measures?: string[];
  sampling?: PpiSampling;
  alpha?: number;
  correction?: PValueAdjustment;
  targetHalfWidth?: number;
}

/** The estimate with what it was computed from. */
export interface PpiEstimate extends PpiReport {
  humanLabelSet: { id: number; name: string };
  llmLabelSet: { id: number; name: string };
  /** When the human label set is a campaign's: its topics and how many are finished. */
  campaign?: { id: number; name: string; topics: number; finishedTopics: number };
}

/**
 * The prediction-powered leaderboard of stored runs, as `assay ppi` computes it on the same
 * labels and runs. When the human label set is an annotation campaign's, only topics whose
 * every campaign item is labelled count (with topic sampling), so the estimate uses what
 * people have finished and its intervals narrow as they label.
 */
export async function estimateLeaderboard(
  db: Queryable,
  input: PpiEstimateInput,
): Promise<PpiEstimate> {
  const collection = await resolveCollection(db, input.collection);
  const humanSet = await resolveLabelSet(db, collection, input.humanLabelSet);
  const llmSet = await resolveLabelSet(db, collection, input.llmLabelSet);
  if (humanSet.id === llmSet.id)
    throw new PlatformError('invalid_input', 'the human and LLM label sets are the same');
  const sampling = input.sampling ?? 'topics';
  const alpha = input.alpha ?? PPI_DEFAULTS.alpha;
  if (!(alpha > 0 && alpha < 1))
    throw new PlatformError('invalid_input', 'alpha must lie between 0 and 1');
  const correction = input.correction ?? PPI_DEFAULTS.correction;
  if (!(COMPARE_CORRECTIONS as readonly string[]).includes(correction))
    throw new PlatformError('invalid_input', `unknown correction ${correction}`);
  const specs = input.measures ?? ['nDCG@10'];
  let human = await getLabelGrades(db, humanSet.id);
  const llm = await getLabelGrades(db, llmSet.id);
  let campaign: PpiEstimate['campaign'];
  const owner = await findCampaignByLabelSet(db, humanSet.id);
  if (owner && sampling === 'topics') {
    const items = await listCampaignItems(db, owner.id);
    const open = new Set<string>();
    const topics = new Set<string>();
    for (const item of items) {
      topics.add(item.topicId);
      if (human.get(item.topicId)?.get(item.docId) === undefined) open.add(item.topicId);
    }
    human = new Map([...human].filter(([topic]) => topics.has(topic) && !open.has(topic)));
    campaign = {
      id: owner.id,
      name: owner.name,
      topics: topics.size,
      finishedTopics: topics.size - open.size,
    };
  }
  const runs: TrecRun[] = [];
  for (const ref of await runsOrAll(db, collection, input.runs)) {
    const run = await resolveRun(db, collection, ref);
    if (runs.some((r) => r.name === run.name))
      throw new PlatformError('invalid_input', `run "${run.name}" is listed twice`);
    runs.push(await readTrecRun(db, run));
  }
  if (runs.length === 0) throw new PlatformError('invalid_input', 'the collection has no runs');
  try {
    let units;
    if (sampling === 'pairs') units = pairUnits(human, llm, runs, specs);
    else {
      const { measures } = testableMeasures(specs);
      if (measures.length === 0)
        throw new PlatformError(
          'invalid_input',
          'none of the measures is a mean of per-topic values',
        );
      const resolved = resolveMeasures(specs);
      const evaluate = (grades: typeof human) => {
        const qrels = prepareQrels(grades);
        return runs.map((run) => evaluateRun(qrels, run, resolved, { completeTopics: true }));
      };
      units = topicUnits(evaluate(human), evaluate(llm), measures);
    }
    const report = ppiLeaderboard(units, {
      alpha,
      correction,
      ...(input.targetHalfWidth === undefined ? {} : { targetHalfWidth: input.targetHalfWidth }),
    });
    return {
      ...report,
      humanLabelSet: { id: humanSet.id, name: humanSet.name },
      llmLabelSet: { id: llmSet.id, name: llmSet.name },
      ...(campaign ? { campaign } : {}),
    };
  } catch (error) {
    if (error instanceof PpiError || error instanceof MeasureSpecError)
      throw new PlatformError('invalid_input', error.message);
    throw error;
  }
}
