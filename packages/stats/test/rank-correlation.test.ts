import { describe, expect, it } from 'vitest';
import {
  averageRanks,
  kendallTauB,
  rankBiasedOverlap,
  spearmanRho,
  tauAP,
  tauAPSymmetric,
} from '@assay/stats';

// Test sets of the ircor R package (Urbano & Marrero's reference implementation of τ_AP with
// ties, tests/testthat/helper_data.R), whose test suite publishes τ_AP values to 4 decimals.
const SET1 = {
  x: [0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
  y: [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
  xTies: [0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
  yTies: [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
};
const SET2 = {
  x: [0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
  y: [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
  xTies: [0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
  yTies: [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
};
const SET3 = {
  x: [0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
  y: [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
  xTies: [0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
  yTies: [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
};

/** |actual − expected| within half a unit of the last published decimal. */
function expectPublished(actual: number, expected: number, decimals: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-12);
}

describe('averageRanks', () => {
  it('gives tied values the mean of their ranks', () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    expect(averageRanks([3, 1, 3, 3])).toEqual([3, 1, 3, 3]);
  });
});

describe('kendallTauB', () => {
  it('matches scipy.stats.kendalltau', () => {
    // stats.kendalltau(SET1.x, SET1.y).statistic
    expect(kendallTauB(SET1.x, SET1.y)).toBeCloseTo(0.911111111111111, 12);
    // stats.kendalltau(SET1.xTies, SET1.yTies).statistic (tau-b, ties in both)
    expect(kendallTauB(SET1.xTies, SET1.yTies)).toBeCloseTo(0.9398272507881658, 12);
  });

  it('is 1 on identical rankings with ties, −1 on reversed ones, NaN on constant input', () => {
    expect(kendallTauB(SET1.xTies, SET1.xTies)).toBeCloseTo(1, 15);
    expect(kendallTauB([1, 2, 3], [3, 2, 1])).toBe(-1);
    expect(kendallTauB([1, 1, 1], [1, 2, 3])).toBeNaN();
  });
});

describe('spearmanRho', () => {
  it('matches scipy.stats.spearmanr', () => {
    // stats.spearmanr(SET1.x, SET1.y).statistic
    expect(spearmanRho(SET1.x, SET1.y)).toBeCloseTo(0.9636363636363635, 12);
    // stats.spearmanr(SET1.xTies, SET1.yTies).statistic (average ranks for ties)
    expect(spearmanRho(SET1.xTies, SET1.yTies)).toBeCloseTo(0.9720684402186587, 12);
    expect(spearmanRho([1, 1, 1], [1, 2, 3])).toBeNaN();
  });
});

describe('tauAP', () => {
  it('matches a hand-computed example', () => {
    // Truth x ranks systems A > B > C > D > E; y ranks them B, C, A, D, E.
    const x = [5, 4, 3, 2, 1];
    const y = [3, 5, 4, 2, 1];
    // Walking down y: C has {B} above, B correct → 1/1; A has {B, C} above, neither above A
    // in x → 0/2; D → 3/3; E → 4/4. τ_AP = 2/4 · (1 + 0 + 1 + 1) − 1 = 0.5.
    expect(tauAP(x, y)).toBeCloseTo(0.5, 15);
    // Other direction (walking down x: B 0/1, C 1/2, D 3/3, E 4/4): 2/4 · 2.5 − 1 = 0.25.
    expect(tauAP(y, x)).toBeCloseTo(0.25, 15);
    expect(tauAPSymmetric(x, y)).toBeCloseTo(0.375, 15);
    // Kendall's tau sees only 2 discordant pairs out of 10 wherever they are: 0.6.
    expect(kendallTauB(x, y)).toBeCloseTo(0.6, 15);
  });

  it('handles ties as Urbano & Marrero (hand computation)', () => {
    // Truth A > B > C > D; y ties A and B at the top.
    const x = [4, 3, 2, 1];
    const y = [2, 2, 1, 0];
    // Top y group {A, B} skipped; C: 2/2, D: 3/3 → 2/2 · 2 − 1 = 1.
    expect(tauAP(x, y)).toBeCloseTo(1, 15);
    // Walking down x: B has A above, tied in y → 0/1; C 2/2; D 3/3 → 2/3 · 2 − 1 = 1/3.
    expect(tauAP(y, x)).toBeCloseTo(1 / 3, 15);
    expect(tauAPSymmetric(x, y)).toBeCloseTo(2 / 3, 15);
  });

  it('reproduces the ircor published values without ties', () => {
    // ircor test_tauAP.R: tauAP(set$x, set$y) → .8519, .2504, −.6971
    expectPublished(tauAP(SET1.x, SET1.y), 0.8519, 4);
    expectPublished(tauAP(SET2.x, SET2.y), 0.2504, 4);
    expectPublished(tauAP(SET3.x, SET3.y), -0.6971, 4);
    // tauAP_b without ties = symmetric τ_AP: .8333, .2880, −.668
    expectPublished(tauAPSymmetric(SET1.x, SET1.y), 0.8333, 4);
    expectPublished(tauAPSymmetric(SET2.x, SET2.y), 0.288, 4);
    expectPublished(tauAPSymmetric(SET3.x, SET3.y), -0.668, 3);
  });

  it("reproduces ircor's tauAP_b with ties, in both argument orders", () => {
    // ircor test_tauAP.R: tauAP_b(set$x.ties, set$y.ties) → .7321, .297, −.7047
    for (const [set, expected, decimals] of [
      [SET1, 0.7321, 4],
      [SET2, 0.297, 3],
      [SET3, -0.7047, 4],
    ] as const) {
      expectPublished(tauAPSymmetric(set.xTies, set.yTies), expected, decimals);
      expectPublished(tauAPSymmetric(set.yTies, set.xTies), expected, decimals);
    }
  });

  it('is 1 on identical rankings even with ties, NaN when y is constant', () => {
    expect(tauAP(SET2.xTies, SET2.xTies)).toBeCloseTo(1, 15);
    expect(tauAP([1, 2, 3], [5, 5, 5])).toBeNaN();
  });
});

describe('rankBiasedOverlap', () => {
  it('matches a hand-computed uneven example', () => {
    // S = a b c (s = 3), L = b a d c e (l = 5), p = 1/2.
    // X_d = 0, 2, 2, 3, 3; X_s = 2, X_l = 3; (1 − p)/p = 1.
    // Σ X_d/d·p^d = 0 + 1/4 + 1/12 + 3/64 + 3/160 = 383/960
    // Σ_{d=4,5} X_s(d − s)/(s·d)·p^d = 1/96 + 1/120 = 18/960
    // tail ((3 − 2)/5 + 2/3)·(1/2)^5 = 26/960 → RBO_ext = 427/960
    const s = ['a', 'b', 'c'];
    const l = ['b', 'a', 'd', 'c', 'e'];
    expect(rankBiasedOverlap(s, l, 0.5)).toBeCloseTo(427 / 960, 14);
    expect(rankBiasedOverlap(l, s, 0.5)).toBeCloseTo(427 / 960, 14);
  });

  it('matches a published equal-length example', () => {
    // rankmeasures README (Scala port of ragrawal's RBO_ext):
    // RBO.eval(List(1,2,3,4,5), List(2,3,4,1,5), 0.9) → 0.828. By hand: X_d = 0,1,2,4,5,
    // (0.1/0.9)·(0.5·0.81 + 2/3·0.729 + 0.6561 + 0.59049) + 0.59049 = 0.82799...
    expectPublished(
      rankBiasedOverlap(['1', '2', '3', '4', '5'], ['2', '3', '4', '1', '5']),
      0.828,
      3,
    );
  });

  it('gives 1 for identical lists, 0 for disjoint ones, and 1 when one list extends the other', () => {
    const list = ['d1', 'd2', 'd3', 'd4'];
    expect(rankBiasedOverlap(list, list, 0.8)).toBeCloseTo(1, 14);
    expect(rankBiasedOverlap(list, ['x', 'y', 'z'])).toBe(0);
    // The extrapolation assumes the shorter list continues as agreeably as it began.
    expect(rankBiasedOverlap(['d1', 'd2'], list)).toBeCloseTo(1, 14);
    expect(rankBiasedOverlap([], [])).toBe(1);
    expect(rankBiasedOverlap([], list)).toBe(0);
  });

  it('rejects duplicates and bad persistence', () => {
    expect(() => rankBiasedOverlap(['a', 'a'], ['a'])).toThrow(/duplicate/);
    expect(() => rankBiasedOverlap(['a'], ['a'], 1)).toThrow(RangeError);
  });
});
