import { describe, expect, it } from 'vitest';
import {
  answerQualityReport,
  answerScoreAgreement,
  averageTrials,
  bootstrapCI,
  keyedSeed,
  seededPermutation,
  trialSpread,
  winRates,
  type AnswerScore,
} from '@assay/stats';

// Three systems, five topics, two criteria (0–5 scores as the answer-quality judge gives).
const INF = { alpha: [4, 3, 5, 2, 4], beta: [3, 3, 4, 2, 5], gamma: [2, 1, 4, 3, 3] };
const COM = { alpha: [3, 2, 4, 2, 5], beta: [2, 2, 3, 1, 4], gamma: [3, 2, 2, 1, 3] };
const TOPICS = ['t1', 't2', 't3', 't4', 't5'];

function rows(): AnswerScore[] {
  const out: AnswerScore[] = [];
  for (const system of ['gamma', 'alpha', 'beta'] as const)
    TOPICS.forEach((topic, i) => {
      const scores = { informativeness: INF[system][i]!, completeness: COM[system][i]! };
      if (system === 'alpha' && topic === 't1') {
        // Two trials whose mean is the table's value (4 and 3): 5/3 and 3/3.
        out.push({ topic, system, trial: 1, scores: { informativeness: 5, completeness: 3 } });
        out.push({ topic, system, trial: 2, scores: { informativeness: 3, completeness: 3 } });
      } else out.push({ topic, system, trial: 1, scores });
    });
  return out;
}

describe('winRates', () => {
  it('counts a tied top score as a win for every tied system and normalises', () => {
    const byTopic = new Map(
      TOPICS.map((t, i) => [
        t,
        new Map([
          ['alpha', INF.alpha[i]!],
          ['beta', INF.beta[i]!],
          ['gamma', INF.gamma[i]!],
        ]),
      ]),
    );
    const r = winRates(byTopic, ['alpha', 'beta', 'gamma']);
    // Tops by hand: t1 alpha; t2 alpha+beta (3, 3); t3 alpha; t4 gamma; t5 beta.
    expect(r.topics).toBe(5);
    expect(r.winRate).toEqual({ alpha: 3 / 5, beta: 2 / 5, gamma: 1 / 5 });
    // Sum of rates is 1.2 because of the tie on t2.
    expect(r.normalised.alpha).toBeCloseTo(0.6 / 1.2, 12);
    expect(r.normalised.beta).toBeCloseTo(0.4 / 1.2, 12);
    expect(r.normalised.gamma).toBeCloseTo(0.2 / 1.2, 12);
  });

  it('counts only topics every system answered', () => {
    const byTopic = new Map([
      [
        'q1',
        new Map([
          ['a', 1],
          ['b', 2],
        ]),
      ],
      ['q2', new Map([['a', 5]])],
    ]);
    const r = winRates(byTopic, ['a', 'b']);
    expect(r.topics).toBe(1);
    expect(r.winRate).toEqual({ a: 0, b: 1 });
    expect(r.normalised).toEqual({ a: 0, b: 1 });
  });

  it('gives NaN when no topic is shared', () => {
    const r = winRates(new Map([['q1', new Map([['a', 1]])]]), ['a', 'b']);
    expect(r.winRate.a).toBeNaN();
    expect(r.normalised.b).toBeNaN();
  });
});

describe('averageTrials', () => {
  it('averages the trials of a (topic, system) before anything else', () => {
    const avg = averageTrials(rows());
    expect(avg.get('informativeness')!.get('alpha')!.get('t1')).toBe(4);
    expect(avg.get('completeness')!.get('alpha')!.get('t1')).toBe(3);
    expect(avg.get('informativeness')!.get('beta')!.get('t5')).toBe(5);
  });
});

describe('answerQualityReport', () => {
  const report = answerQualityReport(rows(), { seed: 7, samples: 2000 });

  it('lists systems by name with topic counts and per-topic means averaged over trials', () => {
    expect(report.systems.map((s) => [s.system, s.n])).toEqual([
      ['alpha', 5],
      ['beta', 5],
      ['gamma', 5],
    ]);
    const [alpha, beta, gamma] = report.systems;
    // 18/5, 17/5, 13/5 (alpha's t1 is the mean of its trials, 4; a mean over the six rows
    // would give 22/6).
    expect(alpha!.means.informativeness).toBeCloseTo(3.6, 12);
    expect(beta!.means.informativeness).toBeCloseTo(3.4, 12);
    expect(gamma!.means.informativeness).toBeCloseTo(2.6, 12);
    expect(alpha!.means.completeness).toBeCloseTo(16 / 5, 12);
  });

  it('gives the seeded bootstrap interval of the per-topic means', () => {
    const alpha = report.systems[0]!;
    const expected = bootstrapCI([4, 3, 5, 2, 4], { seed: 7, samples: 2000 });
    expect(alpha.ci.informativeness).toEqual([expected.lower, expected.upper]);
    expect(alpha.ci.informativeness![0]).toBeLessThanOrEqual(3.6);
    expect(alpha.ci.informativeness![1]).toBeGreaterThanOrEqual(3.6);
    // Resampled means of five scores between 2 and 5 stay within [2, 5].
    expect(alpha.ci.informativeness![0]).toBeGreaterThanOrEqual(2);
    const again = answerQualityReport(rows(), { seed: 7, samples: 2000 });
    expect(again.systems[0]!.ci).toEqual(alpha.ci);
  });

  it('gives a point interval when every topic has the same score', () => {
    const r = answerQualityReport([
      { topic: 'q1', system: 's', scores: { x: 3 } },
      { topic: 'q2', system: 's', scores: { x: 3 } },
    ]);
    expect(r.systems[0]!.ci.x).toEqual([3, 3]);
  });

  it('reports win rates with ties, per criterion', () => {
    const [alpha, beta, gamma] = report.systems;
    expect(alpha!.winRate.informativeness).toBeCloseTo(0.6, 12);
    expect(beta!.winRate.informativeness).toBeCloseTo(0.4, 12);
    expect(gamma!.winRate.informativeness).toBeCloseTo(0.2, 12);
    // Completeness tops by hand: t1 alpha+gamma, t2 all three, t3–t5 alpha → 5, 1, 2 wins.
    expect(alpha!.winRate.completeness).toBeCloseTo(1, 12);
    expect(beta!.winRate.completeness).toBeCloseTo(0.2, 12);
    expect(gamma!.winRate.completeness).toBeCloseTo(0.4, 12);
    expect(alpha!.winRateNormalised.completeness).toBeCloseTo(1 / 1.6, 12);
    expect(beta!.winRateNormalised.completeness).toBeCloseTo(0.2 / 1.6, 12);
    expect(gamma!.winRateNormalised.completeness).toBeCloseTo(0.4 / 1.6, 12);
  });

  // Reference values: scipy 1.17.1, stats.ttest_rel(a, b) and
  // stats.ttest_ind(a, b, equal_var=False) on the INF and COM lists above. By hand for
  // completeness alpha−beta: d = [1, 0, 1, 1, 1], mean 0.8, sd √0.2, se 0.2, t = 4 (df 4).
  it('runs paired t-tests per pair and criterion with Holm per criterion', () => {
    const com = report.tests.filter((t) => t.criterion === 'completeness');
    expect(com.map((t) => [t.a, t.b, t.test])).toEqual([
      ['alpha', 'beta', 'paired'],
      ['alpha', 'gamma', 'paired'],
      ['beta', 'gamma', 'paired'],
    ]);
    expect(com[0]!.statistic).toBeCloseTo(4, 10);
    expect(com[0]!.p).toBeCloseTo(0.016130089900092553, 10);
    expect(com[1]!.statistic).toBeCloseTo(2.23606797749979, 10);
    expect(com[1]!.p).toBeCloseTo(0.08900934250008567, 10);
    expect(com[2]!.statistic).toBeCloseTo(0.5345224838248488, 10);
    expect(com[2]!.p).toBeCloseTo(0.6213082950374971, 10);
    // Holm over the three completeness pairs: 3·0.01613, max(that, 2·0.08901), 0.62131.
    expect(com[0]!.pAdjusted).toBeCloseTo(3 * 0.016130089900092553, 10);
    expect(com[1]!.pAdjusted).toBeCloseTo(2 * 0.08900934250008567, 10);
    expect(com[2]!.pAdjusted).toBeCloseTo(0.6213082950374971, 10);
    expect(com.map((t) => t.significant)).toEqual([true, false, false]);
    const inf = report.tests.filter((t) => t.criterion === 'informativeness');
    expect(inf[0]!.statistic).toBeCloseTo(0.5345224838248488, 10);
    expect(inf[1]!.p).toBeCloseTo(0.14192744777405542, 10);
    expect(inf[2]!.statistic).toBeCloseTo(1.3719886811400706, 10);
  });

  it("runs Welch's t-test (the paper's formula) when asked, with the chosen correction", () => {
    const r = answerQualityReport(rows(), { test: 'welch', correction: 'bonferroni' });
    const inf = r.tests.filter((t) => t.criterion === 'informativeness');
    // alpha−gamma by hand: (3.6 − 2.6) / √(1.3/5 + 1.3/5) = 1 / √0.52 = 1.3868.
    expect(inf[1]!.statistic).toBeCloseTo(1 / Math.sqrt(0.52), 10);
    expect(inf[0]!.p).toBeCloseTo(0.7885433926808223, 9);
    expect(inf[1]!.p).toBeCloseTo(0.20293396786290122, 9);
    expect(inf[2]!.p).toBeCloseTo(0.299489896978424, 9);
    expect(inf[1]!.pAdjusted).toBeCloseTo(3 * 0.20293396786290122, 9);
    const com = r.tests.filter((t) => t.criterion === 'completeness');
    expect(com[0]!.statistic).toBeCloseTo(1.0327955589886448, 9);
    expect(com[0]!.p).toBeCloseTo(0.3324271151465182, 9);
    expect(com[1]!.p).toBeCloseTo(0.19325084076488425, 9);
    expect(com[2]!.p).toBeCloseTo(0.7606342451604505, 9);
    expect(com[2]!.pAdjusted).toBe(1);
  });

  it('pairs only the topics both systems have and leaves untestable pairs NaN', () => {
    const r = answerQualityReport(
      [
        { topic: 'q1', system: 'a', scores: { x: 3 } },
        { topic: 'q2', system: 'a', scores: { x: 4 } },
        { topic: 'q3', system: 'a', scores: { x: 5 } },
        { topic: 'q1', system: 'b', scores: { x: 1 } },
        { topic: 'q2', system: 'b', scores: { x: 3 } },
      ],
      { correction: 'none' },
    );
    // Paired over q1, q2: d = [2, 1], mean 1.5, sd √0.5, se 0.5, t = 3.
    expect(r.tests[0]!.statistic).toBeCloseTo(3, 10);
    expect(r.systems.map((s) => s.n)).toEqual([3, 2]);
    const lone = answerQualityReport([
      { topic: 'q1', system: 'a', scores: { x: 3 } },
      { topic: 'q1', system: 'b', scores: { x: 1 } },
    ]);
    expect(lone.tests[0]!.p).toBeNaN();
    expect(lone.tests[0]!.significant).toBe(false);
  });
});

describe('seededPermutation', () => {
  it('is a permutation that depends only on the seed', () => {
    const order = seededPermutation(6, 123);
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(seededPermutation(6, 123)).toEqual(order);
    const seen = new Set<string>();
    for (let seed = 0; seed < 50; seed++) seen.add(seededPermutation(6, seed).join(''));
    expect(seen.size).toBeGreaterThan(20);
  });

  it('derives per-key seeds that differ between keys and repeat for the same key', () => {
    expect(keyedSeed(42, 'q1')).toBe(keyedSeed(42, 'q1'));
    expect(keyedSeed(42, 'q1')).not.toBe(keyedSeed(42, 'q2'));
    expect(keyedSeed(42, 'q1')).not.toBe(keyedSeed(43, 'q1'));
    // FNV-1a (32-bit) of the two bytes of "0:" (base 0, empty key), step by step.
    let h = 0x811c9dc5;
    for (const c of [0x30, 0x3a]) h = Math.imul(h ^ c, 0x01000193) >>> 0;
    expect(keyedSeed(0, '')).toBe(h);
  });
});

describe('trialSpread', () => {
  it('averages the per-topic standard deviation of repeated trials', () => {
    const spread = trialSpread([
      { topic: 'q1', system: 's', trial: 1, scores: { x: 2 } },
      { topic: 'q1', system: 's', trial: 2, scores: { x: 4 } },
      { topic: 'q2', system: 's', trial: 1, scores: { x: 3 } },
      { topic: 'q2', system: 's', trial: 2, scores: { x: 3 } },
      { topic: 'q2', system: 's', trial: 3, scores: { x: 3 } },
      { topic: 'q1', system: 't', trial: 1, scores: { x: 5 } },
    ]);
    expect(spread.maxTrials).toBe(3);
    // q1: sd of (2, 4) = √2; q2: 0 → mean √2 / 2. System t has a single trial: NaN.
    expect(spread.meanSd.s!.x).toBeCloseTo(Math.SQRT2 / 2, 12);
    expect(spread.meanSd.t!.x).toBeNaN();
  });
});

describe('answerScoreAgreement', () => {
  // A judge and a person on four answers (two topics × two systems), one criterion, scale 0–2.
  // The judge has two trials on (q1, s) whose mean 1.5 rounds to 2 for kappa.
  const judge: AnswerScore[] = [
    { topic: 'q1', system: 's', trial: 1, scores: { x: 0 } },
    { topic: 'q2', system: 's', trial: 1, scores: { x: 1 } },
    { topic: 'q1', system: 't', trial: 1, scores: { x: 1 } },
    { topic: 'q1', system: 't', trial: 2, scores: { x: 2 } },
    { topic: 'q2', system: 't', trial: 1, scores: { x: 2 } },
    { topic: 'q3', system: 't', trial: 1, scores: { x: 2 } },
  ];
  const person: AnswerScore[] = [
    { topic: 'q1', system: 's', scores: { x: 0, other: 1 } },
    { topic: 'q2', system: 's', scores: { x: 2, other: 1 } },
    { topic: 'q1', system: 't', scores: { x: 2, other: 1 } },
    { topic: 'q2', system: 't', scores: { x: 1, other: 1 } },
  ];

  it('pairs the answers both graded and measures agreement per shared criterion', () => {
    const [r, ...rest] = answerScoreAgreement(judge, person, { min: 0, max: 2 });
    expect(rest).toEqual([]);
    // Rounded pairs (judge, person): (0,0), (1,2), (2,2), (2,1); q3 has no human grade.
    expect(r!.criterion).toBe('x');
    expect(r!.n).toBe(4);
    expect(r!.exact).toBe(0.5);
    // Linear: observed Σw·O = 2; marginals [1,1,2] both ways, Σ|i−j|·rᵢ·cⱼ/4 = 14/4;
    // κ = 1 − 2/3.5 = 3/7. Quadratic: Σ(i−j)²·rᵢ·cⱼ/4 = 22/4; κ = 1 − 2/5.5 = 7/11.
    expect(r!.kappaLinear).toBeCloseTo(3 / 7, 12);
    expect(r!.kappaQuadratic).toBeCloseTo(7 / 11, 12);
    // Interval alpha on the unrounded means (0,0), (1,2), (1.5,2), (2,1): n = 8 values,
    // D_o = Σ 2·δ² / 8 = 2·(1 + 0.25 + 1) / 8 = 0.5625; D_e = Σ_{c≠k} (c − k)² / (8·7)
    // over the values 0,0,1,2,1.5,2,2,1 → 1.4196…; α = 1 − D_o / D_e.
    const values = [0, 0, 1, 2, 1.5, 2, 2, 1];
    let de = 0;
    for (const c of values) for (const k of values) de += (c - k) ** 2;
    expect(r!.alphaInterval).toBeCloseTo(1 - 0.5625 / (de / 56), 12);
  });
});
