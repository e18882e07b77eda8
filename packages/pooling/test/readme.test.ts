import { expect, it } from 'vitest';
import { buildDepthPool, formatPool, poolStats } from '../src/index.js';
import type { Run } from '../src/types.js';

it('README example', () => {
  const run = (name: string, docnos: string[]): Run => ({
    name,
    topics: new Map([['1', docnos.map((docno, i) => ({ docno, rank: i + 1, score: -i }))]]),
  });
  const runs = [run('bm25', ['d1', 'd2', 'd3']), run('dense', ['d2', 'd4', 'd1'])];

  const pool = buildDepthPool(runs, { depth: 2, order: 'rrf' });
  expect(formatPool(pool)).toBe('1\td2\n1\td1\n1\td4\n');
  expect(poolStats(pool, runs).perRun.get('dense')).toEqual({
    retrieved: 2,
    contributed: 2,
    unique: 1,
  });
});
