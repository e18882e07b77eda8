// Runs parsed into columns (the fast path of `assay eval`) follow trec_eval's ranking
// rules exactly as runs of entries do; expected values by hand.
import { parseRunColumns } from '@assay/trec';
import { describe, expect, it } from 'vitest';
import {
  evaluateRun,
  prepareQrels,
  resolveMeasures,
  type EvaluationOptions,
  type RunEvaluation,
} from '../src/index.js';
import { qrelsOf } from './helpers.js';

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
