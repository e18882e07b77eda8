import {
  type CallDeps,
  ChatCallError,
  type ChatClient,
  EmbeddingClient,
  type HttpEndpoint,
  LlmHttpError,
  type MethodPrompt,
  UnusableAnswerError,
} from '@assay/llm';
import {
  Bm25Searcher,
  DEFAULT_BM25,
  describeAnalyzer,
  documentText,
  type Bm25Index,
} from '@assay/retrieval';
import type { Run, RunEntry } from '@assay/trec';
import { DenseIndex } from './dense-index.js';
import type { GeneratedAnswer } from './method-definition.js';
import type { MethodContext, MethodTopic, Reranker, ScoredDoc } from './method-context.js';
import { methodDefinition } from './methods-registry.js';
import { DEFAULT_RANKGPT } from './rankgpt-reranker.js';
import type { ModelRetrieveOptions } from './retrieve-options.js';
import { BudgetExceededError, SpendTracker } from './spend-tracker.js';
import type { TraceEntry } from './trace.js';

/** Endpoints, prompts and the collection a model method works with. */
export interface ModelResources {
  index: Bm25Index;
  prompts: ReadonlyMap<string, MethodPrompt>;
  /** Where calls are kept; `beforePaidCall`/`onPaidCall` are set by the run. */
  deps: CallDeps;
  chat?: { client: ChatClient; model: string };
  /** The embeddings endpoint and model (the client is made with the run's deps). */
  embeddings?: { endpoint: HttpEndpoint; model: string; batchSize?: number };
  /** Document texts: for the dense index, and for methods that read passages. */
  documents?: readonly { id: string; title?: string; text: string }[];
  /** The reranker of methods with a rerank stage (absent: first-stage order). */
  reranker?: Reranker;
}

/** A run made with models, with everything it generated and what it cost. */
export interface ModelRun {
  run: Run;
  parameters: Record<string, string | number>;
  trace: TraceEntry[];
  /** Topics that failed, with the reason (they have no entries in the run). */
  failures: Array<{ topic: string; reason: string }>;
  /** Answers of methods that answer (srsa, llmforum), in topic order. */
  answers: Array<{ topic: string } & GeneratedAnswer>;
  /** Topics left unfinished (or not started) because the budget was reached. */
  unfinished: string[];
  stoppedForBudget: boolean;
  spend: SpendTracker;
}

/** Whether a method (with its options) needs the collection's embeddings. */
export function needsEmbeddings(options: ModelRetrieveOptions): boolean {
  return methodDefinition(options.method).needsEmbeddings(options);
}

/** Whether a method (with its options) calls a chat model. */
export function needsChat(options: ModelRetrieveOptions): boolean {
  return methodDefinition(options.method).needsChat(options) || options.reranker === 'rankgpt';
}

/** Whether a method (with its options) reads documents' text. */
export function needsDocumentText(options: ModelRetrieveOptions): boolean {
  const definition = methodDefinition(options.method);
  return (
    definition.needsEmbeddings(options) ||
    (definition.needsDocumentText?.(options) ?? false) ||
    options.reranker !== undefined
  );
}

/** The settings a model method uses, defaults filled in, for the run's header. */
export function modelMethodParameters(
  index: Bm25Index,
  options: ModelRetrieveOptions,
  models: { model?: string; embeddingModel?: string; reranker?: string },
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
  if (needsChat(options) && models.model) p.model = models.model;
  if (needsEmbeddings(options) && models.embeddingModel)
    p['embedding-model'] = models.embeddingModel;
  if (models.reranker) p.reranker = models.reranker;
  if (options.reranker === 'rankgpt') {
    const rankgpt = { ...DEFAULT_RANKGPT, ...options.rankgpt };
    p['rankgpt.window'] = rankgpt.window;
    p['rankgpt.step'] = rankgpt.step;
    p['rankgpt.passage-words'] = rankgpt.passageWords;
  }
  methodDefinition(options.method).parameters(options, p);
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
  topics: readonly MethodTopic[],
  resources: ModelResources,
  options: ModelRetrieveOptions,
): Promise<ModelRun> {
  const k = options.k ?? 1000;
  const definition = methodDefinition(options.method);
  definition.check?.(options);
  const spend = new SpendTracker(options.budgetUsd);
  const deps: CallDeps = { ...resources.deps, beforePaidCall: spend.check, onPaidCall: spend.add };
  const trace: TraceEntry[] = [];
  const failures: ModelRun['failures'] = [];
  const unfinished: string[] = [];
  const results = new Map<string, ScoredDoc[]>();
  const answers = new Map<string, GeneratedAnswer>();
  const routes = new Map<string, string>();
  let stoppedForBudget = false;

  const context: MethodContext = {
    prompts: resources.prompts,
    deps,
    bm25: new Bm25Searcher(resources.index, { ...DEFAULT_BM25, ...options.bm25 }),
    k,
    today: options.today ?? new Date().toISOString().slice(0, 10),
    trace: (entry) => trace.push(entry),
  };
  if (resources.documents)
    context.documents = new Map(
      resources.documents.map((d) => [
        d.id,
        d.title ? { title: d.title, text: d.text } : { text: d.text },
      ]),
    );
  if (resources.reranker) context.reranker = resources.reranker;
  if (needsChat(options)) {
    if (!resources.chat) throw new Error(`${options.method} needs a chat model (--model)`);
    context.chat = resources.chat;
  }
  if (needsDocumentText(options) && !resources.documents)
    throw new Error(`${options.method} reads the documents' text (--docs)`);
  if (needsEmbeddings(options)) {
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
          answers: [],
          unfinished: topics.map((t) => t.id),
          stoppedForBudget: true,
          spend,
        };
      throw error;
    }
  }

  const runTopic = async (topic: MethodTopic): Promise<void> => {
    const outcome = await definition.runTopic(context, topic, options);
    if (Array.isArray(outcome)) {
      results.set(topic.id, outcome);
      return;
    }
    results.set(topic.id, outcome.docs);
    if (outcome.answer) answers.set(topic.id, outcome.answer);
    if (outcome.route) routes.set(topic.id, outcome.route);
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
        await runTopic(topic);
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
  const parameters = modelMethodParameters(resources.index, options, modelNames(resources));
  if (routes.size > 0)
    parameters.routes = topics
      .filter((t) => routes.has(t.id))
      .map((t) => `${t.id}:${routes.get(t.id)}`)
      .join(' ');
  return {
    run: { name: options.tag ?? options.method, topics: out },
    parameters,
    trace,
    failures,
    answers: topics
      .filter((t) => answers.has(t.id))
      .map((t) => ({ topic: t.id, ...answers.get(t.id)! })),
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

function modelNames(resources: ModelResources): {
  model?: string;
  embeddingModel?: string;
  reranker?: string;
} {
  const names: { model?: string; embeddingModel?: string; reranker?: string } = {};
  if (resources.reranker) names.reranker = resources.reranker.name;
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
