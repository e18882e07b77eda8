import type { Run } from '@assay/trec';
import { describe, expect, it } from 'vitest';
import { fuseRuns, normalizeScores } from '../src/index.js';

function run(name: string, lines: [string, string, number][]): Run {
  const topics = new Map<string, { docno: string; rank: number; score: number }[]>();
  lines.forEach(([qid, docno, score], i) => {
    const list = topics.get(qid) ?? [];
    list.push({ docno, rank: i + 1, score });
    topics.set(qid, list);
  });
  return { name, topics };
}

// A ranks d1 (3), d2 (2), d3 (1); B ranks d3 (0.9), d4 (0.8). Entries are given out of
// order on purpose: fusion must rank each run as trec_eval does first.
const A = run('A', [
  ['1', 'd3', 1],
  ['1', 'd1', 3],
  ['1', 'd2', 2],
]);
const B = run('B', [
  ['1', 'd4', 0.8],
  ['1', 'd3', 0.9],
  ['2', 'e1', 5],
]);

const fused = (r: Run, qid = '1') => r.topics.get(qid)!.map((e) => [e.docno, e.rank, e.score]);

describe('reciprocal rank fusion', () => {
  it('sums 1/(k + rank) with 1-based ranks', () => {
    const r = fuseRuns([A, B], { method: 'rrf' });
    // d3: 1/63 + 1/61; d1: 1/61; d2 and d4: 1/62 each, tie -> docno descending (d4, d2).
    expect(fused(r)).toEqual([
      ['d3', 1, 1 / 63 + 1 / 61],
      ['d1', 2, 1 / 61],
      ['d4', 3, 1 / 62],
      ['d2', 4, 1 / 62],
    ]);
    expect(fused(r, '2')).toEqual([['e1', 1, 1 / 61]]);
  });

  it('takes k, weights and a depth', () => {
    const r = fuseRuns([A, B], { method: 'rrf', k: 1, weights: [2, 1], depth: 2 });
    // d1: 2/2 = 1; d3: 2/4 + 1/2 = 1; tie -> d3 first; d2: 2/3, d4: 1/3 cut by depth.
    expect(fused(r)).toEqual([
      ['d3', 1, 1],
      ['d1', 2, 1],
    ]);
  });

  it('ranks tied input scores by docno descending before fusing', () => {
    const tied = run('T', [
      ['1', 'a', 1],
      ['1', 'b', 1],
    ]);
    // trec_eval ranks b (rank 1) before a (rank 2).
    expect(fused(fuseRuns([tied], { method: 'rrf' }))).toEqual([
      ['b', 1, 1 / 61],
      ['a', 2, 1 / 62],
    ]);
  });
});

describe('CombSUM and CombMNZ', () => {
  it('sums min-max normalised scores', () => {
    // A: d1 1, d2 0.5, d3 0; B: d3 1, d4 0.
    const r = fuseRuns([A, B], { method: 'combsum', norm: 'minmax' });
    expect(fused(r)).toEqual([
      ['d3', 1, 1],
      ['d1', 2, 1],
      ['d2', 3, 0.5],
      ['d4', 4, 0],
    ]);
  });

  it('multiplies by the number of runs that retrieved the document', () => {
    const r = fuseRuns([A, B], { method: 'combmnz', norm: 'minmax', weights: [1, 3] });
    // d3: (0 + 3·1)·2 = 6; d1: 1·1 = 1; d2: 0.5; d4: 3·0·1 = 0.
    expect(fused(r)).toEqual([
      ['d3', 1, 6],
      ['d1', 2, 1],
      ['d2', 3, 0.5],
      ['d4', 4, 0],
    ]);
  });

  it('normalises by z-score and by sum', () => {
    // 3, 2, 1: mean 2, population sd sqrt(2/3).
    const sd = Math.sqrt(2 / 3);
    const z = normalizeScores([3, 2, 1], 'zscore');
    expect(z[0]).toBeCloseTo(1 / sd, 12);
    expect(z[1]).toBe(0);
    expect(z[2]).toBeCloseTo(-1 / sd, 12);
    expect(normalizeScores([3, 2, 1], 'sum')).toEqual([0.5, 2 / 6, 1 / 6]);
    expect(normalizeScores([4, 4], 'minmax')).toEqual([1, 1]);
    const r = fuseRuns([A, B], { method: 'combsum', norm: 'sum' });
    // d3: 1/6 + 0.9/1.7; d1: 3/6; d4: 0.8/1.7; d2: 2/6.
    const scores = Object.fromEntries(r.topics.get('1')!.map((e) => [e.docno, e.score]));
    expect(scores.d3).toBeCloseTo(1 / 6 + 0.9 / 1.7, 12);
    expect(scores.d4).toBeCloseTo(0.8 / 1.7, 12);
    expect(r.topics.get('1')!.map((e) => e.docno)).toEqual(['d3', 'd1', 'd4', 'd2']);
  });
});

describe('interleaving', () => {
  it("takes each run's next unseen document in turn", () => {
    const C = run('C', [
      ['1', 'd1', 9],
      ['1', 'd5', 8],
    ]);
    // A: d1 d2 d3; B: d3 d4; C: d1 d5. Turns: A d1, B d3, C (d1 taken) d5, A d2, B d4.
    const r = fuseRuns([A, B, C], { method: 'interleave' });
    expect(r.topics.get('1')!.map((e) => e.docno)).toEqual(['d1', 'd3', 'd5', 'd2', 'd4']);
    expect(r.topics.get('1')!.map((e) => e.score)).toEqual([5, 4, 3, 2, 1]);
  });
});

describe('bad input', () => {
  it('needs one weight per run', () => {
    expect(() => fuseRuns([A, B], { method: 'rrf', weights: [1] })).toThrow(/1 weights for 2 runs/);
  });
});
