import {
  ask,
  UnusableAnswerError,
  type AskAnswer,
  type CallDeps,
  type ChatClient,
  type EmbeddingClient,
  type MethodPrompt,
} from '@assay/llm';
import { analyzeQuery, Bm25Searcher, DiskBm25Searcher } from '@assay/retrieval';
import type { DenseSearcher } from './dense-index.js';
import { IndexSearch, type SearchService } from './search-service.js';
import type { TraceEntry } from './trace.js';

/** A turn of the conversation before a conversational topic's query. */
export interface ConversationTurn {
  role: 'user' | 'assistant';
  text: string;
}

/** A topic as methods see it: the query, and for conversational topics their context. */
export interface MethodTopic {
  id: string;
  /** The query (for conversational topics, the current turn's utterance). */
  text: string;
  /** Earlier turns, oldest first (TREC CAsT/iKAT-style topics). */
  previousTurns?: ConversationTurn[];
  /** What the user said about themselves (iKAT's personal text knowledge base). */
  userBackground?: string[];
}

/**
 * The model settings of one step (a prompt id such as `gr-answer`, `binary-filter` or
 * `rankgpt`): a model of its own, a sampling temperature instead of the prompt's, top_p.
 */
export interface StepSettings {
  model?: string;
  temperature?: number;
  topP?: number;
}

/** The embeddings endpoint as methods use it, with E5-style prefixes (empty: none). */
export interface MethodEmbeddings {
  client: EmbeddingClient;
  model: string;
  /** Put before every text embedded on the query side (`query: ` for E5 models). */
  queryPrefix: string;
  /** Put before every document's text (`passage: ` for E5 models). */
  passagePrefix: string;
}

/** A document's text, looked up by docno. */
export interface DocumentText {
  title?: string;
  text: string;
}

/**
 * Reorders candidates by relevance to a query text (a cross-encoder over `/v1/rerank`, an
 * LLM listwise reranker); the documents it is not given keep no place in its answer.
 */
export interface Reranker {
  /** Its name and model, recorded with the run (e.g. `rerank:bge-reranker-v2-m3`). */
  readonly name: string;
  rerank(
    query: string,
    candidates: readonly ScoredDoc[],
    context: MethodContext,
    /** The topic's id, for the trace entries of rerankers that generate text. */
    topic?: string,
  ): Promise<ScoredDoc[]>;
}

/** What a method needs to work on one topic. */
export interface MethodContext {
  /** The chat endpoint and model (LLM methods). */
  chat?: { client: ChatClient; model: string };
  /** Model settings by step (prompt id); `*` applies to every step without its own. */
  steps?: Readonly<Record<string, StepSettings>>;
  /** The embeddings endpoint and model (dense aggregation, dense, hybrid, llmforum). */
  embeddings?: MethodEmbeddings;
  prompts: ReadonlyMap<string, MethodPrompt>;
  deps: CallDeps;
  /**
   * assay's own BM25 index (first stages without a run, generated queries without a search
   * service; held in memory, also query-by-document and term weights: see {@link memoryIndexOf}).
   */
  bm25: OwnIndexSearcher;
  /**
   * Where generated queries are searched: an external service (`--search`), whose hits also
   * bring the documents' texts; absent, the own index (see {@link searchOf}).
   */
  search?: SearchService;
  /** Each topic's candidates from a run (`--first-stage`), instead of BM25 of its query. */
  firstStage?: FirstStage;
  /** The collection's vectors (built before the topics when a method needs them). */
  dense?: DenseSearcher;
  /** Documents' text by docno (given with `--docs`; methods that read passages need it). */
  documents?: ReadonlyMap<string, DocumentText>;
  /** The configured reranker; absent, rerank stages keep the first-stage order. */
  reranker?: Reranker;
  /** Today's date, YYYY-MM-DD, for prompts that name it. */
  today: string;
  /** Documents per topic. */
  k: number;
  /** Where generated texts go. */
  trace: (entry: TraceEntry) => void;
}

/**
 * assay's own BM25 index as methods search it: held in memory, or an on-disk index read a
 * query term at a time (the same hits; no documents' term vectors).
 */
export type OwnIndexSearcher = Bm25Searcher | DiskBm25Searcher;

/** Whether a text has at least one term the own index knows (in memory or on disk). */
export function ownIndexHasTerm(searcher: OwnIndexSearcher, text: string): boolean {
  const query =
    searcher instanceof DiskBm25Searcher
      ? searcher.index.analyzeQuery(text)
      : analyzeQuery(searcher.index, text);
  return query.size > 0;
}

/**
 * The own index held in memory, for what reads documents' term vectors (query-by-document,
 * tf-idf feedback); an on-disk index holds none, so `what` is named in the error.
 */
export function memoryIndexOf(context: MethodContext, what: string): Bm25Searcher {
  if (context.bm25 instanceof Bm25Searcher) return context.bm25;
  throw new Error(
    `${what} reads documents' term vectors, which an on-disk index does not hold: use an index held in memory`,
  );
}

/** The run's search service: the one configured, else the own BM25 index. */
export function searchOf(context: MethodContext): SearchService {
  return context.search ?? new IndexSearch(context.bm25);
}

/** A first-stage run: its name (file or stored run) and its ranked lists by topic. */
export interface FirstStage {
  name: string;
  topics: ReadonlyMap<string, readonly ScoredDoc[]>;
}

/** A topic the first-stage run has no list for: it gets no entries, and is named as missing. */
export class MissingCandidatesError extends Error {
  constructor(
    readonly topic: string,
    run: string,
  ) {
    super(`not in the first-stage run ${run}`);
    this.name = 'MissingCandidatesError';
  }
}

/**
 * The candidates for a topic's own query: the first `k` of its list in the first-stage run
 * when one is given (a topic the run lacks throws {@link MissingCandidatesError}), else
 * BM25 of its text over the own index.
 */
export function topicCandidates(
  context: MethodContext,
  topic: MethodTopic,
  k: number,
): ScoredDoc[] {
  if (!context.firstStage) return context.bm25.search(topic.text, k);
  const list = context.firstStage.topics.get(topic.id);
  if (!list) throw new MissingCandidatesError(topic.id, context.firstStage.name);
  return list.slice(0, k);
}

/** One ranked document. */
export interface ScoredDoc {
  docno: string;
  score: number;
}

/** The prompt with this id, or an error naming the folder's missing file. */
export function promptOf(context: MethodContext, id: string): MethodPrompt {
  const prompt = context.prompts.get(id);
  if (!prompt) throw new Error(`no method prompt '${id}' (methods/${id}.md)`);
  return prompt;
}

/** The chat endpoint, or an error saying the method needs a model. */
export function chatOf(context: MethodContext): { client: ChatClient; model: string } {
  if (!context.chat) throw new Error('this method needs a chat model (--model)');
  return context.chat;
}

/**
 * The chat endpoint with step `id`'s model, temperature and top_p: the step's own settings,
 * else those given for every step (`*`), else the run's model and the prompt's temperature.
 */
export function chatFor(
  context: MethodContext,
  id: string,
): { client: ChatClient; model: string; temperature?: number; topP?: number } {
  const chat = chatOf(context);
  const all = context.steps?.['*'];
  const own = context.steps?.[id];
  const out: { client: ChatClient; model: string; temperature?: number; topP?: number } = {
    client: chat.client,
    model: own?.model ?? all?.model ?? chat.model,
  };
  const temperature = own?.temperature ?? all?.temperature;
  const topP = own?.topP ?? all?.topP;
  if (temperature !== undefined) out.temperature = temperature;
  if (topP !== undefined) out.topP = topP;
  return out;
}

/**
 * Asks prompt `id` with its step's model settings (see {@link chatFor}); `validate` checks
 * a usable answer further. Every method's calls go through here.
 */
export function askStep(
  context: MethodContext,
  id: string,
  values: Record<string, string>,
  validate?: (json: unknown) => string | undefined,
): Promise<AskAnswer> {
  const { client, ...settings } = chatFor(context, id);
  return ask(
    client,
    promptOf(context, id),
    values,
    { ...settings, ...(validate ? { validate } : {}) },
    context.deps,
  );
}

/**
 * {@link askStep}, or, when the answer stays unusable, undefined with the fallback traced
 * as `query-fallback` (its text, and the reason with `note` after it): for the steps a
 * topic can do without (a rewrite falls back to the raw request).
 */
export async function askOrFallback(
  context: MethodContext,
  base: { topic: string; method: string },
  id: string,
  values: Record<string, string>,
  validate: ((json: unknown) => string | undefined) | undefined,
  fallback: { text: string; note?: string },
): Promise<AskAnswer | undefined> {
  try {
    return await askStep(context, id, values, validate);
  } catch (error) {
    if (!(error instanceof UnusableAnswerError)) throw error;
    context.trace({
      ...base,
      step: 'query-fallback',
      prompt: id,
      text: fallback.text,
      reason: fallback.note ? `${error.message}: ${fallback.note}` : error.message,
    });
    return undefined;
  }
}

/** Vectors of texts on the query side (with the query prefix). */
export function embedQueries(
  embeddings: MethodEmbeddings,
  texts: readonly string[],
): Promise<Float32Array[]> {
  return embeddings.client.embed(
    embeddings.model,
    texts.map((t) => embeddings.queryPrefix + t),
  );
}

/** Whether a text has at least one term the collection's index knows. */
export function hasCollectionTerm(context: MethodContext, text: string): boolean {
  return ownIndexHasTerm(context.bm25, text);
}

/**
 * The query a generated text makes, or the raw request when the text has no term the
 * collection knows (an answer such as `{"oops":`): then the fallback is traced as
 * `query-fallback`, so no topic goes without a search because of an unusable rewrite.
 * `hasTerm` tells a usable query (default: the own index knows a term of it; queries the
 * search service takes ask the service). `fallback` names the prompt that wrote the text
 * and what the raw request is used for instead (default: searched).
 */
export function usableQuery(
  context: MethodContext,
  base: { topic: string; method: string; subQuestion?: number },
  generated: string,
  raw: string,
  what: string,
  hasTerm: (text: string) => boolean = (text) => hasCollectionTerm(context, text),
  fallback: { prompt?: string; note?: string } = {},
): string {
  if (hasTerm(generated)) return generated;
  context.trace({
    ...base,
    step: 'query-fallback',
    ...(fallback.prompt ? { prompt: fallback.prompt } : {}),
    text: raw,
    reason: `the ${what} ${JSON.stringify(generated.slice(0, 200))} has no term of the collection: ${fallback.note ?? 'searched the raw request'}`,
  });
  return raw;
}

/**
 * The generated queries that have a term of the collection (`hasTerm`, as for
 * {@link usableQuery}); each one without is traced as `dropped-query` and not searched, so
 * a text such as `{"oops":` never reaches the search service or a step after it.
 */
export function usableQueries(
  context: MethodContext,
  base: { topic: string; method: string; subQuestion?: number },
  queries: readonly string[],
  prompt: string,
  hasTerm: (text: string) => boolean,
): string[] {
  const kept: string[] = [];
  for (const q of queries)
    if (hasTerm(q)) kept.push(q);
    else
      context.trace({
        ...base,
        step: 'dropped-query',
        prompt,
        text: q,
        reason: 'no term of the collection',
      });
  return kept;
}

/** The embeddings endpoint and the collection's vectors, or an error saying what is missing. */
export function denseOf(context: MethodContext): MethodEmbeddings & { index: DenseSearcher } {
  if (!context.embeddings || !context.dense)
    throw new Error('this method needs an embeddings model (--embedding-model)');
  return { ...context.embeddings, index: context.dense };
}

/**
 * The text of a document (from the documents given, else from the search service's hits),
 * or an error naming the docno (methods that read passages).
 */
export function documentOf(context: MethodContext, docno: string): DocumentText {
  const doc = context.documents?.get(docno) ?? context.search?.textOf?.(docno);
  if (doc) return doc;
  if (!context.documents && !context.search?.textOf)
    throw new Error("this method reads the documents' text (--docs)");
  throw new Error(
    context.search?.textOf
      ? `document ${docno} has no text: neither the documents given nor the search service's hits hold it`
      : `document ${docno} is in the index but not in the documents given`,
  );
}
