import type { Qrels, Run, RunEntry } from '@assay/trec';

export type { Qrels, Run, RunEntry };

/** How the documents of each topic are ordered for judging. */
export type PoolOrder = 'best-rank' | 'rrf' | 'move-to-front' | 'docno';

/** One (topic, document) pair to judge, with the evidence that put it in the pool. */
export interface PoolItem {
  topic: string;
  docno: string;
  /** Smallest trec_eval rank (1-based) any contributing run gave the document. */
  bestRank: number;
  /** Names of the runs that retrieved the document within the depth, in run order. */
  contributingRuns: string[];
  /** trec_eval rank of the document in each contributing run (parallel to contributingRuns). */
  ranks: number[];
  /** Σ 1/(rrfK + rank) over the contributing runs (ranks within the depth only). */
  rrfScore: number;
  /** 0-based position in the pool's global judging order (`Pool.items`). */
  priority: number;
  /** 0-based position within its topic's judging order. */
  topicPriority: number;
}

/** The settings a pool was built with, kept with it so it can be reproduced and reported. */
export interface PoolParameters {
  depth: number;
  order: PoolOrder;
  /** The k of reciprocal rank fusion (also used for rrfScore when order is not 'rrf'). */
  rrfK: number;
  /** Per-topic cap applied after ordering; null when uncapped. */
  perTopicCap: number | null;
  /** Names of the runs that were pooled, in the order given. */
  runs: string[];
}

/**
 * A judging pool. Plain data: `JSON.stringify(pool)` is lossless and `poolFromJson` reads it back.
 * `items` is the global judging order (topics interleaved round-robin, see `buildDepthPool`).
 */
export interface Pool {
  parameters: PoolParameters;
  /** Pooled topics, in pool order (including topics whose every document was excluded). */
  topics: string[];
  items: PoolItem[];
}
