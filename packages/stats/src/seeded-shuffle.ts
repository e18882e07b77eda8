import { createRng } from './rng.js';

/**
 * A permutation of 0 … n−1 drawn by a Fisher–Yates shuffle from {@link createRng}(seed):
 * element i of the result is the original index shown at position i. The same seed always
 * gives the same order.
 *
 * @example
 * const order = seededPermutation(3, 7); // e.g. [2, 0, 1]: position A shows item 2
 */
export function seededPermutation(n: number, seed: number): number[] {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new RangeError(`seededPermutation: n must be a non-negative integer, got ${String(n)}`);
  const order = Array.from({ length: n }, (_, i) => i);
  const rng = createRng(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.nextInt(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * A 32-bit seed for one key (a topic id) under a base seed: FNV-1a over the UTF-8 bytes of
 * `${base}:${key}`. Gives every topic its own reproducible shuffle.
 */
export function keyedSeed(base: number, key: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(`${base}:${key}`)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
