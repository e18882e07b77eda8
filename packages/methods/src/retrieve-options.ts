import type { Bm25Params, WeightedRocchioOptions } from '@assay/retrieval';
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

  // grill
  /** grill: retrieve → expand rounds at most (default 1). */
  rounds?: number;
  /** grill: stop once a round adds fewer new documents than this (default 0: off). */
  minGain?: number;
  /** grill: documents of the fused list kept and reranked (default 500). */
  rerankBudget?: number;
  /** grill: split the request into sub-questions and fuse their pipelines (default false). */
  decompose?: boolean;
  // Generate-then-retrieve (gr-qr, gr-ad, gr-qd, gr-aqd, gr-aqd-a).
  /** BM25 documents retrieved per query before reranking (default 1000). */
  firstStageK?: number;
  // llmforum
  /** llmforum: weighted Rocchio over the embeddings (true) or tf-idf vectors (default). */
  forumDense?: boolean;
  /** llmforum: weighted Rocchio (depth 50, 5 positives, α = β = γ = 1, 10 terms if sparse). */
  weightedRocchio?: Partial<WeightedRocchioOptions>;
  /** llmforum: regenerations of an answer the control block scores below 0.5 (default 2). */
  maxRegenerations?: number;
  // srsa and its baselines simple-search and react
  /** Documents per search of srsa, simple-search and react (default 5, the paper's). */
  searchK?: number;
  /** srsa: planning rounds at most; react: Thought/Action steps at most (default 5). */
  maxRounds?: number;
  // Rerankers (any method's rerank stage) and the rerank method.
  /** The reranker: a cross-encoder over `/v1/rerank`, or RankGPT over the chat model. */
  reranker?: 'cross-encoder' | 'rankgpt';
  /** Documents the reranker reorders: the rerank method's BM25 top (default 100), each gr-* list's top (default 1000). */
  rerankDepth?: number;
  /** RankGPT's window, step and passage words (default 20, 10, 300). */
  rankgpt?: Partial<RankGptOptions>;
}
