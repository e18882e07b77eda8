import { parseQrelsJg } from '@assay/trec';
import { describe, expect, it } from 'vitest';
import {
  MeasureSpecError,
  evaluateRun,
  prepareJudgmentGroups,
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

// Topic t1 is judged by two assessors. Assessor x: a and c relevant, b not. Assessor y:
// b and z relevant, a not (c unjudged). The run ranks a, b, c.
const QRELS_JG = `
t1 x a 1
t1 x b 0
t1 x c 1
t1 y a 0
t1 y b 1
t1 y z 1
t2 only a 1
t2 only b 0
`;
const RUN = runOf(`
  t1 a 3
  t1 b 2
  t1 c 1
  t2 b 2
  t2 a 1
`);

describe('measures averaged over judgment groups (-R qrels_jg)', () => {
  const groups = prepareJudgmentGroups(parseQrelsJg(QRELS_JG));
  const r = evaluateRun(
    groups,
    RUN,
    resolveMeasures(['map_avgjg', 'P_avgjg.1,2', 'Rprec_mult_avgjg.0.5,1.0']),
  );

  it('prepares topics and groups in byte order', () => {
    expect(groups.topics).toEqual(['t1', 't2']);
    expect(groups.groups.get('t1')!.map((g) => [...g.grades.keys()])).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'z'],
    ]);
  });

  it('map_avgjg: x gives (1/1 + 2/3) / 2, y gives (1/2) / 2; their mean', () => {
    expect(valueOf(r, 'map_avgjg', 't1')).toBeCloseTo(((1 + 2 / 3) / 2 + 0.5 / 2) / 2, 12);
  });

  it('P_avgjg: x has P1 = 1, P2 = 1/2; y has P1 = 0, P2 = 1/2', () => {
    expect(valueOf(r, 'P_avgjg_1', 't1')).toBe(0.5);
    expect(valueOf(r, 'P_avgjg_2', 't1')).toBe(0.5);
  });

  it('Rprec_mult_avgjg: R = 2 in both groups; 0.5R → P@1 (1 and 0), 1.0R → P@2', () => {
    expect(valueOf(r, 'Rprec_mult_avgjg_0.50', 't1')).toBe(0.5);
    expect(valueOf(r, 'Rprec_mult_avgjg_1.00', 't1')).toBe(0.5);
  });

  it('equals the plain measure for a topic with one group', () => {
    const plain = evaluateRun(
      prepareQrels(qrelsOf('t2 a 1\nt2 b 0')),
      runOf('t2 b 2\nt2 a 1'),
      resolveMeasures(['map', 'P.1,2']),
    );
    expect(valueOf(r, 'map_avgjg', 't2')).toBe(valueOf(plain, 'map', 't2')); // 1/2
    expect(valueOf(r, 'P_avgjg_2', 't2')).toBe(valueOf(plain, 'P_2', 't2'));
    expect(valueOf(r, 'map_avgjg')).toBeCloseTo(((1 + 2 / 3) / 2 / 2 + 0.5 / 2 / 2 + 0.5) / 2, 12);
  });

  it('refuses measures that need plain qrels, and avgjg measures on plain qrels', () => {
    expect(() => evaluateRun(groups, RUN, resolveMeasures(['map']))).toThrow(MeasureSpecError);
    expect(() =>
      evaluateRun(prepareQrels(qrelsOf('t1 a 1')), RUN, resolveMeasures(['map_avgjg'])),
    ).toThrow(/needs qrels with judgment groups/);
  });
});
