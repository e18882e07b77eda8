import { describe, expect, it } from 'vitest';
import {
  labelAgreement,
  nuggetScores,
  rubricScore,
  supportScores,
  type AssignedNugget,
  type NuggetAssignment,
  type NuggetImportance,
} from '@assay/stats';

const n = (importance: NuggetImportance, assignment: NuggetAssignment): AssignedNugget => ({
  importance,
  assignment,
});

describe('nuggetScores', () => {
  it('computes the four nuggetizer scores and the weighted score by hand', () => {
    // 3 vital (support, partial, not), 2 okay (support, partial).
    const nuggets = [
      n('vital', 'support'),
      n('vital', 'partial_support'),
      n('vital', 'not_support'),
      n('okay', 'support'),
      n('okay', 'partial_support'),
    ];
    const s = nuggetScores(nuggets);
    // strict vital: 1 of 3 vital fully supported.
    expect(s.strict_vital).toBeCloseTo(1 / 3, 15);
    // vital: (1 + 0.5) / 3.
    expect(s.vital).toBeCloseTo(0.5, 15);
    // strict all: 2 fully supported of 5.
    expect(s.strict_all).toBeCloseTo(0.4, 15);
    // all: (1 + 0.5 + 0 + 1 + 0.5) / 5 = 3 / 5.
    expect(s.all).toBeCloseTo(0.6, 15);
    // weighted: vital weight 1, okay 0.5: (1 + 0.5 + 0 + 0.5·1 + 0.5·0.5) / (3 + 1) = 2.25 / 4.
    expect(s.weighted).toBeCloseTo(0.5625, 15);
  });

  it('gives 0 for an empty denominator and 1 for a perfect answer', () => {
    expect(nuggetScores([])).toEqual({
      strict_vital: 0,
      vital: 0,
      strict_all: 0,
      all: 0,
      weighted: 0,
    });
    const okayOnly = nuggetScores([n('okay', 'support'), n('okay', 'not_support')]);
    expect(okayOnly.strict_vital).toBe(0);
    expect(okayOnly.vital).toBe(0);
    expect(okayOnly.all).toBe(0.5);
    expect(okayOnly.weighted).toBe(0.5);
    const perfect = nuggetScores([n('vital', 'support'), n('okay', 'support')]);
    expect(perfect).toEqual({ strict_vital: 1, vital: 1, strict_all: 1, all: 1, weighted: 1 });
  });

  it('counts partial support only in the non-strict scores', () => {
    const s = nuggetScores([n('vital', 'partial_support'), n('okay', 'partial_support')]);
    expect(s.strict_vital).toBe(0);
    expect(s.strict_all).toBe(0);
    expect(s.vital).toBe(0.5);
    expect(s.all).toBe(0.5);
    expect(s.weighted).toBe(0.5);
  });

  it('refuses unknown labels instead of scoring them as 0', () => {
    expect(() => nuggetScores([n('vital', 'maybe' as NuggetAssignment)])).toThrow(
      /unknown assignment "maybe"/,
    );
    expect(() => nuggetScores([n('high' as NuggetImportance, 'support')])).toThrow(
      /unknown importance/,
    );
  });
});

describe('supportScores', () => {
  it('computes weighted and strict precision and recall by hand', () => {
    const sentences = [
      { citations: ['full', 'none'] as const },
      { citations: ['partial', 'partial', 'full'] as const },
      { citations: [] as const },
      { citations: ['none'] as const },
    ];
    const s = supportScores(sentences);
    // 6 citations: full 1 + none 0 + partial 0.5 + partial 0.5 + full 1 + none 0 = 3.
    expect(s.support_precision).toBeCloseTo(3 / 6, 15);
    // strict: 2 full of 6.
    expect(s.strict_support_precision).toBeCloseTo(2 / 6, 15);
    // recall over 4 sentences: best 1, best 1, uncited 0, best 0 → 2 / 4.
    expect(s.support_recall).toBeCloseTo(0.5, 15);
    expect(s.strict_support_recall).toBeCloseTo(0.5, 15);
  });

  it('counts only first citations when asked', () => {
    const sentences = [
      { citations: ['none', 'full'] as const },
      { citations: ['partial', 'full'] as const },
      { citations: ['full'] as const },
    ];
    const all = supportScores(sentences);
    // 5 citations: 0 + 1 + 0.5 + 1 + 1 = 3.5; recall: 1 + 1 + 1 = 3 of 3.
    expect(all.support_precision).toBeCloseTo(3.5 / 5, 15);
    expect(all.support_recall).toBe(1);
    const first = supportScores(sentences, { firstCitationOnly: true });
    // first citations: none, partial, full → (0 + 0.5 + 1) / 3; recall the same.
    expect(first.support_precision).toBeCloseTo(1.5 / 3, 15);
    expect(first.support_recall).toBeCloseTo(1.5 / 3, 15);
    expect(first.strict_support_precision).toBeCloseTo(1 / 3, 15);
    expect(first.strict_support_recall).toBeCloseTo(1 / 3, 15);
  });

  it('leaves citations that cannot be assessed out of both denominators', () => {
    const s = supportScores([
      { citations: ['cannot_assess', 'full'] },
      { citations: ['cannot_assess'] },
      { citations: ['partial'] },
    ]);
    // precision over 2 assessed citations: (1 + 0.5) / 2; recall over 2 sentences: (1 + 0.5) / 2.
    expect(s.support_precision).toBe(0.75);
    expect(s.support_recall).toBe(0.75);
    expect(s.strict_support_precision).toBe(0.5);
    expect(s.strict_support_recall).toBe(0.5);
    expect(supportScores([])).toEqual({
      support_precision: 0,
      support_recall: 0,
      strict_support_precision: 0,
      strict_support_recall: 0,
    });
    // An answer without a single citation: no precision to speak of (0), recall 0.
    expect(supportScores([{ citations: [] }]).support_recall).toBe(0);
  });
});

describe('rubricScore', () => {
  it('subtracts met faults and normalises by the positive weights', () => {
    const s = rubricScore([
      { weight: 5, axis: 'Explicit', judgment: 'met' },
      { weight: 3, axis: 'Explicit', judgment: 'partly_met' },
      { weight: 2, axis: 'Implicit', judgment: 'not_met' },
      { weight: -4, axis: 'Implicit', judgment: 'met' },
      { weight: -3, axis: 'Explicit', judgment: 'partly_met' },
      { weight: -5, axis: 'Communication', judgment: 'not_met' },
    ]);
    // Σ w·m = 5 + 1.5 + 0 − 4 − 1.5 + 0 = 1; positive weights 5 + 3 + 2 = 10.
    expect(s.score).toBeCloseTo(0.1, 15);
    // Explicit: (5 + 1.5 − 1.5) / 8; Implicit: (0 − 4) / 2; Communication has no positive weight.
    expect(s.axes).toEqual({ Explicit: 5 / 8, Implicit: -2 });
  });

  it('is 1 for every positive criterion met and no fault, and may fall below 0', () => {
    expect(
      rubricScore([
        { weight: 2, judgment: 'met' },
        { weight: -1, judgment: 'not_met' },
      ]).score,
    ).toBe(1);
    expect(
      rubricScore([
        { weight: 1, judgment: 'not_met' },
        { weight: -5, judgment: 'met' },
      ]).score,
    ).toBe(-5);
    // A weight of 0 changes nothing.
    expect(
      rubricScore([
        { weight: 4, judgment: 'partly_met' },
        { weight: 0, judgment: 'met' },
      ]).score,
    ).toBe(0.5);
  });

  it('refuses a rubric without a positive weight and unknown judgments', () => {
    expect(() => rubricScore([{ weight: -2, judgment: 'met' }])).toThrow(/positive weight/);
    expect(() => rubricScore([{ weight: 2, judgment: 'yes' as 'met' }])).toThrow(/unknown/);
  });
});

describe('labelAgreement', () => {
  const scale = ['support', 'partial_support', 'not_support'];
  it('gives exact agreement, kappa and the confusion matrix, overall and per topic', () => {
    const pairs = [
      { topic: 't1', a: 'support', b: 'support' },
      { topic: 't1', a: 'support', b: 'partial_support' },
      { topic: 't1', a: 'not_support', b: 'not_support' },
      { topic: 't2', a: 'partial_support', b: 'partial_support' },
      { topic: 't2', a: 'not_support', b: 'support' },
      { topic: 't2', a: 'not_support', b: 'not_support' },
    ];
    const r = labelAgreement(pairs, scale);
    expect(r.overall.n).toBe(6);
    expect(r.overall.exact).toBeCloseTo(4 / 6, 15);
    expect(r.overall.confusion).toEqual({
      labels: scale,
      matrix: [
        [1, 1, 0],
        [0, 1, 0],
        [1, 0, 2],
      ],
    });
    // Marginals a: support 2, partial 1, not 3; b: support 2, partial 2, not 2.
    // p_o = 4/6; p_e = (2·2 + 1·2 + 3·2) / 36 = 12/36; κ = (2/3 − 1/3) / (1 − 1/3) = 0.5.
    expect(r.overall.kappa).toBeCloseTo(0.5, 12);
    expect(r.perTopic.map((t) => t.topic)).toEqual(['t1', 't2']);
    // t1: a = s, s, n; b = s, p, n. p_o = 2/3; p_e = (2·1 + 0·1 + 1·1) / 9 = 3/9; κ = 0.5.
    expect(r.perTopic[0]!.kappa).toBeCloseTo(0.5, 12);
    expect(r.perTopic[0]!.n).toBe(3);
  });

  it('is NaN when undefined and refuses a label off the scale', () => {
    const same = labelAgreement(
      [
        { topic: 't', a: 'support', b: 'support' },
        { topic: 't', a: 'support', b: 'support' },
      ],
      scale,
    );
    expect(same.overall.exact).toBe(1);
    expect(same.overall.kappa).toBeNaN();
    expect(labelAgreement([], scale).overall.n).toBe(0);
    expect(() => labelAgreement([{ topic: 't', a: 'yes', b: 'support' }], scale)).toThrow(
      /"yes" is not one of/,
    );
  });
});
