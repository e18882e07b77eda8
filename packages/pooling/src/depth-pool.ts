import { staticMoveToFrontOrder } from './move-to-front.js';
import { compareDocno } from './ranking.js';
import {
  checkInteger,
  labelledIn,
  runSteps,
  selectRuns,
  selectTopics,
  topRanked,
} from './select.js';
import type { Pool, PoolItem, PoolOrder, Qrels, Run } from './types.js';

/** Options of `buildDepthPool`. */
export interface DepthPoolOptions {
  /** Each run contributes its top `depth` documents per topic (trec_eval order). */
  depth: number;
  /** Topics to pool, in this order; default: every topic some run retrieved for. */
  topics?: Iterable<string>;
  /** Names of the runs to pool; default: all runs given. */
  runs?: string[];
  /** Keep at most this many documents per topic, after ordering. */
  perTopicCap?: number;
  /** Label sets whose labelled (topic, docno) pairs are left out of the pool. */
  exclude?: Qrels[];
  /**
   * Whether a negative grade in `exclude` counts as labelled (default false: a negative grade
   * means pooled but not judged, as trec_eval reads it, so the pair stays in the pool).
   */
  negativeGradesJudged?: boolean;
  /** Judging order within a topic (default 'best-rank'). */
  order?: PoolOrder;
  /** k of reciprocal rank fusion, Σ 1/(k + rank) (default 60). */
  rrfK?: number;
}

/** Per-document evidence gathered while pooling one topic. */
interface Gathered {
  docno: string;
  runs: string[];
  ranks: number[];
  bestRank: number;
  rrfScore: number;
}

function byBestRank(a: Gathered, b: Gathered): number {
  return a.bestRank - b.bestRank || b.runs.length - a.runs.length || compareDocno(a.docno, b.docno);
}

function byRrf(a: Gathered, b: Gathered): number {
  if (a.rrfScore !== b.rrfScore) return a.rrfScore > b.rrfScore ? -1 : 1;
  return byBestRank(a, b);
}

/** Σ 1/(k + rank), summed over ranks in ascending order so equal rank sets give equal sums. */
function rrf(ranks: readonly number[], k: number): number {
  let sum = 0;
  for (const rank of ranks.slice().sort((x, y) => x - y)) sum += 1 / (k + rank);
  return sum;
}

/**
 * Builds a depth-k pool: the union of every run's top `depth` documents per topic (trec_eval
 * ranking: score descending, ties by docno descending), minus pairs already labelled (grade ≥ 0,
 * or any grade with `negativeGradesJudged`) in `exclude`, ordered per topic by `order`, capped by `perTopicCap`.
 *
 * Orders within a topic:
 * - 'best-rank': smallest rank any run gave, then more runs first, then docno ascending;
 * - 'rrf': rrfScore descending, then as 'best-rank';
 * - 'move-to-front': the static move-to-front order, i.e. the adaptive process when no document
 *   is known relevant: runs take turns offering their next document not yet offered;
 * - 'docno': docno ascending (classic sorted pool, no rank information shown to assessors).
 *
 * `items` interleaves topics round-robin by position: the first document of every topic, then
 * the second of every topic, and so on, so judging any prefix spreads effort evenly over topics.
 */
export function buildDepthPool(runs: readonly Run[], options: DepthPoolOptions): Pool {
  return runSteps(depthPoolSteps(runs, options));
}

/**
 * {@link buildDepthPool} one step at a time: the generator yields after each topic (and
 * every few thousand items while topics are interleaved) and returns the pool, so that a
 * caller serving others meanwhile (a server) can pause between steps. Same pool, same errors.
 */
export function* depthPoolSteps(
  runs: readonly Run[],
  options: DepthPoolOptions,
): Generator<void, Pool, void> {
  const { depth } = options;
  checkInteger('depth', depth, 1);
  const order = options.order ?? 'best-rank';
  const rrfK = options.rrfK ?? 60;
  if (!Number.isFinite(rrfK) || rrfK < 0) throw new RangeError(`rrfK must be ≥ 0, got ${rrfK}`);
  const cap = options.perTopicCap;
  if (cap !== undefined) checkInteger('perTopicCap', cap, 0);
  const exclude = options.exclude ?? [];
  const negativeGradesJudged = options.negativeGradesJudged ?? false;

  const chosen = selectRuns(runs, options.runs);
  const topics = selectTopics(chosen, options.topics);

  const lists: PoolItem[][] = [];
  for (const topic of topics) {
    lists.push(
      poolTopic(chosen, topic, { depth, order, rrfK, cap, exclude, negativeGradesJudged }),
    );
    yield;
  }

  const items = yield* interleaveTopics(lists);
  return {
    parameters: {
      depth,
      order,
      rrfK,
      perTopicCap: cap ?? null,
      runs: chosen.map((run) => run.name),
    },
    topics,
    items,
  };
}

/** One topic's pooled items in its judging order (a step of {@link depthPoolSteps}). */
function poolTopic(
  chosen: readonly Run[],
  topic: string,
  options: {
    depth: number;
    order: PoolOrder;
    rrfK: number;
    cap: number | undefined;
    exclude: readonly Qrels[];
    negativeGradesJudged: boolean;
  },
): PoolItem[] {
  const { depth, order, rrfK, cap, exclude, negativeGradesJudged } = options;
  const rankedLists = chosen.map((run) => topRanked(run, topic, depth).map((e) => e.docno));
  const gathered = new Map<string, Gathered>();
  rankedLists.forEach((docnos, r) => {
    const name = chosen[r]!.name;
    docnos.forEach((docno, i) => {
      const rank = i + 1;
      let g = gathered.get(docno);
      if (g === undefined) {
        g = { docno, runs: [], ranks: [], bestRank: rank, rrfScore: 0 };
        gathered.set(docno, g);
      }
      g.runs.push(name);
      g.ranks.push(rank);
      if (rank < g.bestRank) g.bestRank = rank;
    });
  });
  for (const [docno, g] of gathered) {
    if (labelledIn(exclude, topic, docno, negativeGradesJudged)) gathered.delete(docno);
    else g.rrfScore = rrf(g.ranks, rrfK);
  }

  let ordered: Gathered[];
  switch (order) {
    case 'best-rank':
      ordered = [...gathered.values()].sort(byBestRank);
      break;
    case 'rrf':
      ordered = [...gathered.values()].sort(byRrf);
      break;
    case 'docno':
      ordered = [...gathered.values()].sort((a, b) => compareDocno(a.docno, b.docno));
      break;
    case 'move-to-front':
      ordered = staticMoveToFrontOrder(rankedLists).flatMap((docno) => {
        const g = gathered.get(docno);
        return g === undefined ? [] : [g];
      });
      break;
    default:
      throw new RangeError(`unknown pool order ${JSON.stringify(order satisfies never)}`);
  }
  if (cap !== undefined) ordered = ordered.slice(0, cap);

  return ordered.map((g, i) => ({
    topic,
    docno: g.docno,
    bestRank: g.bestRank,
    contributingRuns: g.runs,
    ranks: g.ranks,
    rrfScore: g.rrfScore,
    priority: -1,
    topicPriority: i,
  }));
}

/** Round-robin by position over per-topic lists; sets each item's global `priority`. */
function* interleaveTopics(lists: readonly PoolItem[][]): Generator<void, PoolItem[], void> {
  const items: PoolItem[] = [];
  const longest = lists.reduce((max, list) => Math.max(max, list.length), 0);
  for (let position = 0; position < longest; position += 16) {
    interleavePositions(lists, position, Math.min(longest, position + 16), items);
    yield;
  }
  return items;
}

/** Appends the items at positions [from, to) of every list, position by position. */
function interleavePositions(
  lists: readonly PoolItem[][],
  from: number,
  to: number,
  items: PoolItem[],
): void {
  for (let position = from; position < to; position++) {
    for (const list of lists) {
      const item = list[position];
      if (item === undefined) continue;
      item.priority = items.length;
      items.push(item);
    }
  }
}

/** Each pooled topic's items in its own judging order (topics in pool order, empty ones too). */
export function poolByTopic(pool: Pool): Map<string, PoolItem[]> {
  const byTopic = new Map<string, PoolItem[]>(pool.topics.map((topic) => [topic, []]));
  for (const item of pool.items) {
    let list = byTopic.get(item.topic);
    if (list === undefined) {
      list = [];
      byTopic.set(item.topic, list);
    }
    list.push(item);
  }
  for (const list of byTopic.values()) list.sort((a, b) => a.topicPriority - b.topicPriority);
  return byTopic;
}
