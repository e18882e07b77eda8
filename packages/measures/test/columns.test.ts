// Runs parsed into columns (the fast path of `assay eval`) follow trec_eval's ranking
// rules exactly as runs of entries do; expected values by hand.
import { parseQrelsColumns, parseRunColumns } from '@assay/trec';
import { describe, expect, it } from 'vitest';
import {
  evaluateRun,
  prepareQrels,
  prepareQrelsColumns,
  resolveMeasures,
  type EvaluationOptions,
  type RunEvaluation,
} from '../src/index.js';
import { qrelsOf, runOf } from './helpers.js';

function valueOf(result: RunEvaluation, name: string): number | string {
  return result.summary[result.columns.findIndex((c) => c.name === name)]!;
}

/** Evaluates a run written as `qid docno score` lines, parsed into columns. */
function evaluate(qrels: string, run: string, measures: string[], options: EvaluationOptions = {}) {
  const text = run
    .trim()
    .split('\n')
    .map((line, i) => {
      const [qid, docno, score] = line.trim().split(/\s+/);
      return `${qid} Q0 ${docno} ${i + 1} ${score} tag`;
    })
    .join('\n');
  return evaluateRun(
    prepareQrels(qrelsOf(qrels)),
    parseRunColumns(text),
    resolveMeasures(measures),
    options,
  );
}

describe('runs held as columns', () => {
  it('break score ties by docno descending, in and out of file order', () => {
    expect(valueOf(evaluate('t1 y 1\nt1 x 0', 't1 x 1.0\nt1 y 1.0', ['P.1']), 'P_1')).toBe(1);
    expect(valueOf(evaluate('t1 x 1\nt1 y 0', 't1 x 1.0\nt1 y 1.0', ['P.1']), 'P_1')).toBe(0);
    // Scores out of order: ranking by score is b(3) c(2) a(1) and only c is relevant.
    const r = evaluate('t1 c 1', 't1 a 1\nt1 b 3\nt1 c 2', ['recip_rank', 'relstring']);
    expect(valueOf(r, 'recip_rank')).toBe(1 / 2);
  });

  it('compare docno bytes as strcmp does (UTF-8 above ASCII)', () => {
    // "é" (C3 A9) sorts after "z" (7A) in byte order, so it ranks first on a tie.
    expect(valueOf(evaluate('t1 é 1\nt1 z 0', 't1 z 1\nt1 é 1', ['P.1']), 'P_1')).toBe(1);
  });

  it('apply -M before -J, as trec_eval does', () => {
    const qrels = 't1 c 1\nt1 d 0';
    const run = 't1 u 3\nt1 c 2\nt1 d 1';
    expect(valueOf(evaluate(qrels, run, ['P.1']), 'P_1')).toBe(0);
    expect(valueOf(evaluate(qrels, run, ['P.1'], { judgedOnly: true }), 'P_1')).toBe(1);
    expect(valueOf(evaluate(qrels, run, ['num_ret'], { judgedOnly: true }), 'num_ret')).toBe(2);
    const top2 = evaluate(qrels, run, ['num_ret', 'P.1'], { maxDocs: 1, judgedOnly: true });
    expect(valueOf(top2, 'num_ret')).toBe(0); // u is cut by -M 1, then dropped by -J
  });

  it('score topics the run lacks with -c, and average over every qrels topic', () => {
    const r = evaluate('t1 a 1\nt2 b 1', 't1 a 1', ['map', 'num_q'], { completeTopics: true });
    expect(valueOf(r, 'num_q')).toBe(2);
    expect(valueOf(r, 'map')).toBe(1 / 2);
  });
});

describe('qrels held as columns', () => {
  // Topic t1: relevance by rank 1 0 2 (a, b, c), d (grade 1) not retrieved; t2 not in the run.
  const qrels = prepareQrelsColumns(
    parseQrelsColumns('t1 0 a 1\nt1 0 b 0\nt1 0 c 2\nt1 0 d 1\nt2 0 e 1\n'),
  );
  const measures = resolveMeasures(['map', 'num_rel', 'ndcg_cut.3', 'num_q']);

  it('evaluate runs of entries and of columns alike (values by hand)', () => {
    const entries = runOf('t1 a 3\nt1 b 2\nt1 c 1');
    const columns = parseRunColumns('t1 Q0 a 1 3 r\nt1 Q0 b 2 2 r\nt1 Q0 c 3 1 r');
    for (const run of [entries, columns]) {
      const r = evaluateRun(qrels, run, measures, { completeTopics: true });
      // t1: AP = (1/1 + 2/3) / 3 relevant; t2 (missing): 0. Mean over 2 topics.
      expect(valueOf(r, 'map')).toBeCloseTo((1 + 2 / 3) / 3 / 2, 15);
      expect(valueOf(r, 'num_rel')).toBe(4);
      expect(valueOf(r, 'num_q')).toBe(2);
      // t1 nDCG@3: DCG = 1 + 2/log2(4) = 2; ideal 2, 1, 1: 2 + 1/log2(3) + 1/2.
      expect(valueOf(r, 'ndcg_cut_3')).toBeCloseTo(2 / (2.5 + 1 / Math.log2(3)) / 2, 15);
    }
  });
});
