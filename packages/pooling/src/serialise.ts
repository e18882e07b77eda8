import type { Pool, PoolItem, PoolOrder, PoolParameters } from './types.js';

/** The pool as `topic<TAB>docno` lines in global judging order, each ending in a newline. */
export function formatPool(pool: Pool): string {
  let text = '';
  for (const item of pool.items) text += `${item.topic}\t${item.docno}\n`;
  return text;
}

/** The pool as a fresh plain object, ready for `JSON.stringify`. */
export function poolToJson(pool: Pool): Pool {
  const p = pool.parameters;
  return {
    parameters: {
      depth: p.depth,
      order: p.order,
      rrfK: p.rrfK,
      perTopicCap: p.perTopicCap,
      runs: p.runs.slice(),
    },
    topics: pool.topics.slice(),
    items: pool.items.map((item) => ({
      topic: item.topic,
      docno: item.docno,
      bestRank: item.bestRank,
      contributingRuns: item.contributingRuns.slice(),
      ranks: item.ranks.slice(),
      rrfScore: item.rrfScore,
      priority: item.priority,
      topicPriority: item.topicPriority,
    })),
  };
}

const ORDERS: readonly PoolOrder[] = ['best-rank', 'rrf', 'move-to-front', 'docno'];

function fail(path: string, expected: string): never {
  throw new Error(`pool JSON: ${path} must be ${expected}`);
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'an object');
  return value as Record<string, unknown>;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, 'an array');
  return value;
}

function string(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, 'a string');
  return value;
}

function integer(value: unknown, path: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    fail(path, `an integer ≥ ${min}`);
  }
  return value;
}

function finite(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(path, 'a finite number');
  return value;
}

/** Reads a pool back from parsed JSON, checking its shape and its priority numbering. */
export function poolFromJson(value: unknown): Pool {
  const root = record(value, 'pool');
  const p = record(root.parameters, 'parameters');
  const order = p.order;
  if (!ORDERS.includes(order as PoolOrder)) fail('parameters.order', ORDERS.join(' | '));
  const parameters: PoolParameters = {
    depth: integer(p.depth, 'parameters.depth', 1),
    order: order as PoolOrder,
    rrfK: finite(p.rrfK, 'parameters.rrfK'),
    perTopicCap:
      p.perTopicCap === null ? null : integer(p.perTopicCap, 'parameters.perTopicCap', 0),
    runs: array(p.runs, 'parameters.runs').map((r, i) => string(r, `parameters.runs[${i}]`)),
  };
  const topics = array(root.topics, 'topics').map((t, i) => string(t, `topics[${i}]`));
  const topicSet = new Set(topics);
  const nextInTopic = new Map<string, number>();
  const items = array(root.items, 'items').map((raw, i): PoolItem => {
    const at = `items[${i}]`;
    const o = record(raw, at);
    const topic = string(o.topic, `${at}.topic`);
    if (!topicSet.has(topic)) fail(`${at}.topic`, 'one of topics');
    const contributingRuns = array(o.contributingRuns, `${at}.contributingRuns`).map((r, j) =>
      string(r, `${at}.contributingRuns[${j}]`),
    );
    const ranks = array(o.ranks, `${at}.ranks`).map((r, j) => integer(r, `${at}.ranks[${j}]`, 1));
    if (ranks.length !== contributingRuns.length) {
      fail(`${at}.ranks`, 'as long as contributingRuns');
    }
    if (integer(o.priority, `${at}.priority`, 0) !== i) fail(`${at}.priority`, String(i));
    const expected = nextInTopic.get(topic) ?? 0;
    if (integer(o.topicPriority, `${at}.topicPriority`, 0) !== expected) {
      fail(`${at}.topicPriority`, String(expected));
    }
    nextInTopic.set(topic, expected + 1);
    return {
      topic,
      docno: string(o.docno, `${at}.docno`),
      bestRank: integer(o.bestRank, `${at}.bestRank`, 1),
      contributingRuns,
      ranks,
      rrfScore: finite(o.rrfScore, `${at}.rrfScore`),
      priority: i,
      topicPriority: expected,
    };
  });
  return { parameters, topics, items };
}
