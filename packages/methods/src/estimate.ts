import { callCost, DEFAULT_PRICES, estimateTokens, type ModelPrice } from '@assay/llm';
import type { MethodPrompt } from '@assay/llm';
import type { AmdAggregation } from './amd.js';
import { documentText, needsEmbeddings, type ModelMethod } from './llm-retrieve.js';

/** What a run would send at most (every call, none found in the store). */
export interface RunEstimate {
  chatCalls: number;
  promptTokens: number;
  completionTokens: number;
  embeddingRequests: number;
  embeddedTexts: number;
  embeddingTokens: number;
  /** USD for priced models; undefined when a model used has no price. */
  costUsd?: number;
}

/**
 * An upper estimate of a model method's calls and tokens: prompt tokens from the rendered
 * prompt (about four characters a token), with each generated input counted at the
 * producing step's `max_tokens`, and every completion at its `max_tokens`.
 */
export function estimateModelRun(
  topics: readonly { text: string }[],
  prompts: ReadonlyMap<string, MethodPrompt>,
  options: {
    method: ModelMethod;
    aggregation?: AmdAggregation;
    feedback?: boolean;
    model?: string;
    embeddingModel?: string;
    documents?: readonly { title?: string; text: string }[];
    batchSize?: number;
  },
  prices: Readonly<Record<string, ModelPrice>> = DEFAULT_PRICES,
): RunEstimate {
  const e: RunEstimate = {
    chatCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    embeddingRequests: 0,
    embeddedTexts: 0,
    embeddingTokens: 0,
  };
  const call = (id: string, inputTokens: number) => {
    const p = prompts.get(id);
    if (!p) throw new Error(`no method prompt '${id}'`);
    e.chatCalls++;
    e.promptTokens += estimateTokens(p.system) + estimateTokens(p.prompt) + inputTokens;
    e.completionTokens += p.model.maxTokens ?? 256;
  };
  const max = (id: string) => prompts.get(id)?.model.maxTokens ?? 256;
  const batch = options.batchSize ?? 64;
  let perTopicTexts = 0;
  for (const topic of topics) {
    const q = estimateTokens(topic.text);
    if (options.method === 'query2doc') {
      call('query2doc', q);
      if (options.aggregation === 'dense') {
        perTopicTexts += 1;
        e.embeddingTokens += q + max('query2doc');
      }
    }
    if (options.method === 'amd') {
      call('amd-questions', q);
      const question = Math.ceil(max('amd-questions') / 3);
      for (let i = 0; i < 3; i++) call('amd-answer', question);
      if (options.feedback ?? true)
        call('amd-feedback', q + max('amd-questions') + 3 * max('amd-answer'));
      if (options.aggregation === 'dense') {
        perTopicTexts += 4;
        e.embeddingTokens +=
          q + 3 * max(options.feedback === false ? 'amd-answer' : 'amd-feedback');
      }
    }
    if (options.method === 'dense' || options.method === 'hybrid') {
      perTopicTexts += 1;
      e.embeddingTokens += q;
    }
  }
  if (perTopicTexts > 0) e.embeddingRequests += topics.length;
  e.embeddedTexts += perTopicTexts;
  if (needsEmbeddings(options.method, options.aggregation) && options.documents) {
    e.embeddedTexts += options.documents.length;
    e.embeddingRequests += Math.ceil(options.documents.length / batch);
    for (const d of options.documents) e.embeddingTokens += estimateTokens(documentText(d));
  }
  let cost = 0;
  let priced = true;
  if (e.chatCalls > 0) {
    const c = options.model ? callCost(options.model, e, prices) : undefined;
    if (c === undefined) priced = false;
    else cost += c;
  }
  if (e.embeddedTexts > 0) {
    const c = options.embeddingModel
      ? callCost(
          options.embeddingModel,
          { promptTokens: e.embeddingTokens, completionTokens: 0 },
          prices,
        )
      : undefined;
    if (c === undefined) priced = false;
    else cost += c;
  }
  if (priced) e.costUsd = cost;
  return e;
}
