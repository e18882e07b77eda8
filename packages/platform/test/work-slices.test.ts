import { describe, expect, it } from 'vitest';
import { ComputationStoppedError, inSlices, whileWanted } from '../src/core/work-slices.js';

/** Steps that spin about 1 ms each, counting how many ran, forever. */
function* spinning(count: { steps: number }): Generator<void, never, void> {
  for (;;) {
    const until = performance.now() + 1;
    while (performance.now() < until);
    count.steps++;
    yield;
  }
}

describe('sliced computations', () => {
  it('run to their end, with or without a signal', async () => {
    function* three(): Generator<void, number, void> {
      yield;
      yield;
      return 3;
    }
    expect(await inSlices(three())).toBe(3);
    expect(await whileWanted(new AbortController().signal, () => inSlices(three()))).toBe(3);
  });

  it('stop at the next slice once whoever asked has gone, and run no step after', async () => {
    const hangUp = new AbortController();
    const count = { steps: 0 };
    const computing = whileWanted(hangUp.signal, () => inSlices(spinning(count)));
    setTimeout(() => hangUp.abort(), 50);
    await expect(computing).rejects.toBeInstanceOf(ComputationStoppedError);
    const atStop = count.steps;
    expect(atStop).toBeGreaterThan(5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(count.steps).toBe(atStop);
  });

  it('outside whileWanted, never stop on their own', async () => {
    function* fifty(count: { steps: number }): Generator<void, string, void> {
      for (let i = 0; i < 50; i++) {
        const until = performance.now() + 1;
        while (performance.now() < until);
        count.steps++;
        yield;
      }
      return 'done';
    }
    const count = { steps: 0 };
    expect(await inSlices(fifty(count))).toBe('done');
    expect(count.steps).toBe(50);
  });
});
