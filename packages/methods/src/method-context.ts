import type { CallDeps, ChatClient, EmbeddingClient, MethodPrompt } from '@assay/llm';
import type { Bm25Searcher } from '@assay/retrieval';
import type { DenseIndex } from './dense-index.js';
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
  /** The embeddings endpoint and model (dense aggregation, dense, hybrid). */
  embeddings?: { client: EmbeddingClient; model: string };
  prompts: ReadonlyMap<string, MethodPrompt>;
  deps: CallDeps;
  bm25: Bm25Searcher;
  /** The collection's vectors (built before the topics when a method needs them). */
  dense?: DenseIndex;
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

/** The embeddings endpoint and the collection's vectors, or an error saying what is missing. */
export function denseOf(context: MethodContext): {
  client: EmbeddingClient;
  model: string;
  index: DenseIndex;
} {
  if (!context.embeddings || !context.dense)
    throw new Error('this method needs an embeddings model (--embedding-model)');
  return { ...context.embeddings, index: context.dense };
}

/** The text of a document, or an error naming the docno (methods that read passages). */
export function documentOf(context: MethodContext, docno: string): DocumentText {
  if (!context.documents) throw new Error("this method reads the documents' text (--docs)");
  const doc = context.documents.get(docno);
  if (!doc) throw new Error(`document ${docno} is in the index but not in the documents given`);
  return doc;
}
