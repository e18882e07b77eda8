import { describe, expect, it } from 'vitest';
import {
  binarizedKappas,
  cohenKappa,
  confusionMatrix,
  exactAgreement,
  fleissCounts,
  fleissKappa,
  fleissKappaFromLabels,
  krippendorffAlpha,
} from '@assay/stats';

const repeat = (value: number, times: number): number[] => Array<number>(times).fill(value);

/** Label arrays reproducing a 2 × 2 table [[yy, yn], [ny, nn]] (1 = yes, 0 = no). */
function fromTable(yy: number, yn: number, ny: number, nn: number): [number[], number[]] {
  const a = [...repeat(1, yy + yn), ...repeat(0, ny + nn)];
  const b = [...repeat(1, yy), ...repeat(0, yn), ...repeat(1, ny), ...repeat(0, nn)];
  return [a, b];
}

describe('confusionMatrix and exactAgreement', () => {
  it('cross-tabulates rows = a, columns = b', () => {
    const a = [0, 1, 2, 2, 1, 0];
    const b = [0, 2, 2, 1, 1, 1];
    expect(confusionMatrix(a, b)).toEqual({
      labels: [0, 1, 2],
      matrix: [
        [1, 1, 0],
        [0, 1, 1],
        [0, 1, 1],
      ],
    });
    expect(exactAgreement(a, b)).toBeCloseTo(3 / 6, 15);
  });

  it('keeps declared labels, unused ones included, and rejects labels outside them', () => {
    expect(confusionMatrix([3, 0], [3, 3], [3, 2, 1, 0]).matrix).toEqual([
      [1, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [1, 0, 0, 0],
    ]);
    expect(() => confusionMatrix([0, 4], [0, 1], [0, 1, 2, 3])).toThrow(/a\[1\] = 4/);
    expect(() => confusionMatrix([0], [0, 1])).toThrow(RangeError);
  });
});

describe('cohenKappa', () => {
  it('reproduces the textbook 2 × 2 examples', () => {
    // Wikipedia "Cohen's kappa", worked example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no:
    // p_o = 0.7, p_e = 0.5, κ = 0.4.
    expect(cohenKappa(...fromTable(20, 5, 10, 15))).toBeCloseTo(0.4, 12);
    // Same article, "same percentages but different numbers": κ = 0.1304 and 0.2593.
    expect(cohenKappa(...fromTable(45, 15, 25, 15))).toBeCloseTo(0.1304, 4);
    expect(cohenKappa(...fromTable(25, 35, 5, 35))).toBeCloseTo(0.2593, 4);
  });

  it('reproduces the Artstein & Poesio (2008) examples used by scikit-learn', () => {
    // scikit-learn test_cohen_kappa (Table 1): assert_almost_equal(kappa, 0.348, decimal=3)
    const t1a = [...repeat(0, 40), ...repeat(1, 60)];
    const t1b = [...repeat(0, 20), ...repeat(1, 20), ...repeat(0, 10), ...repeat(1, 50)];
    expect(Math.abs(cohenKappa(t1a, t1b) - 0.348)).toBeLessThan(5e-4);
    expect(cohenKappa(t1b, t1a)).toBe(cohenKappa(t1a, t1b));
    // Table 4, three classes: 0.8013 (decimal=4)
    const t4a = [...repeat(0, 46), ...repeat(1, 44), ...repeat(2, 10)];
    const t4b = [...repeat(0, 52), ...repeat(1, 32), ...repeat(2, 16)];
    expect(Math.abs(cohenKappa(t4a, t4b) - 0.8013)).toBeLessThan(5e-5);
    // Weighting example: none 0.9315, linear 0.9412, quadratic 0.9541 (decimal=4)
    const wb = [...repeat(0, 50), ...repeat(1, 40), ...repeat(2, 10)];
    expect(Math.abs(cohenKappa(t4a, wb) - 0.9315)).toBeLessThan(5e-5);
    expect(Math.abs(cohenKappa(t4a, wb, { weights: 'linear' }) - 0.9412)).toBeLessThan(5e-5);
    expect(Math.abs(cohenKappa(t4a, wb, { weights: 'quadratic' }) - 0.9541)).toBeLessThan(5e-5);
  });

  describe('with a grade nobody used', () => {
    // Graded 0–3, grade 1 never used by either rater.
    const a = [0, 0, 2, 2, 3, 3, 0, 2, 3, 3, 2, 0];
    const b = [0, 2, 2, 3, 3, 2, 0, 0, 3, 2, 2, 0];
    // Expected values from the pair-average form of weighted kappa, computed with numpy:
    //   kappa = 1 - mean(w(a, b)) / mean(w(a[:, None], b[None, :]))
    // with w = (u != v), |u − v| or (u − v)² on scale positions (0..3 with labels; 0, 2, 3
    // mapped to positions 0, 1, 2 without).
    it('weights over the declared scale', () => {
      const labels = [0, 1, 2, 3];
      expect(cohenKappa(a, b, { labels })).toBeCloseTo(0.3749999999999999, 12);
      expect(cohenKappa(a, b, { labels, weights: 'linear' })).toBeCloseTo(0.553191489361702, 12);
      expect(cohenKappa(a, b, { labels, weights: 'quadratic' })).toBeCloseTo(0.691588785046729, 12);
    });

    it('closes the gap when the scale is inferred from the data', () => {
      expect(cohenKappa(a, b)).toBeCloseTo(0.3749999999999999, 12);
      expect(cohenKappa(a, b, { weights: 'linear' })).toBeCloseTo(0.5161290322580645, 12);
      expect(cohenKappa(a, b, { weights: 'quadratic' })).toBeCloseTo(0.6666666666666666, 12);
    });

    it('sorts the declared scale', () => {
      expect(cohenKappa(a, b, { labels: [3, 1, 0, 2], weights: 'linear' })).toBeCloseTo(
        0.553191489361702,
        12,
      );
    });
  });

  it('is 1 on perfect agreement and NaN when no disagreement is possible', () => {
    expect(cohenKappa([0, 1, 2, 1], [0, 1, 2, 1], { weights: 'quadratic' })).toBe(1);
    expect(cohenKappa([1, 1, 1], [1, 1, 1])).toBeNaN();
  });
});

describe('krippendorffAlpha', () => {
  // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders ×
  // 12 units with missing values (unit 12 has a single value and is not pairable).
  // Published: nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797.
  const _ = null;
  const data = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
    [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
  ];

  it('reproduces the published alphas at every level (published to 3 decimals)', () => {
    expect(Math.abs(krippendorffAlpha(data, 'nominal') - 0.743)).toBeLessThan(5e-4);
    expect(Math.abs(krippendorffAlpha(data, 'ordinal') - 0.815)).toBeLessThan(5e-4);
    expect(Math.abs(krippendorffAlpha(data, 'interval') - 0.849)).toBeLessThan(5e-4);
    expect(Math.abs(krippendorffAlpha(data, 'ratio') - 0.797)).toBeLessThan(5e-4);
  });

  it('ignores units with fewer than two values', () => {
    const trimmed = data.map((row) => row.slice(0, 11));
    expect(krippendorffAlpha(trimmed, 'interval')).toBe(krippendorffAlpha(data, 'interval'));
    const withEmptyUnit = data.map((row) => [...row, undefined]);
    expect(krippendorffAlpha(withEmptyUnit, 'nominal')).toBe(krippendorffAlpha(data, 'nominal'));
  });

  it('reproduces the two-coder binary example (section A, α = 0.095)', () => {
    const binary = [
      [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
      [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
    ];
    // By hand: n = 20, n₀ = 14, n₁ = 6, o₀₁ = 4 → α = 1 − 19·4 / (14·6) = 8/84.
    expect(krippendorffAlpha(binary, 'nominal')).toBeCloseTo(8 / 84, 12);
  });

  it('makes the ordinal metric depend only on the order of values', () => {
    const recoded = data.map((row) => row.map((v) => (v === null ? null : 10 ** v)));
    expect(krippendorffAlpha(recoded, 'ordinal')).toBeCloseTo(
      krippendorffAlpha(data, 'ordinal'),
      12,
    );
    expect(krippendorffAlpha(recoded, 'interval')).not.toBeCloseTo(
      krippendorffAlpha(data, 'interval'),
      2,
    );
  });

  it('is NaN without expected disagreement and rejects ragged input', () => {
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [1, 1],
        ],
        'nominal',
      ),
    ).toBeNaN();
    expect(
      krippendorffAlpha(
        [
          [1, null],
          [null, 2],
        ],
        'nominal',
      ),
    ).toBeNaN();
    expect(() => krippendorffAlpha([[1, 2], [1]], 'nominal')).toThrow(RangeError);
    expect(() => krippendorffAlpha(data, 'cardinal' as never)).toThrow(RangeError);
  });
});

describe('fleissKappa', () => {
  // Wikipedia "Fleiss' kappa" worked example: 10 subjects, 14 raters, 5 categories.
  // Published: P̄ = 0.378, P̄e = 0.213, κ = 0.210.
  const table = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
  ];

  it('reproduces the published example', () => {
    expect(Math.abs(fleissKappa(table) - 0.21)).toBeLessThan(5e-4);
  });

  it('builds the same table from label arrays (raters × items)', () => {
    // Hand the ratings of each subject out to 14 raters, category by category.
    const raters = Array.from({ length: 14 }, () => new Array<number>(table.length).fill(0));
    table.forEach((row, item) => {
      let r = 0;
      row.forEach((count, category) => {
        for (let k = 0; k < count; k++) raters[r++]![item] = category + 1;
      });
    });
    expect(fleissCounts(raters)).toEqual({ labels: [1, 2, 3, 4, 5], counts: table });
    expect(fleissKappaFromLabels(raters)).toBe(fleissKappa(table));
    // An unused declared category changes nothing.
    expect(fleissKappaFromLabels(raters, [0, 1, 2, 3, 4, 5])).toBeCloseTo(fleissKappa(table), 15);
  });

  it('rejects rows with different numbers of raters', () => {
    expect(() =>
      fleissKappa([
        [1, 1],
        [2, 1],
      ]),
    ).toThrow(RangeError);
    expect(() => fleissKappa([[1, 0]])).toThrow(/at least 2 raters/);
  });
});

describe('binarizedKappas', () => {
  it('binarizes at every threshold above the lowest grade (hand computation)', () => {
    const a = [0, 1, 2, 3, 2, 1, 0, 3];
    const b = [0, 2, 2, 3, 1, 1, 1, 2];
    // t = 1: agreement 7/8, p_e = (6·7 + 2·1)/64 = 44/64 → κ = (56 − 44)/(64 − 44) = 0.6
    // t = 2: agreement 6/8, p_e = 0.5 → κ = 0.5
    // t = 3: agreement 7/8, p_e = (2·1 + 6·7)/64 = 44/64 → κ = 0.6
    const result = binarizedKappas(a, b, [0, 1, 2, 3]);
    expect(result.map((r) => r.threshold)).toEqual([1, 2, 3]);
    const expected = [
      [0.6, 7 / 8],
      [0.5, 6 / 8],
      [0.6, 7 / 8],
    ];
    result.forEach((r, i) => {
      expect(r.kappa).toBeCloseTo(expected[i]![0]!, 12);
      expect(r.agreement).toBeCloseTo(expected[i]![1]!, 15);
    });
  });

  it('rejects grades outside the scale', () => {
    expect(() => binarizedKappas([0, 4], [0, 1], [0, 1, 2, 3])).toThrow(/a\[1\] = 4/);
  });
});
