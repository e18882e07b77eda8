import { describe, expect, it } from 'vitest';
import { createRng } from '@assay/stats';

describe('createRng', () => {
  it('repeats the same sequence for the same seed', () => {
    const a = createRng(123);
    const b = createRng(123);
    for (let i = 0; i < 100; i++) expect(a.nextUint32()).toBe(b.nextUint32());
  });

  it('gives different sequences for nearby and large seeds', () => {
    const first = (seed: number): number[] => {
      const rng = createRng(seed);
      return [rng.nextUint32(), rng.nextUint32(), rng.nextUint32()];
    };
    expect(first(1)).not.toEqual(first(2));
    expect(first(0)).not.toEqual(first(2 ** 32));
    expect(first(-1)).not.toEqual(first(2 ** 32 - 1));
  });

  it('draws floats in [0, 1) with mean ½ and variance 1/12', () => {
    const rng = createRng(9);
    const n = 200_000;
    let sum = 0;
    let squares = 0;
    let inRange = true;
    for (let i = 0; i < n; i++) {
      const u = rng.next();
      if (!(u >= 0 && u < 1)) inRange = false;
      sum += u;
      squares += u * u;
    }
    expect(inRange).toBe(true);
    const mean = sum / n;
    // Standard error of the mean is √(1/12/n) ≈ 0.00065; allow 5 of them.
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.0033);
    expect(Math.abs(squares / n - mean * mean - 1 / 12)).toBeLessThan(0.002);
  });

  it('draws unbiased integers: chi-square over 7 buckets', () => {
    const rng = createRng(2024);
    const counts = new Array<number>(7).fill(0);
    const n = 70_000;
    for (let i = 0; i < n; i++) counts[rng.nextInt(7)]!++;
    const expected = n / 7;
    const chi2 = counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
    // 6 degrees of freedom: P(χ² > 22.46) = 0.001.
    expect(chi2).toBeLessThan(22.46);
    expect(() => rng.nextInt(0)).toThrow(RangeError);
  });

  it('rejects seeds that are not safe integers', () => {
    expect(() => createRng(1.5)).toThrow(RangeError);
    expect(() => createRng(Number.NaN)).toThrow(RangeError);
  });
});
