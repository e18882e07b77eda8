import { describe, expect, it } from 'vitest';
import { evaluateRun, prepareQrels, resolveMeasures } from '../src/index.js';
import type { Qrels } from '@assay/trec';
import { runOf } from './helpers.js';

// A topic of 30 judged documents (grades 0–3 and one pooled-unjudged −1) and a run of 25.
let state = 99;
const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const grades = new Map<string, number>();
for (let i = 0; i < 30; i++) grades.set(`d${i}`, i === 7 ? -1 : Math.floor(next() * 4));
const run = runOf(Array.from({ length: 25 }, (_, i) => `t d${(i * 7) % 40} ${100 - i}`).join('\n'));

function topicValue(qrels: Qrels, measure: string): number {
  const r = evaluateRun(prepareQrels(qrels), run, resolveMeasures([measure]), {
    completeTopics: true,
  });
  return r.topics[0]!.values[0] as number;
}

describe('measures linear in the labels', () => {
  it('flags P, SetP, dcg and Judged@k, and not nDCG, AP or RBP', () => {
    const flagged = (spec: string) =>
      resolveMeasures([spec])[0]!.definition.linearInLabels === true;
    for (const spec of ['P@10', 'P.5', 'P(rel=2)@5', 'SetP', 'dcg', 'Judged@10'])
      expect(flagged(spec), spec).toBe(true);
    for (const spec of ['nDCG@10', 'AP', 'RR', 'RBP', 'Success@5', 'R@100', 'Compat'])
      expect(flagged(spec), spec).toBe(false);
  });

  it('their value is the sum of each judged document alone', () => {
    for (const spec of ['P@10', 'P(rel=2)@5', 'SetP', 'dcg', 'Judged@10']) {
      const whole = topicValue(new Map([['t', grades]]), spec);
      let sum = 0;
      for (const [docno, grade] of grades)
        sum += topicValue(new Map([['t', new Map([[docno, grade]])]]), spec);
      expect(sum, spec).toBeCloseTo(whole, 12);
    }
    // nDCG is not: the ideal ranking depends on every label of the topic.
    const whole = topicValue(new Map([['t', grades]]), 'nDCG@10');
    let sum = 0;
    for (const [docno, grade] of grades)
      sum += topicValue(new Map([['t', new Map([[docno, grade]])]]), 'nDCG@10');
    expect(Math.abs(sum - whole)).toBeGreaterThan(0.1);
  });
});
