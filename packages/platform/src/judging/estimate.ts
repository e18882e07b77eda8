import {
  findAnsweredLlmCalls,
  findJudgeJobByLabelSet,
  findLabelSetByName,
  getCollectionByName,
  listRetriedJudgeTasks,
  listLabels,
  type Queryable,
} from '@assay/db';
import { buildJudgeRequest, type JudgeSettings, type JudgeTemplate } from '@assay/judge';
import {
  callCost,
  DEFAULT_PRICES,
  estimateTokens,
  chatRequestHash,
  firstAttemptOf,
  type ModelPrice,
} from '@assay/llm';
import type { JudgeItemInput } from './ensure-job.js';
import {
  checkRelevanceTemplate,
  checkRequiredSlots,
  slotCoverage,
  type SlotCoverage,
} from './templates.js';

/** What a dry run expects a job to cost, without sending anything. */
export interface JudgeEstimate {
  /** Pool items given. */
  items: number;
  /** Items the label set already has a label for. */
  alreadyLabelled: number;
  /** Items whose answer is already stored (no call needed). */
  cached: number;
  /** Calls to send (one per remaining item; re-asks of unreadable answers come on top). */
  calls: number;
  /** Estimated prompt tokens of those calls (about four characters per token). */
  promptTokens: number;
  /** Most completion tokens those calls may use (max_tokens each; 256 when unset). */
  completionTokens: number;
  /** Estimated USD at most, when the model has a price. */
  costUsd?: number;
  /** Each slot of the template and the topics that leave it empty. */
  slots: SlotCoverage[];
}

/**
 * Estimates a judging run: the calls it would send (items neither labelled in the label
 * set nor answered in the call store), their tokens and cost. Reads only.
 */
export async function estimateJudgeRun(
  db: Queryable,
  input: {
    collection: string;
    labelSet: string;
    template: JudgeTemplate;
    settings: JudgeSettings;
    items: readonly JudgeItemInput[];
    prices?: Readonly<Record<string, ModelPrice>>;
  },
): Promise<JudgeEstimate> {
  checkRelevanceTemplate(input.template);
  checkRequiredSlots(input.template, input.items);
  const labelled = new Set<string>();
  const collection = await getCollectionByName(db, input.collection);
  const labelSet = collection && (await findLabelSetByName(db, collection.id, input.labelSet));
  // The try each item is on: a run puts the failed items back first, and a task tried
  // again asks anew (its first request is another than last time's).
  const rounds = new Map<string, number>();
  if (labelSet) {
    for (const l of await listLabels(db, labelSet.id)) labelled.add(`${l.topicId}\t${l.docId}`);
    const job = await findJudgeJobByLabelSet(db, labelSet.id);
    for (const task of job ? await listRetriedJudgeTasks(db, job.id) : [])
      rounds.set(
        `${task.topicId}\t${task.docId}`,
        task.retries + (task.status === 'failed' ? 1 : 0),
      );
  }
  const todo: Array<{ hash: string; prompt: number; completion: number }> = [];
  const seen = new Set<string>();
  let alreadyLabelled = 0;
  for (const item of input.items) {
    const key = `${item.topicId}\t${item.docId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (labelled.has(key)) {
      alreadyLabelled++;
      continue;
    }
    const request = buildJudgeRequest(
      input.template,
      item.values,
      input.settings,
      firstAttemptOf(input.settings, rounds.get(key) ?? 0),
    );
    todo.push({
      hash: chatRequestHash(request),
      prompt: request.messages.reduce((s, m) => s + estimateTokens(m.content), 0),
      completion: request.max_tokens ?? 256,
    });
  }
  const answered = new Set<string>();
  for (let i = 0; i < todo.length; i += 5_000) {
    const found = await findAnsweredLlmCalls(
      db,
      todo.slice(i, i + 5_000).map((t) => t.hash),
    );
    for (const hash of found.keys()) answered.add(hash);
  }
  const calls = todo.filter((t) => !answered.has(t.hash));
  const promptTokens = calls.reduce((s, t) => s + t.prompt, 0);
  const completionTokens = calls.reduce((s, t) => s + t.completion, 0);
  const estimate: JudgeEstimate = {
    items: seen.size,
    alreadyLabelled,
    cached: todo.length - calls.length,
    calls: calls.length,
    promptTokens,
    completionTokens,
    slots: slotCoverage(input.template, input.items),
  };
  const cost = callCost(
    input.settings.model,
    { promptTokens, completionTokens },
    input.prices ?? DEFAULT_PRICES,
  );
  if (cost !== undefined) estimate.costUsd = cost;
  return estimate;
}
