import { describe, expect, it } from 'vitest';
import {
  clusterBootstrap,
  clusterBootstrapSteps,
  cohenKappa,
  cohenKappaFromTable,
  coincidenceMatrix,
  confusionMatrix,
  createRng,
  exactAgreementFromTable,
  fleissKappaFromLabels,
  fleissKappaFromTable,
  gapAwareTau,
  gwetAC,
  gwetACFromTable,
  kendallTauAtTop,
  kendallTauB,
  krippendorffAlpha,
  krippendorffAlphaFromCoincidences,
  krippendorffAlphaFromTable,
  pabak,
  predictionPoweredMean,
  quantileSorted,
  runSteps,
} from '@assay/stats';

/** Label arrays reproducing a square table (rows a, columns b) over labels 0..k−1. */
function fromTable(table: number[][]): [number[], number[]] {
  const a: number[] = [];
  const b: number[] = [];
  table.forEach((row, i) =>
    row.forEach((count, j) => {
      for (let c = 0; c < count; c++) {
        a.push(i);
        b.push(j);
      }
    }),
  );
  return [a, b];
}

describe('predictionPoweredMean', () => {
  // Four labelled topics of a population of eight; by hand:
  //   ȳ = 0.5, f̄ₙ = 0.5, f̄_N = 3.8/8 = 0.475
  //   y − ȳ = (0.1, −0.1, 0.3, −0.3), f − f̄ₙ = (0, 0, 0.4, −0.4)
  //   S²(y) = 0.2/3, S²(f) = 0.32/3, S(y, f) = 0.24/3 → λ = 0.24/0.32 = 0.75
  //   θ̂ = 0.5 + 0.75·(0.475 − 0.5) = 0.48125
  //   S²(y − λf) = (0.2 − 2·0.75·0.24 + 0.75²·0.32)/3 = 0.02/3
  //   se = √((1 − 4/8)·(0.02/3)/4) = √(1/1200); t(0.975, 3) = 3.182446305284263
  const y = [0.6, 0.4, 0.8, 0.2];
  const f = [0.5, 0.5, 0.9, 0.1];
  const population = [0.5, 0.5, 0.9, 0.1, 0.3, 0.7, 0.6, 0.2];
  const t3 = 3.182446305284263;

  it('gives the hand-computed estimate, λ and interval', () => {
    const r = predictionPoweredMean(y, f, population);
    expect(r.lambda).toBeCloseTo(0.75, 12);
    expect(r.estimate).toBeCloseTo(0.48125, 12);
    expect(r.se).toBeCloseTo(Math.sqrt(1 / 1200), 12);
    expect(r.lower).toBeCloseTo(0.48125 - t3 * Math.sqrt(1 / 1200), 10);
    expect(r.upper).toBeCloseTo(0.48125 + t3 * Math.sqrt(1 / 1200), 10);
    expect([r.n, r.N, r.df]).toEqual([4, 8, 3]);
    expect(r.predictedMean).toBeCloseTo(0.475, 12);
    expect(r.residualVariance).toBeCloseTo(0.02 / 3, 12);
    // The population may be given by its mean and size alone.
    const summed = predictionPoweredMean(y, f, { mean: r.predictedMean, size: 8 });
    expect(summed).toEqual(r);
    // The labels alone: 0.5 ± t·√(0.5·(0.2/3)/4).
    const se = Math.sqrt((0.5 * (0.2 / 3)) / 4);
    expect(r.classical.estimate).toBeCloseTo(0.5, 12);
    expect(r.classical.se).toBeCloseTo(se, 12);
    expect(r.classical.lower).toBeCloseTo(0.5 - t3 * se, 10);
    expect(r.classical.upper).toBeCloseTo(0.5 + t3 * se, 10);
    // scipy: 2 * stats.t.cdf(-0.48125 / sqrt(1/1200), 3)
    expect(r.p).toBeCloseTo(0.00046988279100696747, 12);
  });

  it('clips λ to [0, 1] and takes a fixed λ as given', () => {
    // Predictions that move twice as little as the labels: S(y,f)/S²(f) = 2 → λ = 1.
    const steep = predictionPoweredMean([0, 1, 2], [0, 0.5, 1], [0, 0.5, 1, 1]);
    expect(steep.lambda).toBe(1);
    expect(steep.estimate).toBeCloseTo(1 + (0.625 - 0.5), 12);
    // Predictions against the labels: negative covariance → λ = 0, the human-only mean.
    const against = predictionPoweredMean([0, 1, 2], [1, 0.5, 0], [1, 0.5, 0, 0]);
    expect(against.lambda).toBe(0);
    expect(against.estimate).toBe(against.classical.estimate);
    expect(against.se).toBe(against.classical.se);
    // Constant predictions carry no information: λ = 0.
    expect(predictionPoweredMean([0, 1], [0.3, 0.3], [0.3, 0.3, 0.5]).lambda).toBe(0);
    // Plain PPI (λ = 1): ȳ + f̄_N − f̄ₙ.
    const plain = predictionPoweredMean(y, f, population, { lambda: 1 });
    expect(plain.lambda).toBe(1);
    expect(plain.estimate).toBeCloseTo(0.5 + 0.475 - 0.5, 12);
  });

  it('knows the mean exactly when every unit is labelled', () => {
    const r = predictionPoweredMean([0.2, 0.4, 0.9], [0.1, 0.5, 0.7], [0.1, 0.5, 0.7]);
    expect(r.estimate).toBeCloseTo(0.5, 12);
    expect(r.se).toBe(0);
    expect([r.lower, r.upper]).toEqual([r.estimate, r.estimate]);
    expect(r.p).toBe(0);
    expect(predictionPoweredMean([0, 0], [0, 0], [0, 0]).p).toBe(1);
  });

  it('rejects what it cannot estimate from', () => {
    expect(() => predictionPoweredMean([1], [1], [1, 2])).toThrow(/at least 2/);
    expect(() => predictionPoweredMean([1, 2], [1], [1, 2])).toThrow(/predictions/);
    expect(() => predictionPoweredMean([1, 2, 3], [1, 2, 3], [1, 2])).toThrow(/smaller/);
    expect(() => predictionPoweredMean([1, Number.NaN], [1, 2], [1, 2])).toThrow(RangeError);
    expect(() => predictionPoweredMean([1, 2], [1, 2], [1, 2], { level: 1 })).toThrow(RangeError);
    expect(() => predictionPoweredMean([1, 2], [1, 2], { mean: 1, size: 2.5 })).toThrow(RangeError);
  });

  it('covers the population mean at about the nominal rate with a biased, noisy judge', () => {
    // A simulated collection: 60 topics whose true score y is known, an LLM judge that
    // overrates by 0.1 with noise, and 400 seeded draws of 15 topics labelled by people.
    const rng = createRng(7);
    const normal = () => {
      const u = 1 - rng.next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
    };
    const N = 60;
    const truth = Array.from({ length: N }, () => Math.min(1, Math.max(0, 0.5 + 0.2 * normal())));
    const judge = truth.map((v) => v + 0.1 + 0.05 * normal());
    const mean = truth.reduce((s, v) => s + v, 0) / N;
    let covered = 0;
    let coveredHuman = 0;
    let width = 0;
    let humanWidth = 0;
    let bias = 0;
    const draws = 400;
    for (let d = 0; d < draws; d++) {
      const order = Array.from({ length: N }, (_, i) => i);
      for (let i = N - 1; i > 0; i--) {
        const j = rng.nextInt(i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      const sample = order.slice(0, 15);
      const r = predictionPoweredMean(
        sample.map((i) => truth[i]!),
        sample.map((i) => judge[i]!),
        judge,
      );
      if (r.lower <= mean && mean <= r.upper) covered++;
      if (r.classical.lower <= mean && mean <= r.classical.upper) coveredHuman++;
      width += r.upper - r.lower;
      humanWidth += r.classical.upper - r.classical.lower;
      bias += r.estimate - mean;
    }
    // Seed 7 gives 94.5% (human-only 95.75%) and a width ratio of 0.29.
    expect(covered / draws).toBeGreaterThan(0.92);
    expect(covered / draws).toBeLessThan(0.98);
    expect(coveredHuman / draws).toBeGreaterThan(0.91);
    // The judge's bias is corrected (the LLM-only mean is 0.1 too high) ...
    expect(Math.abs(bias / draws)).toBeLessThan(0.01);
    // ... and its information narrows the interval a lot.
    expect(width / humanWidth).toBeLessThan(0.5);
  });
});

describe('Gwet AC1/AC2, PABAK and the table forms of kappa, alpha and Fleiss', () => {
  // Rows rater A, columns rater B, labels 0..2; n = 50, 35 on the diagonal (p_o = 0.7).
  // Row sums 26, 17, 7; column sums 24, 17, 9 → π = (0.5, 0.34, 0.16), Σπ(1 − π) = 0.6088.
  const table = [
    [20, 5, 1],
    [4, 10, 3],
    [0, 2, 5],
  ];
  const [a, b] = fromTable(table);

  it('AC1 = (p_o − p_e)/(1 − p_e) with p_e = Σπ(1 − π)/(q − 1)', () => {
    // p_e = 0.6088/2 = 0.3044; AC1 = 0.3956/0.6956
    expect(gwetAC(a, b)).toBeCloseTo(0.3956 / 0.6956, 12);
    expect(gwetACFromTable(table)).toBeCloseTo(0.3956 / 0.6956, 12);
  });

  it('AC2 with linear and quadratic agreement weights', () => {
    // Linear weights 1, ½, 0: p_a = 0.7 + ½·14/50 = 0.84; Σw = 3 + 4·½ = 5;
    // p_e = 5·0.6088/(3·2) = 0.5073…; AC2 = (0.84 − p_e)/(1 − p_e).
    const peLinear = (5 * 0.6088) / 6;
    expect(gwetAC(a, b, { weights: 'linear' })).toBeCloseTo((0.84 - peLinear) / (1 - peLinear), 12);
    // Quadratic weights 1, ¾, 0: p_a = 0.7 + ¾·14/50 = 0.91; Σw = 3 + 4·¾ = 6; p_e = 0.6088.
    expect(gwetAC(a, b, { weights: 'quadratic' })).toBeCloseTo((0.91 - 0.6088) / (1 - 0.6088), 12);
  });

  it('counts unused grades of the declared scale in q', () => {
    // On a 0–3 scale (grade 3 unused): π gains a 0, q = 4, p_e = 0.6088/3.
    const pe = 0.6088 / 3;
    expect(gwetAC(a, b, { labels: [0, 1, 2, 3] })).toBeCloseTo((0.7 - pe) / (1 - pe), 12);
    // PABAK = (q·p_o − 1)/(q − 1): (3·0.7 − 1)/2 = 0.55 on 0–2, (4·0.7 − 1)/3 = 0.6 on 0–3.
    expect(pabak(a, b)).toBeCloseTo(0.55, 12);
    expect(pabak(a, b, { labels: [0, 1, 2, 3] })).toBeCloseTo(0.6, 12);
  });

  it('stays high where kappa collapses (the kappa paradox)', () => {
    // 118 both 0, 5 and 2 disagreements, none both 1: p_o = 0.944, κ < 0.
    const skewed = [
      [118, 5],
      [2, 0],
    ];
    const [x, y] = fromTable(skewed);
    expect(cohenKappa(x, y)).toBeLessThan(0);
    // π = (243/250, 7/250): p_e = 2·0.972·0.028 = 0.054432; AC1 = (0.944 − p_e)/(1 − p_e).
    expect(gwetAC(x, y)).toBeCloseTo((0.944 - 0.054432) / (1 - 0.054432), 12);
    expect(pabak(x, y)).toBeCloseTo(2 * 0.944 - 1, 12);
  });

  it('table forms equal the label-array forms', () => {
    for (const weights of ['none', 'linear', 'quadratic'] as const)
      expect(cohenKappaFromTable(table, weights)).toBeCloseTo(cohenKappa(a, b, { weights }), 14);
    for (const level of ['nominal', 'ordinal', 'interval'] as const)
      expect(krippendorffAlphaFromTable(table, [0, 1, 2], level)).toBeCloseTo(
        krippendorffAlpha([a, b], level),
        14,
      );
    expect(fleissKappaFromTable(table)).toBeCloseTo(fleissKappaFromLabels([a, b]), 14);
    expect(exactAgreementFromTable(table)).toBe(0.7);
    // An empty table has no agreement to speak of.
    expect(cohenKappaFromTable([[0]])).toBeNaN();
  });

  it('coincidence matrices of disjoint units add up to the whole', () => {
    const units = [[0, 0, 1], [2, 2], [1, 2, 2, 0], [1]];
    const scale = [0, 1, 2];
    const whole = coincidenceMatrix(units, scale);
    const first = coincidenceMatrix(units.slice(0, 2), scale);
    const rest = coincidenceMatrix(units.slice(2), scale);
    const sum = first.map((row, i) => row.map((v, j) => v + rest[i]![j]!));
    expect(sum).toEqual(whole);
    // The same units as four coders with gaps (units are columns), as krippendorffAlpha takes them.
    for (const level of ['nominal', 'ordinal', 'interval'] as const)
      expect(krippendorffAlphaFromCoincidences(whole, scale, level)).toBeCloseTo(
        krippendorffAlpha(
          [
            [0, 2, 1, 1],
            [0, 2, 2, null],
            [1, null, 2, null],
            [null, null, 0, null],
          ],
          level,
        ),
        14,
      );
  });
});

describe('clusterBootstrap', () => {
  // Labels of five topics (clusters of items): the resampled kappa must equal kappa of the
  // concatenated labels of the drawn topics, drawn here independently with the same seed.
  const topics: Array<[number[], number[]]> = [
    [
      [0, 0, 1, 2],
      [0, 1, 1, 2],
    ],
    [
      [1, 1, 0],
      [1, 0, 0],
    ],
    [
      [2, 2, 2, 0, 0],
      [2, 1, 2, 0, 1],
    ],
    [
      [0, 1],
      [0, 1],
    ],
    [
      [0, 0, 0, 2],
      [1, 0, 0, 2],
    ],
  ];
  const labels = [0, 1, 2];
  const tables = topics.map(([x, y]) => confusionMatrix(x, y, labels).matrix);

  it('equals the percentile interval of the statistic on the resampled items', () => {
    const [kappa, alpha] = clusterBootstrap(
      [topics.length],
      ([counts]) => {
        const sum = labels.map(() => labels.map(() => 0));
        tables.forEach((t, c) =>
          t.forEach((row, i) => row.forEach((v, j) => (sum[i]![j]! += v * counts![c]!))),
        );
        return [
          cohenKappaFromTable(sum, 'linear'),
          krippendorffAlphaFromTable(sum, labels, 'ordinal'),
        ];
      },
      { samples: 200, seed: 11 },
    );
    // The reference: the same draws (createRng(11), nextInt(5) five times per resample),
    // the drawn topics' labels concatenated, the statistics computed from label arrays,
    // sorted, and the 2.5% and 97.5% points interpolated as numpy.percentile.
    const rng = createRng(11);
    const kappas: number[] = [];
    const alphas: number[] = [];
    for (let s = 0; s < 200; s++) {
      const x: number[] = [];
      const y: number[] = [];
      for (let i = 0; i < topics.length; i++) {
        const [tx, ty] = topics[rng.nextInt(topics.length)]!;
        x.push(...tx);
        y.push(...ty);
      }
      const k = cohenKappa(x, y, { weights: 'linear', labels });
      if (Number.isFinite(k)) kappas.push(k);
      const al = krippendorffAlpha([x, y], 'ordinal');
      if (Number.isFinite(al)) alphas.push(al);
    }
    const interval = (values: number[]) => {
      const sorted = [...values].sort((p, q) => p - q);
      const at = (q: number) => {
        const h = (sorted.length - 1) * q;
        const lo = Math.floor(h);
        return (
          sorted[lo]! + (h - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!)
        );
      };
      return [at(0.025), at(0.975)];
    };
    expect([kappa!.lower, kappa!.upper]).toEqual(
      interval(kappas).map((v) => expect.closeTo(v, 12)),
    );
    expect([alpha!.lower, alpha!.upper]).toEqual(
      interval(alphas).map((v) => expect.closeTo(v, 12)),
    );
    expect(kappa!.defined).toBe(kappas.length);
  });

  it('is seeded, resamples groups independently, and leaves undefined draws out', () => {
    const stat = (counts: readonly Uint32Array[]) => [counts[0]![0]! - counts[1]![0]!];
    const one = clusterBootstrap([3, 4], stat, { samples: 50, seed: 5 });
    expect(clusterBootstrap([3, 4], stat, { samples: 50, seed: 5 })).toEqual(one);
    expect(clusterBootstrap([3, 4], stat, { samples: 50, seed: 6 })).not.toEqual(one);
    const never = clusterBootstrap([2], () => [Number.NaN], { samples: 10 });
    expect(never[0]!.lower).toBeNaN();
    expect(never[0]!.defined).toBe(0);
    expect(() => clusterBootstrap([0], stat)).toThrow(RangeError);
  });

  it('in steps gives the very numbers of the resampling loop in one piece, yielding often', () => {
    // The loop clusterBootstrap ran in one piece before it was written as steps.
    function inOnePiece(
      groups: number[],
      statistic: (counts: readonly Uint32Array[]) => readonly number[],
      samples: number,
      seed: number,
      level: number,
    ) {
      const rng = createRng(seed);
      const counts = groups.map((size) => new Uint32Array(size));
      let draws: number[][] | undefined;
      for (let b = 0; b < samples; b++) {
        groups.forEach((size, g) => {
          const c = counts[g]!;
          c.fill(0);
          for (let i = 0; i < size; i++) c[rng.nextInt(size)]!++;
        });
        const values = statistic(counts);
        draws ??= values.map(() => []);
        values.forEach((v, k) => {
          if (Number.isFinite(v)) draws![k]!.push(v);
        });
      }
      return draws!.map((values) => {
        const sorted = Float64Array.from(values).sort();
        return {
          lower: quantileSorted(sorted, (1 - level) / 2),
          upper: quantileSorted(sorted, 1 - (1 - level) / 2),
          defined: values.length,
        };
      });
    }
    // Seeded values per cluster; statistics: a weighted mean, a ratio undefined on some
    // draws, and a kappa of counts.
    const statisticOf = (groups: readonly number[]) => {
      const values = groups.map((size, g) => {
        const rng = createRng(100 + g);
        return Array.from({ length: size }, () => rng.next() - 0.3);
      });
      return (counts: readonly Uint32Array[]) => {
        const sums = values.map((v, g) => v.reduce((s, x, i) => s + counts[g]![i]! * x, 0));
        const first = sums[0]! / groups[0]!;
        const last = sums[sums.length - 1]!;
        const c = counts[counts.length - 1]!;
        const table = [
          [counts[0]![0]! + 1, c[1]!],
          [c[0]!, counts[0]![1]! + 1],
        ];
        return [first, last > 0 ? first / last : Number.NaN, cohenKappaFromTable(table)];
      };
    };
    for (const [groups, samples, seed, level, cost] of [
      [[37], 3000, 42, 0.95, 0],
      [[37, 57], 2501, 7, 0.9, 0],
      [[2000], 300, 1, 0.95, 0],
      [[37], 3000, 42, 0.95, 1000],
    ] as const) {
      const statistic = statisticOf(groups);
      const reference = inOnePiece([...groups], statistic, samples, seed, level);
      expect(reference[1]!.defined).toBeGreaterThan(0);
      expect(clusterBootstrap(groups, statistic, { samples, seed, level })).toEqual(reference);
      expect(
        runSteps(clusterBootstrapSteps(groups, statistic, { samples, seed, level, cost })),
      ).toEqual(reference);
      let steps = 0;
      const generator = clusterBootstrapSteps(groups, statistic, { samples, seed, level, cost });
      for (;;) {
        const next = generator.next();
        if (next.done) break;
        steps++;
      }
      // About 4,096 clusters drawn (or their worth of the statistic's cost) a step, at least
      // one resample; then one step per statistic.
      const work = groups.reduce((s, n) => s + n, 0) + cost;
      const perStep = Math.max(1, Math.floor(4096 / work));
      expect(steps).toBe(Math.ceil(samples / perStep) + 3);
    }
  });

  it('quantileSorted interpolates as numpy.percentile', () => {
    // numpy.percentile([1, 2, 4, 8], [2.5, 50, 97.5]) = [1.075, 3.0, 7.7]
    const sorted = [1, 2, 4, 8];
    expect(quantileSorted(sorted, 0.025)).toBeCloseTo(1.075, 12);
    expect(quantileSorted(sorted, 0.5)).toBe(3);
    expect(quantileSorted(sorted, 0.975)).toBeCloseTo(7.7, 12);
    expect(quantileSorted([], 0.5)).toBeNaN();
  });
});

describe('Kendall tau at the top k and the gap-aware tau', () => {
  const x = [0.5, 0.4, 0.3, 0.2, 0.1];
  const y = [0.3, 0.45, 0.5, 0.1, 0.2];

  it('tau at the top k is tau-b over the k best systems under x', () => {
    // Top 3 by x: systems 0, 1, 2; y orders them 2, 1, 0: every pair swapped, τ = −1.
    expect(kendallTauAtTop(x, y, 3)).toBe(-1);
    // Top 4 adds system 3, below all three in y as in x: 3 concordant, 3 discordant.
    expect(kendallTauAtTop(x, y, 4)).toBe(0);
    expect(kendallTauAtTop(x, y, 10)).toBe(kendallTauB(x, y));
    expect(() => kendallTauAtTop(x, y, 1)).toThrow(RangeError);
  });

  it('the gap-aware tau charges little for swaps within the tolerance', () => {
    // Two systems swapped by 0.01 under both, a third far above: with tolerance 0.1 the
    // swap weighs 0.1 (gap 0.01), the two other pairs 1 each: (1 + 1 − 0.1)/2.1.
    const truth = [0.3, 0.31, 0.6];
    const judge = [0.31, 0.3, 0.7];
    expect(gapAwareTau(truth, judge, 0.1)).toBeCloseTo(1.9 / 2.1, 12);
    // Tolerance 0: every pair counts 1, Kendall's tau-a: (2 − 1)/3.
    expect(gapAwareTau(truth, judge, 0)).toBeCloseTo(1 / 3, 12);
    // A swap that one side sees as large is charged fully.
    expect(gapAwareTau([0.3, 0.31], [0.5, 0.2], 0.1)).toBe(-1);
    expect(gapAwareTau([1, 1], [2, 2], 0.1)).toBeNaN();
  });
});
