import type { ChatClient } from '@assay/llm';
import type { CallDeps, EmbeddingClient, MethodPrompt } from '@assay/llm';
import type { Bm25Searcher } from '@assay/retrieval';
import type { DenseIndex } from './dense-index.js';
import type { TraceEntry } from './trace.js';

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
