import { describe, expect, it } from 'vitest';
import { claimBatchSize, maxHeldTasks } from '../src/index.js';

describe('judge worker claims', () => {
  it('claims a quarter of the concurrency at a time and holds two batches ahead', () => {
    expect([1, 4, 8, 10, 64].map(claimBatchSize)).toEqual([1, 1, 2, 3, 16]);
    // concurrency + 2 × batch: 1 + 2, 8 + 4, 10 + 6, 64 + 32
    expect([1, 8, 10, 64].map(maxHeldTasks)).toEqual([3, 12, 16, 96]);
  });
});
