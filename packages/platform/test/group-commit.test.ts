import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/core/group-commit.js';

/** A flush that records each batch it is given and answers with the items doubled. */
function recorder() {
  const batches: number[][] = [];
  const flush = async (items: number[]) => {
    batches.push([...items]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return items.map((n) => n * 2);
  };
  return { batches, flush };
}

describe('GroupCommit', () => {
  it('answers items added in the same tick with one flush, each with its own result', async () => {
    const { batches, flush } = recorder();
    const group = new GroupCommit(flush);
    const results = await Promise.all([1, 2, 3].map((n) => group.add(n)));
    expect(results).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('gathers what arrives during a flush into the next one', async () => {
    const { batches, flush } = recorder();
    const group = new GroupCommit(flush);
    const first = group.add(1);
    // Wait until the first flush has started, then add two more while it runs.
    await new Promise((resolve) => setImmediate(resolve));
    const later = [group.add(2), group.add(3)];
    expect(await Promise.all([first, ...later])).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it('never flushes more than max items at once', async () => {
    const { batches, flush } = recorder();
    const group = new GroupCommit(flush, 2);
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => group.add(n)));
    expect(results).toEqual([2, 4, 6, 8, 10]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('rejects every item of a failed flush and goes on with the next batch', async () => {
    let calls = 0;
    const group = new GroupCommit<number, number>(async (items) => {
      calls++;
      if (calls === 1) throw new Error('database gone');
      return items;
    }, 2);
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => group.add(n)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((outcomes[0] as PromiseRejectedResult).reason.message).toBe('database gone');
    expect((outcomes[2] as PromiseFulfilledResult<number>).value).toBe(3);
    // Idle again: a new item starts a new flush.
    expect(await group.add(7)).toBe(7);
  });
});
