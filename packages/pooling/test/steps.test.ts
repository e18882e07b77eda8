import { describe, expect, it } from 'vitest';
import { seededRandom } from '@assay/test-support/seeded';
import {
  compareDocno,
  depthPoolSteps,
  poolStats,
  poolStatsSteps,
  rankEntries,
  staticMoveToFrontOrder,
  type PoolOrder,
} from '../src/index.js';
import { sortSteps } from '../src/steps.js';
import type { Run } from '@assay/trec';

// Pools of many runs over few topics (thousands of documents a topic) are built a few
// thousand items or a run per step, and come out as the plain definitions below say.

/** Runs a generator to its end, counting its steps. */
function counted<T>(steps: Generator<void, T, void>): { value: T; steps: number } {
  let n = 0;
  for (;;) {
    const next = steps.next();
    if (next.done) return { value: next.value, steps: n };
    n++;
  }
}

/** `runs` seeded runs over `topics` topics, each retrieving 600 of 20,000 documents, ties included. */
function manyRuns(runs: number, topics: number): Run[] {
  const random = seededRandom(7);
  return Array.from({ length: runs }, (_, r) => ({
    name: `r${r}`,
    topics: new Map(
      Array.from({ length: topics }, (_, t) => {
        const docs = new Set<string>();
        while (docs.size < 600) docs.add(`doc${Math.floor(random() * 20_000)}`);
        return [
          `q${t}`,
          [...docs].map((docno, i) => ({ docno, rank: i + 1, score: Math.floor(random() * 50) })),
        ];
      }),
    ),
  }));
}

describe('pools in steps', () => {
  it('sortSteps sorts as Array.prototype.sort does, equal items in their order', () => {
    const random = seededRandom(3);
    for (const n of [0, 1, 4095, 4096, 4097, 20_000, 33_333]) {
      const items = Array.from({ length: n }, (_, i) => ({ key: Math.floor(random() * 100), i }));
      const compare = (a: { key: number }, b: { key: number }) => a.key - b.key;
      const { value, steps } = counted(sortSteps(items, compare));
      expect(value).toEqual(items.slice().sort(compare));
      expect(items.map((x) => x.i)).toEqual(Array.from({ length: n }, (_, i) => i));
      if (n > 8192) expect(steps).toBeGreaterThan(n / 4096);
    }
  });

  it('of many runs over few topics are the union of the tops, ordered, a run per step', () => {
    const runs = manyRuns(40, 2);
    const depth = 500;
    const tops = (topic: string) =>
      runs.map((run) =>
        rankEntries(run.topics.get(topic)!)
          .slice(0, depth)
          .map((e) => e.docno),
      );
    for (const order of ['best-rank', 'rrf', 'docno', 'move-to-front'] as PoolOrder[]) {
      const { value: pool, steps } = counted(depthPoolSteps(runs, { depth, order }));
      // At least a step per run of each topic and per few thousand documents of it.
      expect(steps).toBeGreaterThan(2 * runs.length);
      for (const topic of ['q0', 'q1']) {
        const lists = tops(topic);
        const evidence = new Map<string, { ranks: number[]; runs: string[] }>();
        lists.forEach((docnos, r) =>
          docnos.forEach((docno, i) => {
            const e = evidence.get(docno) ?? { ranks: [], runs: [] };
            e.ranks.push(i + 1);
            e.runs.push(`r${r}`);
            evidence.set(docno, e);
          }),
        );
        const rrfOf = new Map(
          [...evidence].map(([docno, e]) => [
            docno,
            e.ranks
              .slice()
              .sort((a, b) => a - b)
              .reduce((sum, rank) => sum + 1 / (60 + rank), 0),
          ]),
        );
        const bestOf = new Map([...evidence].map(([docno, e]) => [docno, Math.min(...e.ranks)]));
        const rrf = (docno: string) => rrfOf.get(docno)!;
        const best = (docno: string) => bestOf.get(docno)!;
        const byBest = (a: string, b: string) =>
          best(a) - best(b) ||
          evidence.get(b)!.runs.length - evidence.get(a)!.runs.length ||
          compareDocno(a, b);
        const docnos = [...evidence.keys()];
        expect(docnos.length).toBeGreaterThan(4096);
        const expected =
          order === 'best-rank'
            ? docnos.sort(byBest)
            : order === 'rrf'
              ? docnos.sort((a, b) => rrf(b) - rrf(a) || byBest(a, b))
              : order === 'docno'
                ? docnos.sort(compareDocno)
                : staticMoveToFrontOrder(lists);
        const items = pool.items.filter((item) => item.topic === topic);
        expect(items.map((item) => item.docno)).toEqual(expected);
        expect(items.map((item) => item.topicPriority)).toEqual(expected.map((_, i) => i));
        const first = items[0]!;
        expect(first.contributingRuns).toEqual(evidence.get(first.docno)!.runs);
        expect(first.rrfScore).toBe(rrf(first.docno));
      }
      if (order === 'best-rank') {
        const stepped = counted(poolStatsSteps(pool, runs));
        expect(stepped.value).toEqual(poolStats(pool, runs));
        expect(stepped.steps).toBeGreaterThan(2 * 2 * runs.length);
        let unique = 0;
        for (const topic of ['q0', 'q1']) {
          const lists = tops(topic);
          const counts = new Map<string, number>();
          for (const docno of lists.flat()) counts.set(docno, (counts.get(docno) ?? 0) + 1);
          unique += lists[0]!.filter((docno) => counts.get(docno) === 1).length;
        }
        expect(stepped.value.perRun.get('r0')).toEqual({
          retrieved: 2 * depth,
          contributed: 2 * depth,
          unique,
        });
      }
    }
  });
});
