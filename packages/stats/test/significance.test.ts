import { describe, expect, it } from 'vitest';
import {
  bootstrapCI,
  bootstrapDiffCI,
  cohensD,
  hedgesG,
  pairedTTest,
  randomizationTest,
  welchTTest,
  wilcoxonSignedRank,
} from '@assay/stats';

// Per-topic scores of two runs over the same 12 topics.
const RUN_A = [0.412, 0.385, 0.601, 0.233, 0.547, 0.318, 0.702, 0.455, 0.289, 0.634, 0.501, 0.377];
const RUN_B = [0.398, 0.342, 0.566, 0.241, 0.503, 0.301, 0.655, 0.43, 0.262, 0.611, 0.47, 0.36];

describe('pairedTTest', () => {
  it('matches scipy.stats.ttest_rel', () => {
    const r = pairedTTest(RUN_A, RUN_B);
    // stats.ttest_rel(RUN_A, RUN_B) → statistic, pvalue, df
    expect(r.statistic).toBeCloseTo(5.878312988118747, 9);
    expect(r.p).toBeCloseTo(0.00010641495540613023, 12);
    expect(r.df).toBe(11);
    // numpy.mean(numpy.array(RUN_A) - numpy.array(RUN_B))
    expect(r.meanDiff).toBeCloseTo(0.02625, 12);
    // stats.ttest_rel(RUN_A, RUN_B).confidence_interval(0.95)
    expect(r.ci[0]).toBeCloseTo(0.016421353487100443, 9);
    expect(r.ci[1]).toBeCloseTo(0.03607864651289957, 9);
  });

  it('honours the confidence level', () => {
    const r = pairedTTest(RUN_A, RUN_B, { level: 0.9 });
    // stats.ttest_rel(RUN_A, RUN_B).confidence_interval(0.9)
    expect(r.ci[0]).toBeCloseTo(0.018230356169148434, 9);
    expect(r.ci[1]).toBeCloseTo(0.03426964383085157, 9);
  });

  it('is antisymmetric in its arguments', () => {
    const ab = pairedTTest(RUN_A, RUN_B);
    const ba = pairedTTest(RUN_B, RUN_A);
    expect(ba.statistic).toBeCloseTo(-ab.statistic, 12);
    expect(ba.p).toBeCloseTo(ab.p, 15);
  });

  it('gives NaN on identical runs, as scipy', () => {
    const r = pairedTTest(RUN_A, RUN_A);
    expect(r.statistic).toBeNaN();
    expect(r.p).toBeNaN();
  });

  it('rejects unpaired or too short input', () => {
    expect(() => pairedTTest([1, 2, 3], [1, 2])).toThrow(RangeError);
    expect(() => pairedTTest([1], [2])).toThrow(RangeError);
    expect(() => pairedTTest([1, Number.NaN], [2, 3])).toThrow(/x\[1\]/);
  });
});

describe('welchTTest', () => {
  it('matches scipy.stats.ttest_ind(equal_var=False)', () => {
    const a = [0.31, 0.45, 0.52, 0.28, 0.61, 0.39, 0.47];
    const b = [0.22, 0.35, 0.3, 0.41, 0.29, 0.33, 0.25, 0.38, 0.27];
    const r = welchTTest(a, b);
    // stats.ttest_ind(a, b, equal_var=False) → statistic, pvalue, df
    expect(r.statistic).toBeCloseTo(2.509589832207184, 9);
    expect(r.p).toBeCloseTo(0.03437304407658522, 10);
    expect(r.df).toBeCloseTo(8.630854976799728, 9);
    // numpy.mean(a) - numpy.mean(b)
    expect(r.meanDiff).toBeCloseTo(0.12174603174603177, 12);
    // stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    expect(r.ci[0]).toBeCloseTo(0.011283857578970435, 8);
    expect(r.ci[1]).toBeCloseTo(0.2322082059130931, 8);
  });
});

describe('wilcoxonSignedRank', () => {
  it('uses the exact distribution for n ≤ 50 without ties or zeros', () => {
    const x = [0.52, 0.61, 0.43, 0.7, 0.38, 0.55, 0.66, 0.49, 0.58, 0.45];
    const y = [0.47, 0.63, 0.35, 0.62, 0.41, 0.44, 0.6, 0.5, 0.46, 0.31];
    const r = wilcoxonSignedRank(x, y);
    // stats.wilcoxon(x, y) → WilcoxonResult(statistic=6.0, pvalue=0.02734375)
    expect(r.method).toBe('exact');
    expect(r.statistic).toBe(6);
    expect(r.p).toBeCloseTo(0.02734375, 14);
    expect(r.n).toBe(10);
    // stats.wilcoxon(x, y, method='asymptotic').pvalue
    expect(wilcoxonSignedRank(x, y, { method: 'normal' }).p).toBeCloseTo(0.02841686417486375, 12);
  });

  it('uses the normal approximation above 50 pairs', () => {
    const x = [
      0.4753, 0.5205, 0.2529, 0.307, 0.2703, 0.2818, 0.2647, 0.7411, 0.2568, 0.4267, 0.3892, 0.6053,
      0.4954, 0.1796, 0.5551, 0.6675, 0.4472, 0.4021, 0.0881, 0.168, 0.407, 0.4174, 0.1655, 0.6007,
      0.4923, 0.4292, 0.1188, 0.3305, 0.3109, 0.2465, 0.4175, 0.3593, 0.3412, 0.268, 0.6266, 0.1493,
      0.3656, 0.3205, 0.2108, 0.5957, 0.4941, 0.3977, 0.307, 0.5767, 0.4936, 0.3014, 0.5794, 0.3741,
      0.3635, 0.7261, 0.6599, 0.1605, 0.6009, 0.2798, 0.5023, 0.6125, 0.268, 0.4543, 0.69, 0.1581,
    ];
    const y = [
      0.4552, 0.4706, 0.2603, 0.3761, 0.2958, 0.361, 0.2387, 0.5871, 0.286, 0.4687, 0.3202, 0.5496,
      0.4649, 0.2526, 0.538, 0.578, 0.5616, 0.4279, 0.2582, 0.277, 0.5712, 0.4209, 0.2722, 0.5536,
      0.4566, 0.4279, 0.3505, 0.3644, 0.2958, 0.2152, 0.5505, 0.3871, 0.4191, 0.3289, 0.5005,
      0.2101, 0.3489, 0.2121, 0.2492, 0.5869, 0.4631, 0.3713, 0.4095, 0.5491, 0.3377, 0.4361,
      0.4735, 0.3422, 0.4076, 0.5061, 0.5637, 0.2604, 0.5734, 0.2021, 0.5012, 0.5242, 0.2547,
      0.3676, 0.5261, 0.2057,
    ];
    const r = wilcoxonSignedRank(x, y);
    // stats.wilcoxon(x, y) → statistic=907.0, pvalue=0.9530374737406601
    expect(r.method).toBe('normal');
    expect(r.statistic).toBe(907);
    expect(r.p).toBeCloseTo(0.9530374737406601, 12);
  });

  it('enumerates sign flips exactly with ties and n ≤ 13', () => {
    const r = wilcoxonSignedRank([3, 5, 2, 6, 4, 7, 5, 8, 1], [1, 2, 3, 4, 2, 5, 3, 3, 2]);
    // stats.wilcoxon([3,5,2,6,4,7,5,8,1], [1,2,3,4,2,5,3,3,2]) → statistic=3.0, pvalue=0.015625
    expect(r.method).toBe('exact');
    expect(r.statistic).toBe(3);
    expect(r.p).toBeCloseTo(0.015625, 14);
  });

  it('drops zero differences', () => {
    const x = [0.5, 0.4, 0.7, 0.3, 0.6, 0.8, 0.2, 0.55];
    const y = [0.5, 0.35, 0.6, 0.3, 0.45, 0.6, 0.25, 0.3];
    const r = wilcoxonSignedRank(x, y);
    // stats.wilcoxon(x, y) → statistic=1.0, pvalue=0.0625
    expect(r.zeros).toBe(2);
    expect(r.n).toBe(6);
    expect(r.method).toBe('exact');
    expect(r.statistic).toBe(1);
    expect(r.p).toBeCloseTo(0.0625, 14);
  });

  it('uses the tie-corrected normal approximation with ties and zeros above 13 pairs', () => {
    const x = [2, 3, 1, 3, 2, 0, 1, 2, 3, 2, 1, 3, 2, 2, 3, 1, 0, 2, 3, 1];
    const y = [1, 1, 1, 2, 0, 1, 2, 0, 1, 1, 1, 2, 0, 1, 1, 2, 1, 1, 0, 0];
    const r = wilcoxonSignedRank(x, y);
    // stats.wilcoxon(x, y) → statistic=24.0, pvalue=0.005724242140056091
    expect(r.method).toBe('normal');
    expect(r.zeros).toBe(2);
    expect(r.statistic).toBe(24);
    expect(r.p).toBeCloseTo(0.005724242140056091, 12);
    // stats.wilcoxon(x, y, correction=True).pvalue
    expect(wilcoxonSignedRank(x, y, { correction: true }).p).toBeCloseTo(0.006130693500794899, 12);
  });

  it('gives p = 1 for identical small samples and NaN for identical large ones, as scipy', () => {
    // stats.wilcoxon([1,2,3,4,5], [1,2,3,4,5]) → statistic=0.0, pvalue=1.0
    const small = wilcoxonSignedRank([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]);
    expect(small.statistic).toBe(0);
    expect(small.p).toBe(1);
    // stats.wilcoxon([1]*20, [1]*20) → statistic=0.0, pvalue=nan
    expect(wilcoxonSignedRank(Array(20).fill(1), Array(20).fill(1)).p).toBeNaN();
  });
});

describe('randomizationTest', () => {
  // 20 topics, a moderate improvement of x over y.
  const x = [
    0.265, 0.402, 0.578, 0.438, 0.259, 0.43, 0.519, 0.281, 0.512, 0.325, 0.342, 0.422, 0.446, 0.494,
    0.53, 0.647, 0.203, 0.54, 0.46, 0.264,
  ];
  const y = [
    0.234, 0.295, 0.521, 0.433, 0.238, 0.373, 0.392, 0.264, 0.494, 0.245, 0.356, 0.407, 0.372,
    0.435, 0.495, 0.583, 0.314, 0.459, 0.478, 0.317,
  ];

  it('is deterministic for a seed and varies with it', () => {
    const first = randomizationTest(x, y, { seed: 7 });
    expect(randomizationTest(x, y, { seed: 7 })).toEqual(first);
    expect(randomizationTest(x, y, { seed: 8 }).p).not.toBe(first.p);
    expect(randomizationTest(x, y)).toEqual(randomizationTest(x, y, { seed: 42 }));
  });

  it('approximates the exact sign-flip p-value and the t-test', () => {
    const r = randomizationTest(x, y);
    expect(r.permutations).toBe(10000);
    // numpy.mean(x - y)
    expect(r.meanDiff).toBeCloseTo(0.032600000000000004, 12);
    // Exact p over all 2^20 sign flips, computed with numpy:
    //   d = x - y; s = ((arange(2**20)[:,None] >> arange(20)) & 1)*2 - 1
    //   mean(abs((s*d).sum(1)) >= abs(d.sum()) - 1e-12) → 0.017337799072265625
    //   (stats.permutation_test((d,), mean, permutation_type='samples', n_resamples=inf)
    //   gives the same). Monte Carlo with 10000 draws: standard error ≈ 0.0013, so 0.005.
    expect(Math.abs(r.p - 0.017337799072265625)).toBeLessThan(0.005);
    // stats.ttest_rel(x, y).pvalue → 0.016167439647797502; different tests, same ballpark.
    expect(Math.abs(r.p - 0.016167439647797502)).toBeLessThan(0.006);
  });

  it('gives p = 1 on identical runs', () => {
    expect(randomizationTest(x, x).p).toBe(1);
  });

  it('never returns p = 0', () => {
    const strong = x.map((v) => v + 1);
    expect(randomizationTest(strong, x, { permutations: 999 }).p).toBeCloseTo(1 / 1000, 15);
  });
});

describe('bootstrap confidence intervals', () => {
  it('is deterministic for a seed', () => {
    expect(bootstrapCI(RUN_A, { seed: 3 })).toEqual(bootstrapCI(RUN_A, { seed: 3 }));
    expect(bootstrapCI(RUN_A, { seed: 3 }).lower).not.toBe(bootstrapCI(RUN_A, { seed: 4 }).lower);
    expect(bootstrapDiffCI(RUN_A, RUN_B)).toEqual(bootstrapDiffCI(RUN_A, RUN_B, { seed: 42 }));
  });

  it('agrees with scipy.stats.bootstrap(method="percentile") within Monte Carlo error', () => {
    // stats.bootstrap((RUN_A,), numpy.mean, method='percentile', n_resamples=200000,
    //   rng=numpy.random.default_rng(0)).confidence_interval → (0.37675, 0.5335833)
    // Bootstrap standard error 0.040; with 10000 resamples the 2.5% / 97.5% quantiles move by
    // about 0.0012 between seeds, hence the 0.006 tolerance.
    const r = bootstrapCI(RUN_A);
    expect(r.estimate).toBeCloseTo(0.4545, 12);
    expect(Math.abs(r.lower - 0.3767499999999999)).toBeLessThan(0.006);
    expect(Math.abs(r.upper - 0.5335833333333333)).toBeLessThan(0.006);
    expect(r.level).toBe(0.95);
    expect(r.samples).toBe(10000);

    // Same for d = RUN_A - RUN_B: (0.0175833, 0.03425), bootstrap standard error 0.0043.
    const diff = bootstrapDiffCI(RUN_A, RUN_B);
    expect(diff.estimate).toBeCloseTo(0.02625, 12);
    expect(Math.abs(diff.lower - 0.017583333333333333)).toBeLessThan(0.0006);
    expect(Math.abs(diff.upper - 0.034249999999999996)).toBeLessThan(0.0006);
  });

  it('narrows as the level drops', () => {
    const wide = bootstrapCI(RUN_A, { level: 0.99 });
    const narrow = bootstrapCI(RUN_A, { level: 0.5 });
    expect(wide.lower).toBeLessThan(narrow.lower);
    expect(wide.upper).toBeGreaterThan(narrow.upper);
  });

  it('rejects bad options', () => {
    expect(() => bootstrapCI(RUN_A, { level: 1 })).toThrow(RangeError);
    expect(() => bootstrapCI(RUN_A, { samples: 0 })).toThrow(RangeError);
    expect(() => bootstrapCI([])).toThrow(RangeError);
  });
});

describe('effect sizes', () => {
  it("computes Cohen's d_z and Hedges' g for paired samples", () => {
    // d = numpy.array(RUN_A) - numpy.array(RUN_B); numpy.mean(d) / numpy.std(d, ddof=1)
    expect(cohensD(RUN_A, RUN_B)).toBeCloseTo(1.6969227930356159, 10);
    // ... * (1 - 3 / (4 * 11 - 1))
    expect(hedgesG(RUN_A, RUN_B)).toBeCloseTo(1.5785328307308055, 10);
  });
});
