import { describe, expect, it } from 'vitest';
import { buildDepthPool, judgedAtK, poolStats } from '../src/index.js';
import { runA, runB, runC, runs } from './fixtures.js';
import { parseQrels } from './trec-text.js';

describe('poolStats', () => {
  it('counts pool size, contributions and unique contributions at the pool depth', () => {
    // depth 3 — topic 1: A d1 d3 d2, B d5 d1 d2, C d9 d3 d10; topic 2: A e1 e2, B e3 e2, C e4.
    // Retrieved by one run only: d5 (B), d9 d10 (C), e1 (A), e3 (B), e4 (C).
    const pool = buildDepthPool(runs, { depth: 3 });
    const stats = poolStats(pool, runs);
    expect(stats.total).toBe(10);
    expect([...stats.perTopic]).toEqual([
      ['1', 6],
      ['2', 4],
    ]);
    expect(Object.fromEntries(stats.perRun)).toEqual({
      A: { retrieved: 5, contributed: 5, unique: 1 },
      B: { retrieved: 5, contributed: 5, unique: 2 },
      C: { retrieved: 4, contributed: 4, unique: 3 },
    });
    // Same figures as the pool's own evidence.
    for (const [name, s] of stats.perRun) {
      const mine = pool.items.filter((i) => i.contributingRuns.includes(name));
      expect(mine.length).toBe(s.contributed);
      expect(mine.filter((i) => i.contributingRuns.length === 1).length).toBe(s.unique);
    }
  });

  it('counts only pooled items as contributions, and uniqueness among the runs given', () => {
    const pool = buildDepthPool(runs, { depth: 3, exclude: [parseQrels('1 0 d1 1')] });
    const stats = poolStats(pool, runs);
    expect(stats.perRun.get('A')).toEqual({ retrieved: 5, contributed: 4, unique: 1 });
    expect(stats.perRun.get('B')).toEqual({ retrieved: 5, contributed: 4, unique: 2 });
    // Leaving C out: d3 becomes unique to A.
    const withoutC = poolStats(buildDepthPool(runs, { depth: 3 }), [runA, runB]);
    expect(withoutC.perRun.get('A')).toEqual({ retrieved: 5, contributed: 5, unique: 2 });
    expect(withoutC.perRun.has('C')).toBe(false);
  });
});

describe('judgedAtK', () => {
  const labels = parseQrels(`
1 0 d1 1
1 0 d3 0
1 0 d9 -1
2 0 e2 2
`);

  // Judged@k = 1 − unjudged(top k) / k; a document is judged when it has a grade ≥ 0.
  it('uses trec_eval ranking and takes the unjudged share over k', () => {
    // A topic 1 ranks d1 d3 d2 d4 (the file's rank column would give d1 d2 d3 d4).
    expect(judgedAtK(runA, labels, 2).perTopic.get('1')).toBe(1); // d1 d3 judged
    expect(judgedAtK(runA, labels, 3).perTopic.get('1')).toBeCloseTo(1 - 1 / 3, 15); // d2 not
    // Only 4 retrieved: d2 and d4 unjudged, ranks 5-10 count as judged → 1 − 2/10.
    expect(judgedAtK(runA, labels, 10).perTopic.get('1')).toBeCloseTo(0.8, 15);
    // A topic 2 ranks e1 e2.
    expect(judgedAtK(runA, labels, 1).perTopic.get('2')).toBe(0);
    expect(judgedAtK(runA, labels, 2).perTopic.get('2')).toBe(0.5);
  });

  it('averages over the run’s topics', () => {
    expect(judgedAtK(runA, labels, 2).mean).toBe((1 + 0.5) / 2);
    expect(judgedAtK(runA, labels, 1).mean).toBe((1 + 0) / 2);
    // C: topic 1 d9 (grade -1: not judged) d3 → 1 − 1/2; topic 2 e4 alone, unlabelled → 1 − 1/2.
    expect(judgedAtK(runC, labels, 2).mean).toBe(0.5);
    expect(judgedAtK(runA, labels, 2, { topics: ['2'] }).mean).toBe(0.5);
    // No labels at all: topic 1 retrieves 4, all unjudged → 1 − 4/5 = 0.2; topic 2 retrieves 2,
    // both unjudged → 1 − 2/5 = 0.6; mean (0.2 + 0.6) / 2 = 0.4.
    expect(judgedAtK(runA, new Map(), 5).mean).toBeCloseTo(0.4, 15);
    expect(judgedAtK(runA, labels, 5, { topics: [] }).mean).toBeNaN();
  });

  it('counts negative grades as unjudged unless told otherwise, as trec_eval’s unj does', () => {
    expect(judgedAtK(runC, labels, 2).perTopic.get('1')).toBe(0.5);
    const lenient = judgedAtK(runC, labels, 2, { negativeGradesJudged: true });
    expect(lenient.perTopic.get('1')).toBe(1);
    expect(lenient.mean).toBe(0.75);
  });

  it('counts every top-k document of a topic without labels as unjudged, over k', () => {
    // Labels only for topic 1. B topic 2 ranks e3 e2 (tie at 0.9, docno descending).
    const topic1Only = parseQrels('1 0 d5 0');
    // k = 1: e3 unjudged → 1 − 1/1 = 0.
    expect(judgedAtK(runB, topic1Only, 1).perTopic.get('2')).toBe(0);
    // k = 4: e3 e2 unjudged, ranks 3-4 count as judged → 1 − 2/4 = 0.5.
    expect(judgedAtK(runB, topic1Only, 4).perTopic.get('2')).toBe(0.5);
    // Topic 1 at k = 4 ranks d5 d1 d2 d6: only d5 judged → 1 − 3/4 = 0.25; mean (0.25 + 0.5) / 2.
    const atFour = judgedAtK(runB, topic1Only, 4);
    expect(atFour.perTopic.get('1')).toBe(0.25);
    expect(atFour.mean).toBe(0.375);
  });

  it('rejects a k below 1', () => {
    expect(() => judgedAtK(runB, labels, 0)).toThrow(RangeError);
  });
});
