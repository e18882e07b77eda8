import {
  callCost,
  DEFAULT_PRICES,
  estimateTokens,
  type MethodPrompt,
  type ModelPrice,
} from '@assay/llm';
import { documentText } from '@assay/retrieval';
import { methodNeeds } from './llm-retrieve.js';
import type { MethodTopic, StepSettings } from './method-context.js';
import type { EstimateSink } from './method-definition.js';
import { methodDefinition, parseMethodSettings } from './methods-registry.js';
import type { ModelRetrieveOptions } from './retrieve-options.js';

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
 * producing step's `max_tokens`, and every completion at its `max_tokens`. Each call is
 * priced at its step's model (a step's own model, else the run's).
 */
export function estimateModelRun(
  topics: readonly MethodTopic[],
  prompts: ReadonlyMap<string, MethodPrompt>,
  options: ModelRetrieveOptions & {
    model?: string;
    embeddingModel?: string;
    steps?: Readonly<Record<string, StepSettings>>;
    documents?: readonly { title?: string; text: string }[];
    batchSize?: number;
  },
  prices: Readonly<Record<string, ModelPrice>> = DEFAULT_PRICES,
): RunEstimate {
  const settings = parseMethodSettings(options.method, options.settings);
  const needs = methodNeeds(options.method, settings);
  const embeds =
    needs.embeddings === 'required' ||
    (needs.embeddings === 'optional' && options.embeddingModel !== undefined);
  const e: RunEstimate = {
    chatCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    embeddingRequests: 0,
    embeddedTexts: 0,
    embeddingTokens: 0,
  };
  // Tokens by the model that answers them.
  const byModel = new Map<string | undefined, { promptTokens: number; completionTokens: number }>();
  const modelOf = (id: string) =>
    options.steps?.[id]?.model ?? options.steps?.['*']?.model ?? options.model;
  let topicsEmbedding = 0;
  const sink: EstimateSink = {
    call(id, inputTokens) {
      const p = prompts.get(id);
      if (!p) throw new Error(`no method prompt '${id}'`);
      const prompt = estimateTokens(p.system) + estimateTokens(p.prompt) + inputTokens;
      const completion = p.model.maxTokens ?? 256;
      e.chatCalls++;
      e.promptTokens += prompt;
      e.completionTokens += completion;
      const model = modelOf(id);
      const tokens = byModel.get(model) ?? { promptTokens: 0, completionTokens: 0 };
      tokens.promptTokens += prompt;
      tokens.completionTokens += completion;
      byModel.set(model, tokens);
    },
    max: (id) => prompts.get(id)?.model.maxTokens ?? 256,
    embed(texts, tokens) {
      if (!embeds) return;
      if (texts > 0) topicsEmbedding++;
      e.embeddedTexts += texts;
      e.embeddingTokens += tokens;
    },
  };
  const definition = methodDefinition(options.method);
  const extra = {
    embeddings: embeds,
    ...(options.documents ? { documents: options.documents } : {}),
  };
  for (const topic of topics) {
    const before = topicsEmbedding;
    definition.estimateTopic(topic, settings, sink, extra);
    // One embeddings request per topic that embeds anything.
    if (topicsEmbedding > before) topicsEmbedding = before + 1;
  }
  e.embeddingRequests += topicsEmbedding;
  const batch = options.batchSize ?? 64;
  if (embeds && options.documents) {
    e.embeddedTexts += options.documents.length;
    e.embeddingRequests += Math.ceil(options.documents.length / batch);
    for (const d of options.documents) e.embeddingTokens += estimateTokens(documentText(d));
  }
  let cost = 0;
  let priced = true;
  for (const [model, tokens] of byModel) {
    const c = model ? callCost(model, tokens, prices) : undefined;
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
