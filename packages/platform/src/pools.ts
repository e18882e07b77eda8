import { getLabelGrades, type Collection, type Queryable } from '@assay/db';
import {
  buildDepthPool,
  compareDocno,
  poolStats,
  type Pool,
  type PoolOrder,
  type PoolParameters,
} from '@assay/pooling';
import type { Qrels, Run as TrecRun } from '@assay/trec';
import { PlatformError } from './errors.js';
import { readTrecRun } from './runs.js';
import { resolveCollection, resolveLabelSet, resolveRun, type CollectionRef } from './resolve.js';

/** The pool orders a collection pool can use. */
export const POOL_ORDERS: readonly PoolOrder[] = ['best-rank', 'rrf', 'move-to-front', 'docno'];

/** How to pool stored runs: depth-k over some runs, optionally some topics only. */
export interface CollectionPoolSpec {
  /** Stored runs of the collection, by name or id. */
  runs: Array<string | number>;
  /** Each run contributes its top `depth` documents per topic (trec_eval order). */
  depth: number;
  /** Only these topics, in this order (default: every topic a run retrieved for, byte order). */
  topics?: string[];
  /** Judging order within a topic (default best-rank). */
  order?: PoolOrder;
  /** Keep at most this many documents per topic. */
  perTopicCap?: number;
  /** Label sets whose pairs graded ≥ 0 are left out (already judged). */
  excludeLabelSets?: Array<string | number>;
}

/** One pooled (topic, document) with the evidence that put it in the pool. */
export interface CollectionPoolItem {
  topicId: string;
  docId: string;
  /** Smallest rank any pooled run gave the document. */
  bestRank: number;
  /** Runs that retrieved it within the depth, with their ranks. */
  runs: Array<{ run: string; rank: number }>;
  rrfScore: number;
}

/** A pool of a collection's stored runs, in judging priority order, with its statistics. */
export interface CollectionPool {
  collection: string;
  parameters: PoolParameters & { excludeLabelSets: string[] };
  /** Pooled topics in pool order. */
  topics: string[];
  /** Items in judging priority order (topics interleaved round-robin). */
  items: CollectionPoolItem[];
  stats: {
    total: number;
    perTopic: Array<{ topicId: string; items: number }>;
    /** Each run's top-depth documents, pool items it brought and those no other run did. */
    perRun: Array<{ run: string; retrieved: number; contributed: number; unique: number }>;
  };
}

/** The deepest pool one request may ask for (runs are usually cut at 1000 per topic). */
const MAX_POOL_DEPTH = 1000;

/**
 * The most candidate entries (topics × depth × runs) one pool may look at: the work of a
 * single request stays bounded however large the stored runs are.
 */
const MAX_POOL_CANDIDATES = 5_000_000;

/**
 * The depth-k pool of stored runs of a collection (packages/pooling's buildDepthPool):
 * pairs graded ≥ 0 in `excludeLabelSets` left out, items in judging priority order, plus
 * pool size per topic and each run's contribution and unique contribution. Reads only.
 */
export async function buildCollectionPool(
  db: Queryable,
  input: CollectionPoolSpec & { collection: CollectionRef },
): Promise<CollectionPool> {
  const collection = await resolveCollection(db, input.collection);
  return poolOf(db, collection, input);
}

/** The pool of a resolved collection (buildCollectionPool and judge jobs share it). */
export async function poolOf(
  db: Queryable,
  collection: Collection,
  spec: CollectionPoolSpec,
): Promise<CollectionPool> {
  if (!Number.isInteger(spec.depth) || spec.depth < 1)
    throw new PlatformError('invalid_input', `depth must be an integer ≥ 1, not ${spec.depth}`);
  if (spec.depth > MAX_POOL_DEPTH)
    throw new PlatformError(
      'invalid_input',
      `depth ${spec.depth} is over the cap of ${MAX_POOL_DEPTH} documents per run and topic`,
      { cap: 'MAX_POOL_DEPTH', limit: MAX_POOL_DEPTH },
    );
  if (
    spec.perTopicCap !== undefined &&
    (!Number.isInteger(spec.perTopicCap) || spec.perTopicCap < 1)
  )
    throw new PlatformError(
      'invalid_input',
      `perTopicCap must be an integer ≥ 1, not ${spec.perTopicCap}`,
    );
  const order = spec.order ?? 'best-rank';
  if (!POOL_ORDERS.includes(order))
    throw new PlatformError(
      'invalid_input',
      `order must be one of ${POOL_ORDERS.join(', ')}, not "${String(order)}"`,
    );
  if (spec.runs.length === 0) throw new PlatformError('invalid_input', 'a pool needs runs');
  const wanted = spec.topics && [...new Set(spec.topics)];
  const runs: TrecRun[] = [];
  const seen = new Set<number>();
  for (const ref of spec.runs) {
    const stored = await resolveRun(db, collection, ref);
    if (seen.has(stored.id)) continue;
    seen.add(stored.id);
    runs.push(await readTrecRun(db, stored, wanted));
  }
  const excluded: string[] = [];
  const exclude: Qrels[] = [];
  for (const ref of spec.excludeLabelSets ?? []) {
    const set = await resolveLabelSet(db, collection, ref);
    excluded.push(set.name);
    exclude.push(await getLabelGrades(db, set.id, wanted ? { topicIds: wanted } : {}));
  }
  const topics =
    wanted ?? [...new Set(runs.flatMap((r) => [...r.topics.keys()]))].sort(compareDocno);
  const candidates = topics.length * spec.depth * runs.length;
  if (candidates > MAX_POOL_CANDIDATES)
    throw new PlatformError(
      'invalid_input',
      `${topics.length} topics × depth ${spec.depth} × ${runs.length} runs = ${candidates} candidates, over the cap of ${MAX_POOL_CANDIDATES} per pool; pool fewer topics, runs or a smaller depth`,
      { cap: 'MAX_POOL_CANDIDATES', limit: MAX_POOL_CANDIDATES },
    );
  let pool: Pool;
  try {
    pool = buildDepthPool(runs, {
      depth: spec.depth,
      topics,
      order,
      exclude,
      ...(spec.perTopicCap === undefined ? {} : { perTopicCap: spec.perTopicCap }),
    });
  } catch (error) {
    // The pool refuses what cannot be ranked (e.g. a document twice in one topic of a run).
    if (error instanceof Error) throw new PlatformError('invalid_input', error.message);
    throw error;
  }
  const stats = poolStats(pool, runs);
  return {
    collection: collection.name,
    parameters: { ...pool.parameters, excludeLabelSets: excluded },
    topics: pool.topics,
    items: pool.items.map((item) => ({
      topicId: item.topic,
      docId: item.docno,
      bestRank: item.bestRank,
      runs: item.contributingRuns.map((run, i) => ({ run, rank: item.ranks[i]! })),
      rrfScore: item.rrfScore,
    })),
    stats: {
      total: stats.total,
      perTopic: [...stats.perTopic].map(([topicId, items]) => ({ topicId, items })),
      perRun: [...stats.perRun].map(([run, c]) => ({ run, ...c })),
    },
  };
}
