import type { Bm25Params } from '@assay/retrieval';
import type { ModelMethod } from './methods-registry.js';
import type { SpendTracker } from './spend-tracker.js';

/** Options of `retrieveWithModels`: the method, its settings, and the run's own options. */
export interface ModelRetrieveOptions {
  method: ModelMethod;
  /**
   * The method's settings by key as given (its definition's schema; `assay retrieve` flags
   * and the API's `settings`), not yet parsed; absent ones take their defaults.
   */
  settings?: Readonly<Record<string, unknown>>;
  /** Documents per topic (default 1000). */
  k?: number;
  bm25?: Partial<Bm25Params>;
  /** Stop sending calls once this many USD were spent (priced models only). */
  budgetUsd?: number;
  /** Topics worked on at once (default 4). */
  concurrency?: number;
  tag?: string;
  onProgress?: (done: number, total: number, spend: SpendTracker) => void;
}
