import { describe, expect, it } from 'vitest';
import { buildDepthPool, poolByTopic, type Pool } from '../src/index.js';
import { runA, runB, runC, runs } from './fixtures.js';
import { parseQrels } from './trec-text.js';

/** The global judging order as `topic/docno` strings. */
const order = (pool: Pool) => pool.items.map((item) => `${item.topic}/${item.docno}`);

describe('buildDepthPool', () => {
  it('depth 1: each run’s trec_eval top document, topics interleaved', () => {
    // Tie-breaking decides it: B's top is d5 (not the file's rank-1 d1), C's is d9 (not d10).
    const pool = buildDepthPool(runs, { depth: 1 });
    expect(pool.topics).toEqual(['1', '2']);
    expect(order(pool)).toEqual(['1/d1', '2/e1', '1/d5', '2/e3', '1/d9', '2/e4']);
    expect(pool.items.map((i) => i.priority)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(pool.items.map((i) => i.topicPriority)).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('depth 2: best rank, then more runs, then docno', () => {
    // topic 1: d1 (A1,B2) d3 (A2,C2) d5 (B1) d9 (C1) → d1 (1, 2 runs), d5, d9 (1, 1 run), d3 (2)
    // topic 2: e1 (A1) e2 (A2,B2) e3 (B1) e4 (C1) → e1, e3, e4, e2
    const pool = buildDepthPool(runs, { depth: 2 });
    expect(order(pool)).toEqual(['1/d1', '2/e1', '1/d5', '2/e3', '1/d9', '2/e4', '1/d3', '2/e2']);
  });

  it('depth 3: run count breaks a best-rank tie, and evidence is recorded', () => {
    // topic 1 adds d2 (A3,B3) and d10 (C3): both best rank 3, d2 has two runs so comes first.
    const pool = buildDepthPool(runs, { depth: 3 });
    expect(order(pool)).toEqual([
      '1/d1',
      '2/e1',
      '1/d5',
      '2/e3',
      '1/d9',
      '2/e4',
      '1/d3',
      '2/e2',
      '1/d2',
      '1/d10',
    ]);
    const d2 = pool.items.find((i) => i.docno === 'd2')!;
    expect(d2).toMatchObject({ bestRank: 3, contributingRuns: ['A', 'B'], ranks: [3, 3] });
    const d1 = pool.items.find((i) => i.docno === 'd1')!;
    expect(d1).toMatchObject({ bestRank: 1, contributingRuns: ['A', 'B'], ranks: [1, 2] });
    expect(d1.rrfScore).toBeCloseTo(1 / 61 + 1 / 62, 15);
    expect(pool.parameters).toEqual({
      depth: 3,
      order: 'best-rank',
      rrfK: 60,
      perTopicCap: null,
      runs: ['A', 'B', 'C'],
    });
  });

  it('orders by reciprocal rank fusion with k = 60', () => {
    // topic 1 at depth 3: d1 1/61+1/62 ≈ .03252, d3 2/62 ≈ .03226, d2 2/63 ≈ .03175,
    // d5 1/61, d9 1/61 (tie → best rank, runs, docno), d10 1/63.
    const pool = buildDepthPool(runs, { depth: 3, order: 'rrf', topics: ['1'] });
    expect(order(pool)).toEqual(['1/d1', '1/d3', '1/d2', '1/d5', '1/d9', '1/d10']);
    const score = Object.fromEntries(pool.items.map((i) => [i.docno, i.rrfScore]));
    expect(score).toEqual({
      d1: 1 / 61 + 1 / 62,
      d3: 1 / 62 + 1 / 62,
      d2: 1 / 63 + 1 / 63,
      d5: 1 / 61,
      d9: 1 / 61,
      d10: 1 / 63,
    });
  });

  it('uses a configurable RRF k, breaking exact score ties by best rank', () => {
    // k = 0: d1 1 + 1/2 = 1.5; d5 1, d9 1, d3 1/2 + 1/2 = 1 (tie: d5, d9 best rank 1, d3 2);
    // d2 1/3 + 1/3; d10 1/3.
    const pool = buildDepthPool(runs, { depth: 3, order: 'rrf', rrfK: 0, topics: ['1'] });
    expect(order(pool)).toEqual(['1/d1', '1/d5', '1/d9', '1/d3', '1/d2', '1/d10']);
    expect(pool.items[0]!.rrfScore).toBe(1.5);
    expect(pool.parameters.rrfK).toBe(0);
  });

  it('orders by docno (strcmp ascending)', () => {
    const pool = buildDepthPool(runs, { depth: 3, order: 'docno', topics: ['1'] });
    expect(order(pool)).toEqual(['1/d1', '1/d10', '1/d2', '1/d3', '1/d5', '1/d9']);
  });

  it('orders by static move-to-front: runs take turns offering their next unoffered document', () => {
    // A d1, B d5, C d9, A d3, B (d1 taken) d2, C (d3 taken) d10
    const pool = buildDepthPool(runs, { depth: 3, order: 'move-to-front', topics: ['1'] });
    expect(order(pool)).toEqual(['1/d1', '1/d5', '1/d9', '1/d3', '1/d2', '1/d10']);
  });

  it('leaves out pairs labelled in any excluded label set (a negative grade is not a label)', () => {
    const first = parseQrels(`
1 0 d1 0
2 0 e2 -1
`);
    const second = parseQrels('1 0 d9 2');
    // e2 has grade -1 (pooled, not judged): it stays in the pool unless negative grades
    // are asked to count as labels.
    const pool = buildDepthPool(runs, { depth: 2, exclude: [first, second] });
    expect(order(pool)).toEqual(['1/d5', '2/e1', '1/d3', '2/e3', '2/e4', '2/e2']);
    const negativeAsLabel = buildDepthPool(runs, {
      depth: 2,
      exclude: [first, second],
      negativeGradesJudged: true,
    });
    expect(order(negativeAsLabel)).toEqual(['1/d5', '2/e1', '1/d3', '2/e3', '2/e4']);
  });

  it('keeps a topic whose documents were all excluded in the topic list', () => {
    const pool = buildDepthPool(runs, {
      depth: 1,
      exclude: [parseQrels('2 0 e1 1\n2 0 e3 0\n2 0 e4 0')],
    });
    expect(pool.topics).toEqual(['1', '2']);
    expect(order(pool)).toEqual(['1/d1', '1/d5', '1/d9']);
    expect(poolByTopic(pool).get('2')).toEqual([]);
  });

  it('filters topics, keeping the order given and dropping topics no run retrieved', () => {
    expect(order(buildDepthPool(runs, { depth: 2, topics: ['2'] }))).toEqual([
      '2/e1',
      '2/e3',
      '2/e4',
      '2/e2',
    ]);
    const pool = buildDepthPool(runs, { depth: 2, topics: new Set(['99', '2', '1']) });
    expect(pool.topics).toEqual(['2', '1']);
    expect(order(pool)).toEqual(['2/e1', '1/d1', '2/e3', '1/d5', '2/e4', '1/d9', '2/e2', '1/d3']);
  });

  it('pools only the named runs', () => {
    const pool = buildDepthPool(runs, { depth: 2, runs: ['C'] });
    expect(order(pool)).toEqual(['1/d9', '2/e4', '1/d3']);
    expect(pool.parameters.runs).toEqual(['C']);
    expect(() => buildDepthPool(runs, { depth: 2, runs: ['Z'] })).toThrow('no run is named "Z"');
  });

  it('caps each topic after ordering', () => {
    expect(order(buildDepthPool(runs, { depth: 3, perTopicCap: 2 }))).toEqual([
      '1/d1',
      '2/e1',
      '1/d5',
      '2/e3',
    ]);
    const rrf = buildDepthPool(runs, { depth: 3, perTopicCap: 2, order: 'rrf', topics: ['1'] });
    expect(order(rrf)).toEqual(['1/d1', '1/d3']);
    const empty = buildDepthPool(runs, { depth: 3, perTopicCap: 0 });
    expect(empty.items).toEqual([]);
    expect(empty.topics).toEqual(['1', '2']);
  });

  it('exposes per-topic lists in judging order', () => {
    const byTopic = poolByTopic(buildDepthPool(runs, { depth: 2 }));
    expect([...byTopic.keys()]).toEqual(['1', '2']);
    expect(byTopic.get('1')!.map((i) => i.docno)).toEqual(['d1', 'd5', 'd9', 'd3']);
    expect(byTopic.get('2')!.map((i) => i.docno)).toEqual(['e1', 'e3', 'e4', 'e2']);
  });

  it('rejects bad options and runs sharing a name', () => {
    expect(() => buildDepthPool(runs, { depth: 0 })).toThrow(RangeError);
    expect(() => buildDepthPool(runs, { depth: 1.5 })).toThrow(RangeError);
    expect(() => buildDepthPool(runs, { depth: 1, perTopicCap: -1 })).toThrow(RangeError);
    expect(() => buildDepthPool(runs, { depth: 1, rrfK: -1 })).toThrow(RangeError);
    expect(() => buildDepthPool([runA, runB, { ...runC, name: 'A' }], { depth: 1 })).toThrow(
      'two runs are named "A"',
    );
  });
});
