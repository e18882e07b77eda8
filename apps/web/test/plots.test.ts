import { describe, expect, it } from 'vitest';
import type { PairTest } from '../src/lib/api.js';
import {
  formatP,
  intervalDomain,
  linear,
  pValueMatrix,
  runTags,
  ticks,
  topicDifferences,
  winsLosses,
} from '../src/lib/plots.js';

describe('leaderboard plots', () => {
  it('puts about five round ticks on an axis', () => {
    // Span 1: a fifth is 0.2, a round step.
    expect(ticks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    // Span 0.6: a fifth is 0.12, rounded up to 0.2; the first tick is the first multiple above -0.3.
    expect(ticks(-0.3, 0.3)).toEqual([-0.2, 0, 0.2]);
    // Span 0.03: a fifth is 0.006, rounded up to 0.01.
    expect(ticks(0.41, 0.44)).toEqual([0.41, 0.42, 0.43, 0.44]);
  });

  it('pads the interval axis by 4% either side, and widens a single point by 0.05', () => {
    // [0.2, 0.6], padded by 0.04 × 0.4 = 0.016.
    const [lo, hi] = intervalDomain([
      [0.2, 0.4],
      [0.3, 0.6],
    ]);
    expect(lo).toBeCloseTo(0.184, 12);
    expect(hi).toBeCloseTo(0.616, 12);
    // [0.45, 0.55], padded by 0.04 × 0.1 = 0.004.
    const [plo, phi] = intervalDomain([[0.5, 0.5]]);
    expect(plo).toBeCloseTo(0.446, 12);
    expect(phi).toBeCloseTo(0.554, 12);
  });

  it('maps a domain onto a range linearly, reversed ranges too', () => {
    expect(linear(0, 1, 200, 696)(0.5)).toBe(448);
    expect(linear(-1, 1, 206, 10)(0)).toBe(108);
    expect(linear(-1, 1, 206, 10)(1)).toBe(10);
  });

  it('sorts per-topic differences largest first, ties by topic id, and counts wins', () => {
    const diffs = topicDifferences(
      ['t1', 't2', 't3', 't0'],
      [0.75, 0.25, 0.5, 0.5],
      [0.25, 0.5, 0.5, 0.5],
    );
    expect(diffs).toEqual([
      { topic: 't1', a: 0.75, b: 0.25, diff: 0.5 },
      { topic: 't0', a: 0.5, b: 0.5, diff: 0 },
      { topic: 't3', a: 0.5, b: 0.5, diff: 0 },
      { topic: 't2', a: 0.25, b: 0.5, diff: -0.25 },
    ]);
    expect(winsLosses(diffs)).toEqual({ wins: 1, losses: 1, ties: 2 });
  });

  it('lays the tests of one measure out as a run × run matrix, signed from the row run', () => {
    const pairs: PairTest[] = [
      {
        a: 'x',
        b: 'y',
        measure: 'm',
        meanDiff: 0.25,
        statistic: 3,
        p: 0.01,
        pAdjusted: 0.02,
        significant: true,
      },
      {
        a: 'z',
        b: 'x',
        measure: 'm',
        meanDiff: 0.5,
        statistic: 1,
        p: 0.2,
        pAdjusted: 0.4,
        significant: false,
      },
      {
        a: 'y',
        b: 'z',
        measure: 'other',
        meanDiff: 1,
        statistic: null,
        p: 0,
        pAdjusted: 0,
        significant: true,
      },
    ];
    const xy = { diff: 0.25, p: 0.01, pAdjusted: 0.02, significant: true };
    const yx = { diff: -0.25, p: 0.01, pAdjusted: 0.02, significant: true };
    const xz = { diff: -0.5, p: 0.2, pAdjusted: 0.4, significant: false };
    const zx = { diff: 0.5, p: 0.2, pAdjusted: 0.4, significant: false };
    // y against z was tested on another measure only: no cell.
    expect(pValueMatrix(['x', 'y', 'z'], pairs, 'm')).toEqual([
      [null, xy, xz],
      [yx, null, null],
      [zx, null, null],
    ]);
  });

  it('writes p-values as the HTML report does, and tags runs a–z, A–Z, then numbers', () => {
    expect(formatP(0.25)).toBe('0.2500');
    expect(formatP(0)).toBe('0.0000');
    expect(formatP(0.0005)).toBe('5.00e-4');
    expect(formatP(Number.NaN)).toBe('n/a');
    expect(formatP(null)).toBe('n/a');
    const names = Array.from({ length: 53 }, (_, i) => `r${i}`);
    const tags = runTags(names);
    expect([
      tags.get('r0'),
      tags.get('r25'),
      tags.get('r26'),
      tags.get('r51'),
      tags.get('r52'),
    ]).toEqual(['a', 'z', 'A', 'Z', '53']);
  });
});
