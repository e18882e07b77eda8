import { describe, expect, it } from 'vitest';
import { adjustPValues, benjaminiHochberg, bonferroni, holm } from '@assay/stats';

// Seven comparisons with a tie (0.04 twice); m = 7.
const PS = [0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.5];
// Five comparisons where Holm and Bonferroni hit the cap of 1.
const PS2 = [0.9, 0.02, 0.6, 0.001, 0.35];

function expectAll(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 12));
}

describe('bonferroni', () => {
  it('multiplies by m and caps at 1 (hand computation)', () => {
    // 7·p: 0.07, 0.28, 0.21, 0.035, 1.4 → 1, 0.28, 3.5 → 1
    expectAll(bonferroni(PS), [0.07, 0.28, 0.21, 0.035, 1, 0.28, 1]);
    // 5·p: 4.5 → 1, 0.1, 3 → 1, 0.005, 1.75 → 1
    expectAll(bonferroni(PS2), [1, 0.1, 1, 0.005, 1]);
  });
});

describe('holm', () => {
  it('steps down with a running maximum (hand computation)', () => {
    // Sorted: 0.005·7 = 0.035, 0.01·6 = 0.06, 0.03·5 = 0.15, 0.04·4 = 0.16,
    // 0.04·3 = 0.12 → max 0.16, 0.2·2 = 0.4, 0.5·1 = 0.5; back in input order:
    expectAll(holm(PS), [0.06, 0.16, 0.15, 0.035, 0.4, 0.16, 0.5]);
    // Sorted: 0.001·5 = 0.005, 0.02·4 = 0.08, 0.35·3 → 1, 0.6·2 → 1, 0.9·1 = 0.9 → max 1
    expectAll(holm(PS2), [1, 0.08, 1, 0.005, 1]);
  });
});

describe('benjaminiHochberg', () => {
  it('matches scipy.stats.false_discovery_control', () => {
    // stats.false_discovery_control([0.01,0.04,0.03,0.005,0.20,0.04,0.50], method='bh')
    expectAll(
      benjaminiHochberg(PS),
      [
        0.035, 0.055999999999999994, 0.055999999999999994, 0.035, 0.23333333333333336,
        0.055999999999999994, 0.5,
      ],
    );
    // stats.false_discovery_control([0.9,0.02,0.6,0.001,0.35], method='bh')
    expectAll(benjaminiHochberg(PS2), [0.9, 0.05, 0.75, 0.005, 0.5833333333333334]);
  });

  it('is monotone in the raw p-values', () => {
    const adjusted = benjaminiHochberg(PS);
    const order = PS.map((_, i) => i).sort((a, b) => PS[a]! - PS[b]!);
    for (let k = 1; k < order.length; k++) {
      expect(adjusted[order[k]!]!).toBeGreaterThanOrEqual(adjusted[order[k - 1]!]!);
    }
  });
});

describe('adjustPValues', () => {
  it('dispatches on the method name', () => {
    expect(adjustPValues(PS, 'bonferroni')).toEqual(bonferroni(PS));
    expect(adjustPValues(PS, 'holm')).toEqual(holm(PS));
    expect(adjustPValues(PS, 'bh')).toEqual(benjaminiHochberg(PS));
    expect(adjustPValues(PS, 'none')).toEqual(PS);
    expect(adjustPValues(PS, 'none')).not.toBe(PS);
  });

  it('passes NaN through without counting it as a hypothesis', () => {
    const withNaN = [0.01, Number.NaN, 0.04];
    const holmed = holm(withNaN);
    expect(holmed[1]).toBeNaN();
    // m = 2: 0.01·2 = 0.02, 0.04·1 = 0.04
    expect(holmed[0]).toBeCloseTo(0.02, 15);
    expect(holmed[2]).toBeCloseTo(0.04, 15);
    expect(bonferroni(withNaN)[2]).toBeCloseTo(0.08, 15);
  });

  it('handles an empty family and rejects values outside [0, 1]', () => {
    expect(adjustPValues([], 'holm')).toEqual([]);
    expect(() => holm([0.5, 1.2])).toThrow(RangeError);
    expect(() => benjaminiHochberg([-0.1])).toThrow(RangeError);
    expect(() => adjustPValues([0.5], 'sidak' as never)).toThrow(RangeError);
  });
});
