import { describe, expect, it } from 'vitest';
import {
  MissingTopicError,
  evaluateRun,
  formatFixed,
  prepareQrels,
  resolveMeasures,
  type RunEvaluation,
} from '../src/index.js';
import { qrelsOf, runOf } from './helpers.js';

function valueOf(result: RunEvaluation, name: string, qid = 'all'): number | string {
  const col = result.columns.findIndex((c) => c.name === name);
  if (col < 0) throw new Error(`no column ${name}`);
  if (qid === 'all') return result.summary[col]!;
  return result.topics.find((t) => t.qid === qid)!.values[col]!;
}

function evaluate(qrels: string, run: string, measures: string[], options = {}) {
  return evaluateRun(prepareQrels(qrelsOf(qrels)), runOf(run), resolveMeasures(measures), options);
}

// One topic, five retrieved documents: relevance by rank is 1 0 2 0 1 and a third
// relevant document (grade 1) is never retrieved. All expected values are computed by
// hand in the comments.
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

describe('measures on a hand-computed topic', () => {
  const r = evaluate(QRELS, RUN, [
    'all_trec',
    'nDCG@3',
    'Judged@10',
    'RR@1',
    'P(rel=2)@3',
    'AP(rel=2)',
  ]);

  it('counts', () => {
    expect(valueOf(r, 'num_ret')).toBe(5);
    expect(valueOf(r, 'num_rel')).toBe(4); // a, c, e, z
    expect(valueOf(r, 'num_rel_ret')).toBe(3);
  });

  it('average precision: (1/1 + 2/3 + 3/5) / 4', () => {
    expect(valueOf(r, 'map')).toBeCloseTo((1 + 2 / 3 + 3 / 5) / 4, 12);
  });

  it('precision, recall and R-precision', () => {
    expect(valueOf(r, 'P_5')).toBeCloseTo(3 / 5, 12);
    expect(valueOf(r, 'P_10')).toBeCloseTo(3 / 10, 12); // missing ranks count as non-relevant
    expect(valueOf(r, 'recall_5')).toBeCloseTo(3 / 4, 12);
    expect(valueOf(r, 'Rprec')).toBeCloseTo(2 / 4, 12); // top 4: a, c relevant
    expect(valueOf(r, 'recip_rank')).toBe(1);
  });

  it('nDCG with grades as gains', () => {
    const dcg5 = 1 / Math.log2(2) + 2 / Math.log2(4) + 1 / Math.log2(6);
    // ideal: grades 2, 1, 1, 1 then zeros
    const idcg = 2 / Math.log2(2) + 1 / Math.log2(3) + 1 / Math.log2(4) + 1 / Math.log2(5);
    expect(valueOf(r, 'ndcg_cut_5')).toBeCloseTo(dcg5 / idcg, 12);
    expect(valueOf(r, 'ndcg')).toBeCloseTo(dcg5 / idcg, 12);
    const dcg3 = 1 + 2 / Math.log2(4);
    const idcg3 = 2 + 1 / Math.log2(3) + 1 / Math.log2(4);
    expect(valueOf(r, 'nDCG@3')).toBeCloseTo(dcg3 / idcg3, 12);
  });

  it('bpref: non-relevant judged b, d; R = 4', () => {
    // a: no non-relevant above → 1; c: b above → 1 - 1/min(2,4); e: b,d above → 1 - 2/2
    expect(valueOf(r, 'bpref')).toBeCloseTo((1 + 0.5 + 0) / 4, 12);
  });

  it('ir_measures names with their own relevance level', () => {
    expect(valueOf(r, 'P(rel=2)@3')).toBeCloseTo(1 / 3, 12);
    expect(valueOf(r, 'AP(rel=2)')).toBeCloseTo(1 / 3, 12); // only c (rank 3) counts, R = 1
    expect(valueOf(r, 'RR@1')).toBe(1);
    expect(valueOf(r, 'Judged@10')).toBe(1); // all five judged; ranks 6-10 are empty
    expect(valueOf(evaluate('t1 a 1', 't1 a 2\nt1 u 1', ['Judged@2']), 'Judged@2')).toBe(0.5);
  });

  it('relstring shows grades by rank', () => {
    expect(valueOf(r, 'relstring', 't1')).toBe('10201');
  });
});

describe('trec_eval ranking rules', () => {
  it('ranks by score and breaks ties by docno descending, ignoring the rank column', () => {
    // x and y tie; trec_eval puts y (larger docno) first, so P@1 = 1 only if y is relevant.
    const qrels = 't1 y 1\nt1 x 0';
    const run = 't1 x 1.0\nt1 y 1.0';
    expect(valueOf(evaluate(qrels, run, ['P.1']), 'P_1')).toBe(1);
    expect(valueOf(evaluate('t1 x 1\nt1 y 0', run, ['P.1']), 'P_1')).toBe(0);
  });

  it('a topic with no relevant documents scores 0, not NaN', () => {
    const r = evaluate('t1 a 0\nt1 b 0', 't1 a 2\nt1 b 1', [
      'map',
      'ndcg',
      'P.5',
      'recall.5',
      'bpref',
      'Rprec',
    ]);
    for (const name of ['map', 'ndcg', 'P_5', 'recall_5', 'bpref', 'Rprec'])
      expect(valueOf(r, name)).toBe(0);
  });

  it('-M keeps only the top documents', () => {
    // relevance by rank 0 0 1: with -M2 nothing relevant is retrieved
    const r = evaluate('t1 a 0\nt1 b 0\nt1 c 1', 't1 a 3\nt1 b 2\nt1 c 1', ['num_ret', 'map'], {
      maxDocs: 2,
    });
    expect(valueOf(r, 'num_ret')).toBe(2);
    expect(valueOf(r, 'map')).toBe(0);
  });

  it('-J drops unjudged documents before ranking', () => {
    // u is unjudged at rank 1; judged-only, c (relevant) moves to rank 1
    const qrels = 't1 c 1\nt1 d 0';
    const run = 't1 u 3\nt1 c 2\nt1 d 1';
    expect(valueOf(evaluate(qrels, run, ['P.1']), 'P_1')).toBe(0);
    expect(valueOf(evaluate(qrels, run, ['P.1', 'num_ret'], { judgedOnly: true }), 'P_1')).toBe(1);
    expect(valueOf(evaluate(qrels, run, ['num_ret'], { judgedOnly: true }), 'num_ret')).toBe(2);
  });

  it('-l raises the relevance threshold', () => {
    const r = evaluate('t1 a 1\nt1 b 2', 't1 a 2\nt1 b 1', ['P.1', 'num_rel'], {
      relevanceLevel: 2,
    });
    expect(valueOf(r, 'P_1')).toBe(0);
    expect(valueOf(r, 'num_rel')).toBe(1);
  });
});

describe('topics the run does not cover', () => {
  const qrels = 't1 a 1\nt2 b 1';
  const run = 't1 a 1\nt3 z 1'; // t2 missing; t3 has no judgments and is ignored

  it('without -c: an error naming the topic (trec_eval 10.0 stops too)', () => {
    expect(() => evaluate(qrels, run, ['map'])).toThrow(MissingTopicError);
    expect(() => evaluate(qrels, run, ['map'])).toThrow(/topic t2/);
  });

  it('with -c: the missing topic scores 0 and counts in the mean', () => {
    const r = evaluate(qrels, run, ['num_q', 'map', 'num_ret', 'num_rel'], {
      completeTopics: true,
    });
    expect(valueOf(r, 'num_q')).toBe(2);
    expect(valueOf(r, 'map')).toBe(0.5); // (1 + 0) / 2
    expect(valueOf(r, 'map', 't2')).toBe(0);
    expect(valueOf(r, 'num_ret')).toBe(1); // the stand-in ranking reports no documents
    expect(valueOf(r, 'num_rel')).toBe(2);
    expect(r.topics.map((t) => t.qid)).toEqual(['t1', 't2']);
  });
});

describe('measure names', () => {
  it('expands nicknames in trec_eval order and keeps the first parameters given', () => {
    const names = resolveMeasures(['P.10', 'map', 'P.5']).flatMap((m) => m.names);
    expect(names).toEqual(['map', 'P_10']);
  });

  it('sorts cutoffs and rejects bad ones', () => {
    expect(resolveMeasures(['P.20,5']).flatMap((m) => m.names)).toEqual(['P_5', 'P_20']);
    expect(() => resolveMeasures(['P.0'])).toThrow(/positive/);
    expect(() => resolveMeasures(['P.5,5'])).toThrow(/duplicate/);
    expect(() => resolveMeasures(['nosuch'])).toThrow(/unknown measure/);
    expect(() => resolveMeasures(['ndcg.1'])).toThrow(/name=value/);
  });

  it('accepts ir_measures names', () => {
    const names = resolveMeasures([
      'nDCG@10',
      'P(rel=2)@10',
      'R@100',
      'AP',
      'RR',
      'Judged@10',
      'Success@5',
      'Bpref',
      'infAP',
      'Rprec',
    ]).flatMap((m) => m.names);
    expect(names).toEqual([
      'Rprec',
      'infAP',
      'nDCG@10',
      'P(rel=2)@10',
      'R@100',
      'AP',
      'RR',
      'Judged@10',
      'Success@5',
      'Bpref',
    ]);
    expect(() => resolveMeasures(['P@x'])).toThrow();
    expect(() => resolveMeasures(['Judged'])).toThrow(/cutoff/);
  });
});

describe('printf-compatible formatting', () => {
  it('rounds exact ties to even like glibc', () => {
    expect(formatFixed(0.03125, 4)).toBe('0.0312');
    expect(formatFixed(0.09375, 4)).toBe('0.0938');
    expect(formatFixed(0.15625, 4)).toBe('0.1562');
  });

  it('rounds everything else to nearest', () => {
    expect(formatFixed(0.30000000000000004, 4)).toBe('0.3000');
    expect(formatFixed(2 / 3, 4)).toBe('0.6667');
    expect(formatFixed(0.99996, 4)).toBe('1.0000');
    expect(formatFixed(-143.33333, 4)).toBe('-143.3333');
    expect(formatFixed(0.25, 2)).toBe('0.25');
  });
});
