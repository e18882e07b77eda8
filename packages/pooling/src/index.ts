/** Pool item, pool parameters, pool and order names. */
export type { Pool, PoolItem, PoolOrder, PoolParameters } from './types.js';

/** trec_eval ranking: docno byte order and a ranked copy of a topic (duplicates refused). */
export { compareDocno, rankEntries } from './ranking.js';

/**
 * Depth-k pool with a fair cross-topic judging order, and its per-topic lists; the pool
 * also step by step, for callers that pause between steps.
 */
export {
  buildDepthPool,
  depthPoolSteps,
  poolByTopic,
  type DepthPoolOptions,
} from './depth-pool.js';

/** Adaptive move-to-front judging, its single-topic process and a qrels-backed oracle. */
export {
  MoveToFront,
  TopicMoveToFront,
  judgeFromQrels,
  moveToFrontOrder,
  staticMoveToFrontOrder,
  type MoveToFrontOptions,
  type MoveToFrontRequest,
  type RelevanceOracle,
} from './move-to-front.js';

/** Pool size and per-run contributions; Judged@k of a run against a label set. */
export {
  judgedAtK,
  poolStats,
  poolStatsSteps,
  type JudgedAtK,
  type JudgedAtKOptions,
  type PoolStats,
  type RunContribution,
} from './stats.js';

/** `topic<TAB>docno` pool file, JSON copy and checked JSON reader. */
export { formatPool, poolFromJson, poolToJson } from './serialise.js';
