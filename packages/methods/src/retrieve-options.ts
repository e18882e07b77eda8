import type { Bm25Params } from '@assay/retrieval';
import type { AmdAggregation } from './amd.js';
import type { RankGptOptions } from './rankgpt-reranker.js';
import type { ModelMethod } from './methods-registry.js';
import type { SpendTracker } from './spend-tracker.js';

/** Options of `retrieveWithModels`: the shared ones, then each method's own. */
export interface ModelRetrieveOptions {
  method: ModelMethod;
  /** Documents per topic (default 1000). */
  k?: number;
  bm25?: Partial<Bm25Params>;
  /** Stop sending calls once this many USD were spent (priced models only). */
  budgetUsd?: number;
  /** Topics worked on at once (default 4). */
  concurrency?: number;
  tag?: string;
  /** Today's date (YYYY-MM-DD) for prompts that name it (default: the clock's). */
  today?: string;
  onProgress?: (done: number, total: number, spend: SpendTracker) => void;

  /** query2doc: sparse (default) or dense; amd: sparse (default), dense or rrf. */
  aggregation?: AmdAggregation;
  /** AMD's reflective feedback (default true). */
  feedback?: boolean;
  /** Weight of the query embedding in AMD's dense aggregation (default 0.7). */
  queryWeight?: number;
  /** RRF constant for amd rrf and hybrid (default 60). */
  rrfK?: number;

  // Rerankers (any method's rerank stage) and the rerank method.
  /** The reranker: a cross-encoder over `/v1/rerank`, or RankGPT over the chat model. */
  reranker?: 'cross-encoder' | 'rankgpt';
  /** BM25 documents the rerank method reranks (default 100). */
  rerankDepth?: number;
  /** RankGPT's window, step and passage words (default 20, 10, 300). */
  rankgpt?: Partial<RankGptOptions>;
}
