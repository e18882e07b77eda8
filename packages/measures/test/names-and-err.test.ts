import { describe, expect, it } from 'vitest';
import {
  evaluateRun,
  formatFixed,
  prepareQrels,
  resolveMeasures,
  type RunEvaluation,
} from '../src/index.js';
import { qrelsOf, runOf } from './helpers.js';

function valueOf(result: RunEvaluation, name: string): number | string {
  const col = result.columns.findIndex((c) => c.name === name);
  if (col < 0) throw new Error(`no column ${name}`);
  return result.summary[col]!;
}

function evaluate(qrels: string, run: string, measures: string[]) {
  return evaluateRun(prepareQrels(qrelsOf(qrels)), runOf(run), resolveMeasures(measures));
}

// Relevance by rank 1 0 2 0 1; a fourth relevant document (z) is never retrieved.
const QRELS = `
  t1 a 1
  t1 b 0
  t1 c 2
  t1 d 0
  t1 e 1
  t1 z 1
`;
const RUN = `
  t1 a 5
  t1 b 4
  t1 c 3
  t1 d 2
  t1 e 1
`;

describe('measure names as users type them', () => {
  it('resolves case-insensitive aliases and keeps the typed names, in the order given', () => {
    const typed = ['ndcg@10', 'MAP', 'MRR', 'MRR@1', 'recall@100', 'P_10', 'ndcg_cut_10'];
    expect(resolveMeasures(typed).flatMap((m) => m.names)).toEqual(typed);
  });

  it('aliases compute the measure they stand for (values by hand)', () => {
    const r = evaluate(QRELS, RUN, ['MAP', 'MRR', 'MRR@1', 'recall@100', 'P_10', 'Prec@2']);
    expect(valueOf(r, 'MAP')).toBeCloseTo((1 + 2 / 3 + 3 / 5) / 4, 12);
    expect(valueOf(r, 'MRR')).toBe(1);
    expect(valueOf(r, 'MRR@1')).toBe(1);
    expect(valueOf(r, 'recall@100')).toBe(3 / 4);
    expect(valueOf(r, 'P_10')).toBe(3 / 10);
    expect(valueOf(r, 'Prec@2')).toBe(1 / 2);
  });

  it('leaves trec_eval names to trec_eval rules (output names and order unchanged)', () => {
    expect(resolveMeasures(['ndcg_cut.10', 'map']).flatMap((m) => m.names)).toEqual([
      'map',
      'ndcg_cut_10',
    ]);
  });

  it('suggests the closest known name for a typo', () => {
    expect(() => resolveMeasures(['ndgc@10'])).toThrow("did you mean 'nDCG@10'?");
    expect(() => resolveMeasures(['mapp'])).toThrow("did you mean 'map'?");
    expect(() => resolveMeasures(['ndgc_cut.10'])).toThrow("did you mean 'ndcg_cut.10'?");
    expect(() => resolveMeasures(['Judgd@10'])).toThrow("did you mean 'Judged@10'?");
  });

  it('gives no suggestion when nothing is close', () => {
    expect(() => resolveMeasures(['zzzzzzzz'])).toThrow(/unknown measure \(try one of/);
  });
});

describe('ERR and nERR (gdeval grades 0..4)', () => {
  // Grades by rank 2, 0, 4. Stopping probabilities (2^g - 1) / 16: 3/16, 0, 15/16.
  // ERR@3 = 3/16 + (13/16)(0)/2 + (13/16)(1)(15/16)/3 = 113/256.
  // Ideal ranking 4, 2, 0: ERR@3 = 15/16 + (1/16)(3/16)/2 = 483/512; nERR@3 = 226/483.
  const qrels = `
    t1 a 2
    t1 b 0
    t1 c 4
  `;
  const run = `
    t1 a 3
    t1 b 2
    t1 c 1
  `;
  const r = evaluate(qrels, run, ['ERR@3', 'ERR@2', 'nERR@3', 'nERR@2', 'ERR', 'err@3']);

  it('ERR@k', () => {
    expect(valueOf(r, 'ERR@3')).toBeCloseTo(113 / 256, 15);
    expect(valueOf(r, 'ERR@2')).toBeCloseTo(3 / 16, 15);
    expect(valueOf(r, 'ERR')).toBeCloseTo(113 / 256, 15);
    expect(valueOf(r, 'err@3')).toBeCloseTo(113 / 256, 15);
  });

  it('nERR@k divides by the ideal ranking at the same depth', () => {
    expect(valueOf(r, 'nERR@3')).toBeCloseTo(226 / 483, 15);
    // ERR@2 = 3/16; the ideal's ERR@2 is still 483/512.
    expect(valueOf(r, 'nERR@2')).toBeCloseTo(32 / 161, 15);
  });

  it('counts grades above 4 as 4 and unjudged or negative ones as 0', () => {
    const clamp = evaluate('t1 a 7\nt1 b -2', 't1 x 3\nt1 b 2\nt1 a 1', ['ERR@3', 'nERR@3']);
    // Ranks: x unjudged (0), b negative (0), a grade 7 -> 4: ERR = (15/16) / 3 = 5/16.
    expect(valueOf(clamp, 'ERR@3')).toBeCloseTo(5 / 16, 15);
    // Ideal: a first, ERR = 15/16.
    expect(valueOf(clamp, 'nERR@3')).toBeCloseTo(1 / 3, 15);
  });

  it('rejects rel=, which graded measures do not use', () => {
    expect(() => resolveMeasures(['ERR(rel=2)@10'])).toThrow(/graded/);
  });
});

describe('fixed-point formatting (glibc printf rules)', () => {
  it('rounds a double just above a decimal half up', () => {
    // 0.00005 is stored as 5.00000000000000024e-5, above the half.
    expect(formatFixed(0.00005, 4)).toBe('0.0001');
    expect(formatFixed(1234.5, 4)).toBe('1234.5000');
    expect(formatFixed(0, 4)).toBe('0.0000');
    expect(formatFixed(0.000049999, 4)).toBe('0.0000');
    expect(formatFixed(9.99995, 4)).toBe('10.0000'); // stored as 9.99995000000000011653
    expect(formatFixed(0.12345, 4)).toBe('0.1235'); // stored as 0.123450000000000004174
  });
});
