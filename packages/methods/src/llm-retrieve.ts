import { ChatCallError, type ChatClient } from '@assay/llm';
import {
  EmbeddingClient,
  LlmHttpError,
  UnusableAnswerError,
  type CallDeps,
  type HttpEndpoint,
  type MethodPrompt,
} from '@assay/llm';
import {
  Bm25Searcher,
  DEFAULT_BM25,
  describeAnalyzer,
  type Bm25Index,
  type Bm25Params,
} from '@assay/retrieval';
import type { Run, RunEntry } from '@assay/trec';
import { amdTopic, DEFAULT_AMD, type AmdAggregation } from './amd.js';
import { DenseIndex } from './dense-index.js';
import { denseTopic, hybridTopic } from './dense-methods.js';
import type { MethodContext, ScoredDoc } from './method-context.js';
import { query2docTopic } from './query2doc.js';
import { BudgetExceededError, SpendTracker } from './spend-tracker.js';
import type { TraceEntry } from './trace.js';

/** The LLM and embedding methods of {@link retrieveWithModels}. */
export const MODEL_METHODS = ['query2doc', 'amd', 'dense', 'hybrid'] as const;
/** One of {@link MODEL_METHODS}. */
export type ModelMethod = (typeof MODEL_METHODS)[number];

/** Options of {@link retrieveWithModels}. */
export interface ModelRetrieveOptions {
  method: ModelMethod;
  /** Documents per topic (default 1000). */
  k?: number;
  bm25?: Partial<Bm25Params>;
  /** query2doc: sparse (default) or dense; amd: sparse (default), dense or rrf. */
  aggregation?: AmdAggregation;
  /** AMD's reflective feedback (default true). */
  feedback?: boolean;
  /** Weight of the query embedding in AMD's dense aggregation (default 0.7). */
  queryWeight?: number;
  /** RRF constant for amd rrf and hybrid (default 60). */
  rrfK?: number;
  /** Stop sending calls once this many USD were spent (priced models only). */
  budgetUsd?: number;
  /** Topics worked on at once (default 4). */
  concurrency?: number;
  tag?: string;
  onProgress?: (done: number, total: number, spend: SpendTracker) => void;
}

/** Endpoints, prompts and the collection a model method works with. */
export interface ModelResources {
  index: Bm25Index;
  prompts: ReadonlyMap<string, MethodPrompt>;
  /** Where calls are kept; `beforePaidCall`/`onPaidCall` are set by the run. */
  deps: CallDeps;
  chat?: { client: ChatClient; model: string };
  /** The embeddings endpoint and model (the client is made with the run's deps). */
  embeddings?: { endpoint: HttpEndpoint; model: string; batchSize?: number };
  /** Document texts for the dense index (dense aggregation, dense, hybrid). */
  documents?: readonly { id: string; title?: string; text: string }[];
}

/** A run made with models, with everything it generated and what it cost. */
export interface ModelRun {
  run: Run;
  parameters: Record<string, string | number>;
  trace: TraceEntry[];
  /** Topics that failed, with the reason (they have no entries in the run). */
  failures: Array<{ topic: string; reason: string }>;
  /** Topics left unfinished (or not started) because the budget was reached. */
  unfinished: string[];
  stoppedForBudget: boolean;
  spend: SpendTracker;
}

/** Whether a method (with its aggregation) needs the collection's embeddings. */
export function needsEmbeddings(method: ModelMethod, aggregation?: AmdAggregation): boolean {
  return method === 'dense' || method === 'hybrid' || aggregation === 'dense';
}

/** Whether a method calls a chat model. */
export function needsChat(method: ModelMethod): boolean {
  return method === 'query2doc' || method === 'amd';
}

/** The settings a model method uses, defaults filled in, for the run's header. */
export function modelMethodParameters(
  index: Bm25Index,
  options: ModelRetrieveOptions,
  models: { model?: string; embeddingModel?: string },
): Record<string, string | number> {
  const bm25 = { ...DEFAULT_BM25, ...options.bm25 };
  const p: Record<string, string | number> = {
    method: options.method,
    analyzer: describeAnalyzer(index.data.analyzer),
    k1: bm25.k1,
    b: bm25.b,
    k: options.k ?? 1000,
    index: index.data.fingerprint,
    documents: index.documentCount,
  };
  if (needsChat(options.method) && models.model) p.model = models.model;
  if (needsEmbeddings(options.method, options.aggregation) && models.embeddingModel)
    p['embedding-model'] = models.embeddingModel;
  if (options.method === 'query2doc') {
    p['query2doc.mode'] = options.aggregation ?? 'sparse';
    p['query2doc.query-repeats'] = 5;
  }
  if (options.method === 'amd') {
    const aggregation = options.aggregation ?? DEFAULT_AMD.aggregation;
    p['amd.aggregation'] = aggregation;
    p['amd.feedback'] = String(options.feedback ?? DEFAULT_AMD.feedback);
    if (aggregation === 'sparse') p['amd.query-repeats'] = 3;
    if (aggregation === 'dense')
      p['amd.query-weight'] = options.queryWeight ?? DEFAULT_AMD.queryWeight;
    if (aggregation === 'rrf') p['amd.rrf-k'] = options.rrfK ?? DEFAULT_AMD.rrfK;
  }
  if (options.method === 'hybrid') p['hybrid.rrf-k'] = options.rrfK ?? 60;
  if (options.budgetUsd !== undefined) p['budget-usd'] = options.budgetUsd;
  return p;
}

/**
 * Runs an LLM or embedding method over topics. Every call goes through the call store
 * (a rerun sends nothing); every generated text is traced. A topic whose answers stay
 * unusable, or whose calls fail after their retries, fails with the reason and gets no
 * entries; the other topics go on. Once the budget is reached no call is sent: the topics
 * finished so far make the run and the rest are listed as not started.
 */
export async function retrieveWithModels(
  topics: readonly { id: string; text: string }[],
  resources: ModelResources,
  options: ModelRetrieveOptions,
): Promise<ModelRun> {
  const k = options.k ?? 1000;
  if (options.method === 'query2doc' && options.aggregation === 'rrf')
    throw new Error("query2doc searches 'sparse' or 'dense', not 'rrf'");
  const spend = new SpendTracker(options.budgetUsd);
  const deps: CallDeps = { ...resources.deps, beforePaidCall: spend.check, onPaidCall: spend.add };
  const trace: TraceEntry[] = [];
  const failures: ModelRun['failures'] = [];
  const unfinished: string[] = [];
  const results = new Map<string, ScoredDoc[]>();
  let stoppedForBudget = false;

  const context: MethodContext = {
    prompts: resources.prompts,
    deps,
    bm25: new Bm25Searcher(resources.index, { ...DEFAULT_BM25, ...options.bm25 }),
    k,
    trace: (entry) => trace.push(entry),
  };
  if (needsChat(options.method)) {
    if (!resources.chat) throw new Error(`${options.method} needs a chat model (--model)`);
    context.chat = resources.chat;
  }
  if (needsEmbeddings(options.method, options.aggregation)) {
    if (!resources.embeddings)
      throw new Error(`${options.method} needs an embeddings model (--embedding-model)`);
    if (!resources.documents)
      throw new Error(`${options.method} needs the documents' text (--docs) to embed them`);
    const { endpoint, model, batchSize } = resources.embeddings;
    context.embeddings = {
      client: new EmbeddingClient(endpoint, deps, batchSize ? { batchSize } : {}),
      model,
    };
    try {
      context.dense = await buildDenseIndex(context.embeddings, resources.documents);
    } catch (error) {
      if (error instanceof BudgetExceededError)
        return {
          run: { name: options.tag ?? options.method, topics: new Map() },
          parameters: modelMethodParameters(resources.index, options, modelNames(resources)),
          trace,
          failures,
          unfinished: topics.map((t) => t.id),
          stoppedForBudget: true,
          spend,
        };
      throw error;
    }
  }

  const runTopic = async (topic: { id: string; text: string }): Promise<ScoredDoc[]> => {
    switch (options.method) {
      case 'query2doc':
        return query2docTopic(context, topic, options.aggregation === 'dense' ? 'dense' : 'sparse');
      case 'amd':
        return amdTopic(context, topic, {
          aggregation: options.aggregation ?? DEFAULT_AMD.aggregation,
          feedback: options.feedback ?? DEFAULT_AMD.feedback,
          queryWeight: options.queryWeight ?? DEFAULT_AMD.queryWeight,
          rrfK: options.rrfK ?? DEFAULT_AMD.rrfK,
        });
      case 'dense':
        return denseTopic(context, topic);
      case 'hybrid':
        return hybridTopic(context, topic, options.rrfK ?? 60);
    }
  };

  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < topics.length) {
      const topic = topics[next++]!;
      if (stoppedForBudget) {
        unfinished.push(topic.id);
        continue;
      }
      try {
        results.set(topic.id, await runTopic(topic));
      } catch (error) {
        if (error instanceof BudgetExceededError) {
          stoppedForBudget = true;
          unfinished.push(topic.id);
          continue;
        }
        const reason = topicFailure(error);
        if (reason === undefined) throw error;
        failures.push({ topic: topic.id, reason });
        trace.push({ topic: topic.id, method: options.method, step: 'failed', text: reason });
      }
      options.onProgress?.(++done, topics.length, spend);
    }
  };
  const concurrency = Math.max(1, options.concurrency ?? 4);
  await Promise.all(Array.from({ length: Math.min(concurrency, topics.length) }, worker));

  // Topics in input order, whatever order they finished in.
  const out = new Map<string, RunEntry[]>();
  for (const topic of topics) {
    const docs = results.get(topic.id);
    if (docs)
      out.set(
        topic.id,
        docs.map((d, r) => ({ docno: d.docno, rank: r + 1, score: d.score })),
      );
  }
  const order = new Map(topics.map((t, i) => [t.id, i]));
  const byTopic = (a: { topic: string }, b: { topic: string }) =>
    order.get(a.topic)! - order.get(b.topic)!;
  trace.sort(byTopic);
  failures.sort(byTopic);
  unfinished.sort((a, b) => order.get(a)! - order.get(b)!);
  return {
    run: { name: options.tag ?? options.method, topics: out },
    parameters: modelMethodParameters(resources.index, options, modelNames(resources)),
    trace,
    failures,
    unfinished,
    stoppedForBudget,
    spend,
  };
}

/** The dense index of a collection: each document's `title text` embedded (cached). */
async function buildDenseIndex(
  embeddings: { client: EmbeddingClient; model: string },
  documents: readonly { id: string; title?: string; text: string }[],
): Promise<DenseIndex> {
  const texts = documents.map((d) => documentText(d));
  const vectors = await embeddings.client.embed(embeddings.model, texts);
  return new DenseIndex(
    documents.map((d) => d.id),
    vectors,
  );
}

/** The text of a document that is embedded: its title and text. */
export function documentText(doc: { title?: string; text: string }): string {
  return doc.title ? `${doc.title}\n${doc.text}` : doc.text;
}

function modelNames(resources: ModelResources): { model?: string; embeddingModel?: string } {
  const names: { model?: string; embeddingModel?: string } = {};
  if (resources.chat) names.model = resources.chat.model;
  if (resources.embeddings) names.embeddingModel = resources.embeddings.model;
  return names;
}

/** Why a topic failed, for failures that belong to the topic (others are bugs: rethrown). */
function topicFailure(error: unknown): string | undefined {
  if (error instanceof UnusableAnswerError) return error.message;
  if (error instanceof LlmHttpError) return `embeddings or rerank call failed: ${error.message}`;
  if (error instanceof ChatCallError) return `chat call failed: ${error.message}`;
  return undefined;
}
