/** A seeded pseudo-random number generator (xoshiro128**); the only randomness in this package. */
export interface Rng {
  /** A float uniformly distributed in [0, 1), with 32 random bits. */
  next(): number;
  /** An unsigned 32-bit integer. */
  nextUint32(): number;
  /** An integer uniformly distributed in [0, n), without modulo bias; 1 ≤ n ≤ 2^32. */
  nextInt(n: number): number;
}

const TWO_32 = 4294967296;

/**
 * Creates a xoshiro128** generator (Blackman & Vigna) whose 128-bit state is filled from `seed`
 * by splitmix32, so nearby seeds give unrelated streams. The same seed always yields the same
 * sequence on every platform. `seed` must be a safe integer (negative values are allowed).
 *
 * @example
 * const rng = createRng(42);
 * const coin = rng.next() < 0.5;
 */
export function createRng(seed: number): Rng {
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`createRng: seed must be a safe integer, got ${String(seed)}`);
  }
  // Fold the high bits of a 53-bit seed into the low word so every safe integer matters.
  const low = seed >>> 0;
  const high = Math.floor(seed / TWO_32) >>> 0;
  let mix = (low ^ Math.imul(high, 0x9e3779b9)) >>> 0;
  const splitmix32 = (): number => {
    mix = (mix + 0x9e3779b9) >>> 0;
    let z = mix;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let s0 = splitmix32();
  let s1 = splitmix32();
  let s2 = splitmix32();
  let s3 = splitmix32();
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1; // the all-zero state is a fixed point

  const nextUint32 = (): number => {
    const product = Math.imul(s1, 5);
    const result = Math.imul((product << 7) | (product >>> 25), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = (s3 << 11) | (s3 >>> 21);
    return result;
  };

  return {
    nextUint32,
    next: () => nextUint32() / TWO_32,
    nextInt(n: number): number {
      if (!Number.isInteger(n) || n < 1 || n > TWO_32) {
        throw new RangeError(`Rng.nextInt: n must be an integer in [1, 2^32], got ${String(n)}`);
      }
      // Reject the top sliver of the 32-bit range that would make some residues likelier.
      const limit = TWO_32 - (TWO_32 % n);
      for (;;) {
        const v = nextUint32();
        if (v < limit) return v % n;
      }
    },
  };
}
