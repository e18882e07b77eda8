import { staticMoveToFrontOrderSteps } from './move-to-front.js';
import { compareDocno } from './ranking.js';
import { checkInteger, labelledIn, selectRuns, selectTopics, topRanked } from './select.js';
import { ITEMS_PER_STEP, runSteps, sortSteps } from './steps.js';
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
 * {@link buildDepthPool} one step at a time: the generator yields after each run of each
 * topic and every few thousand items while a topic's documents are ordered and topics
 * interleaved, and returns the pool, so that a caller serving others meanwhile (a server)
 * can pause between steps (a topic of a hundred runs is no longer one step). Same pool,
 * same errors.
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
  for (const topic of topics)
    lists.push(
      yield* poolTopicSteps(chosen, topic, {
        depth,
        order,
        rrfK,
        cap,
        exclude,
        negativeGradesJudged,
      }),
    );

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

/** What pooling one topic takes besides the runs and the topic. */
interface TopicPoolOptions {
  depth: number;
  order: PoolOrder;
  rrfK: number;
  cap: number | undefined;
  exclude: readonly Qrels[];
  negativeGradesJudged: boolean;
}

/**
 * One topic's pooled items in its judging order, a step per run gathered and per few
 * thousand documents filtered, ordered and made into items.
 */
function* poolTopicSteps(
  chosen: readonly Run[],
  topic: string,
  options: TopicPoolOptions,
): Generator<void, PoolItem[], void> {
  const { depth, order, rrfK, cap } = options;
  const rankedLists: string[][] = [];
  const gathered = new Map<string, Gathered>();
  for (const run of chosen) {
    rankedLists.push(gatherRun(run, topic, depth, gathered));
    yield;
  }
  const candidates = [...gathered.values()];
  const kept: Gathered[] = [];
  for (let from = 0; from < candidates.length; from += ITEMS_PER_STEP) {
    keepUnlabelled(candidates, from, Math.min(candidates.length, from + ITEMS_PER_STEP), {
      topic,
      options,
      rrfK,
      kept,
    });
    yield;
  }

  let ordered: Gathered[];
  switch (order) {
    case 'best-rank':
      ordered = yield* sortSteps(kept, byBestRank);
      break;
    case 'rrf':
      ordered = yield* sortSteps(kept, byRrf);
      break;
    case 'docno':
      ordered = yield* sortSteps(kept, (a, b) => compareDocno(a.docno, b.docno));
      break;
    case 'move-to-front': {
      const byDocno = new Map(kept.map((g) => [g.docno, g]));
      ordered = [];
      for (const docno of yield* staticMoveToFrontOrderSteps(rankedLists)) {
        const g = byDocno.get(docno);
        if (g !== undefined) ordered.push(g);
      }
      break;
    }
    default:
      throw new RangeError(`unknown pool order ${JSON.stringify(order satisfies never)}`);
  }
  if (cap !== undefined) ordered = ordered.slice(0, cap);

  const items = new Array<PoolItem>(ordered.length);
  for (let from = 0; from < ordered.length; from += ITEMS_PER_STEP) {
    makeItems(topic, ordered, items, from, Math.min(ordered.length, from + ITEMS_PER_STEP));
    yield;
  }
  return items;
}

/** Adds one run's top `depth` documents of `topic` to `gathered`; returns their docnos in rank order. */
function gatherRun(
  run: Run,
  topic: string,
  depth: number,
  gathered: Map<string, Gathered>,
): string[] {
  const docnos = topRanked(run, topic, depth).map((e) => e.docno);
  const name = run.name;
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
  return docnos;
}

/** Of the candidates [from, to), keeps those `exclude` does not label, with their RRF score. */
function keepUnlabelled(
  candidates: readonly Gathered[],
  from: number,
  to: number,
  into: { topic: string; options: TopicPoolOptions; rrfK: number; kept: Gathered[] },
): void {
  const { topic, options, rrfK, kept } = into;
  for (let i = from; i < to; i++) {
    const g = candidates[i]!;
    if (labelledIn(options.exclude, topic, g.docno, options.negativeGradesJudged)) continue;
    g.rrfScore = rrf(g.ranks, rrfK);
    kept.push(g);
  }
}

/** Pool items [from, to) of one topic from its ordered documents. */
function makeItems(
  topic: string,
  ordered: readonly Gathered[],
  items: PoolItem[],
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const g = ordered[i]!;
    items[i] = {
      topic,
      docno: g.docno,
      bestRank: g.bestRank,
      contributingRuns: g.runs,
      ranks: g.ranks,
      rrfScore: g.rrfScore,
      priority: -1,
      topicPriority: i,
    };
  }
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
