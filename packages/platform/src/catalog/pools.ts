import {
  getLabelGrades,
  getRunSummary,
  type Collection,
  type Queryable,
  type Run,
} from '@assay/db';
import {
  compareDocno,
  depthPoolSteps,
  poolStatsSteps,
  type Pool,
  type PoolItem,
  type PoolOrder,
  type PoolParameters,
  type PoolStats,
} from '@assay/pooling';
import type { Qrels, Run as TrecRun } from '@assay/trec';
import { PlatformError } from '../core/errors.js';
import { keepHeldPairs, NOTHING_LEFT_OUT, type LeftOutPairs, type PairKeys } from './held-pairs.js';
import {
  decodeCursor,
  encodeCursor,
  LARGE_PAGE,
  pageLimit,
  type PageOptions,
} from '../core/paging.js';
import { readTrecRun } from './runs.js';
import {
  resolveCollection,
  resolveLabelSet,
  resolveRun,
  type CollectionRef,
} from '../core/resolve.js';
import { inSlices, mapSteps } from '../core/work-slices.js';

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
  /**
   * The pairs of the runs whose topic or document the collection does not hold (no query
   * or no passage to judge): left out of the pool, counted and named.
   */
  leftOut: LeftOutPairs;
}

/** The deepest pool one request may ask for (runs are usually cut at 1000 per topic). */
const MAX_POOL_DEPTH = 1000;

/**
 * The most candidate entries (topics × depth × runs) one pool may look at: the work and the
 * memory of a single request stay bounded however large the stored runs are (a classic TREC
 * pool, 50 topics × depth 100 × 100 runs, is half of it; 1,000 topics × depth 1000 of one
 * run all of it).
 */
const MAX_POOL_CANDIDATES = 1_000_000;

/** The most topics one pool may cover (its per-topic sizes come whole with every page). */
const MAX_POOL_TOPICS = 100_000;

/**
 * A page of the depth-k pool of stored runs of a collection (packages/pooling's
 * buildDepthPool): pairs graded ≥ 0 in `excludeLabelSets` left out, items in judging
 * priority order from the cursor `after` on (at most `limit`, default 1000, at most
 * 10,000), plus the whole pool's size per topic and each run's contribution and unique
 * contribution; `next` is the cursor of the next page (null on the last). Reads only. The
 * pool is computed a slice at a time, so a server keeps answering others meanwhile.
 */
export async function buildCollectionPool(
  db: Queryable,
  input: CollectionPoolSpec & { collection: CollectionRef },
  page: PageOptions = {},
): Promise<CollectionPool & { next: string | null }> {
  const limit = pageLimit(page.limit, LARGE_PAGE);
  const from = page.after === undefined ? 0 : Number(decodeCursor(page.after, ['int'])[0]) + 1;
  if (from < 0)
    throw new PlatformError(
      'invalid_input',
      'after must be the `next` cursor of a previous page of this list',
    );
  const collection = await resolveCollection(db, input.collection);
  const computed = await computePool(db, collection, input, 'held');
  const items = computed.pool.items.slice(from, from + limit);
  const last = items.at(-1);
  return {
    collection: collection.name,
    parameters: computed.parameters,
    topics: computed.pool.topics,
    items: items.map(presentItem),
    stats: computed.stats,
    leftOut: computed.leftOut,
    next:
      last !== undefined && last.priority + 1 < computed.pool.items.length
        ? encodeCursor([last.priority])
        : null,
  };
}

/**
 * Which pairs a pool keeps: `all` of them; those the collection `held` (the pool API and
 * judge jobs: a collection that stores no documents, or no topics, holds every one); only
 * pairs with a stored topic and document (`held-strict`: campaigns, whose items people read).
 */
type PoolKeeps = 'all' | 'held' | 'held-strict';

/**
 * Every (topic, document) of the pool of a resolved collection, in judging priority order:
 * what judge jobs and campaigns made from a pool take; and what the pool left out.
 */
export async function poolPairs(
  db: Queryable,
  collection: Collection,
  spec: CollectionPoolSpec,
  keep: PoolKeeps,
): Promise<{ pairs: Array<{ topicId: string; docId: string }>; leftOut: LeftOutPairs }> {
  const { pool, leftOut } = await computePool(db, collection, spec, keep);
  const pairs = await inSlices(
    mapSteps(pool.items, (item) => ({ topicId: item.topic, docId: item.docno })),
  );
  return { pairs, leftOut };
}

function presentItem(item: PoolItem): CollectionPoolItem {
  return {
    topicId: item.topic,
    docId: item.docno,
    bestRank: item.bestRank,
    runs: item.contributingRuns.map((run, i) => ({ run, rank: item.ranks[i]! })),
    rrfScore: item.rrfScore,
  };
}

/** The pool of a resolved collection with its statistics, checked against the caps. */
async function computePool(
  db: Queryable,
  collection: Collection,
  spec: CollectionPoolSpec,
  keep: PoolKeeps,
): Promise<{
  pool: Pool;
  parameters: CollectionPool['parameters'];
  stats: CollectionPool['stats'];
  leftOut: LeftOutPairs;
}> {
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
  // The stored counts bound the work before a single entry is read.
  const stored: Run[] = [];
  for (const ref of spec.runs) {
    const run = await resolveRun(db, collection, ref);
    if (!stored.some((r) => r.id === run.id)) stored.push(run);
  }
  const topicCount =
    wanted?.length ??
    Math.max(
      ...(await Promise.all(
        stored.map(async (r) => (await getRunSummary(db, r.id))?.topicCount ?? 0),
      )),
    );
  checkPoolSize(topicCount, spec.depth, stored.length, wanted === undefined ? 'at least ' : '');
  const runs: TrecRun[] = [];
  for (const run of stored) runs.push(await readTrecRun(db, run, wanted));
  const excluded: string[] = [];
  const exclude: Qrels[] = [];
  for (const ref of spec.excludeLabelSets ?? []) {
    const set = await resolveLabelSet(db, collection, ref);
    excluded.push(set.name);
    exclude.push(await getLabelGrades(db, set.id, wanted ? { topicIds: wanted } : {}));
  }
  const topics =
    wanted ?? [...new Set(runs.flatMap((r) => [...r.topics.keys()]))].sort(compareDocno);
  checkPoolSize(topics.length, spec.depth, runs.length, '');
  let pool: Pool;
  let stats: PoolStats;
  let leftOut: LeftOutPairs;
  try {
    const whole = await inSlices(
      depthPoolSteps(runs, {
        depth: spec.depth,
        topics,
        order,
        exclude,
        ...(spec.perTopicCap === undefined ? {} : { perTopicCap: spec.perTopicCap }),
      }),
    );
    if (keep === 'all') {
      pool = whole;
      leftOut = NOTHING_LEFT_OUT;
    } else {
      const held = await keepHeldPairs(
        db,
        collection.id,
        whole.items,
        POOL_ITEM_KEYS,
        wanted ? 'asked for' : 'of the runs',
        keep === 'held-strict',
      );
      leftOut = held.leftOut;
      pool = await inSlices(heldPoolSteps(whole, held.kept, held.missingTopics));
    }
    stats = await inSlices(poolStatsSteps(pool, runs));
  } catch (error) {
    // The pool refuses what cannot be ranked (e.g. a document twice in one topic of a run).
    if (error instanceof Error) throw new PlatformError('invalid_input', error.message);
    throw error;
  }
  return {
    pool,
    leftOut,
    parameters: { ...pool.parameters, excludeLabelSets: excluded },
    stats: {
      total: stats.total,
      perTopic: [...stats.perTopic].map(([topicId, items]) => ({ topicId, items })),
      perRun: [...stats.perRun].map(([run, c]) => ({ run, ...c })),
    },
  };
}

/** A pool item's pair: its topic and docno. */
const POOL_ITEM_KEYS: PairKeys<PoolItem> = {
  topic: (item) => item.topic,
  doc: (item) => item.docno,
};

/** Pool items renumbered per step of {@link heldPoolSteps}. */
const ITEMS_PER_STEP = 4096;

/**
 * The pool of the held items only: topics the collection lacks go, the items keep their
 * order with their priorities counted again (a step per few thousand items).
 */
function* heldPoolSteps(
  pool: Pool,
  kept: readonly PoolItem[],
  missingTopics: ReadonlySet<string>,
): Generator<void, Pool, void> {
  if (kept.length === pool.items.length) return pool;
  const perTopic = new Map<string, number>();
  const items = new Array<PoolItem>(kept.length);
  for (let from = 0; from < kept.length; from += ITEMS_PER_STEP) {
    renumber(kept, items, perTopic, from, Math.min(kept.length, from + ITEMS_PER_STEP));
    yield;
  }
  return { ...pool, topics: pool.topics.filter((t) => !missingTopics.has(t)), items };
}

// Hot loops stay out of generator functions, which V8 optimises less well.
function renumber(
  kept: readonly PoolItem[],
  items: PoolItem[],
  perTopic: Map<string, number>,
  from: number,
  to: number,
): void {
  for (let priority = from; priority < to; priority++) {
    const item = kept[priority]!;
    const topicPriority = perTopic.get(item.topic) ?? 0;
    perTopic.set(item.topic, topicPriority + 1);
    items[priority] = { ...item, priority, topicPriority };
  }
}

/** invalid_input naming the figures when a pool is over a cap. */
function checkPoolSize(topics: number, depth: number, runs: number, atLeast: string): void {
  if (topics > MAX_POOL_TOPICS)
    throw new PlatformError(
      'invalid_input',
      `${atLeast}${topics} topics, over the cap of ${MAX_POOL_TOPICS} per pool; pool fewer topics`,
      { cap: 'MAX_POOL_TOPICS', limit: MAX_POOL_TOPICS },
    );
  const candidates = topics * depth * runs;
  if (candidates > MAX_POOL_CANDIDATES)
    throw new PlatformError(
      'invalid_input',
      `${atLeast}${topics} topics × depth ${depth} × ${runs} runs = ${atLeast}${candidates} candidates, over the cap of ${MAX_POOL_CANDIDATES} per pool; pool fewer topics, runs or a smaller depth`,
      { cap: 'MAX_POOL_CANDIDATES', limit: MAX_POOL_CANDIDATES },
    );
}
