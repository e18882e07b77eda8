import type { Bm25Params } from '@assay/retrieval';
import type { AmdAggregation } from './amd.js';
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

  // srsa and its baselines simple-search and react
  /** Documents per search of srsa, simple-search and react (default 5, the paper's). */
  searchK?: number;
  /** srsa: planning rounds at most; react: Thought/Action steps at most (default 5). */
  maxRounds?: number;
}
