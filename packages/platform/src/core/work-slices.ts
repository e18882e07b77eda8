// A long computation in a server shares the event loop with every other request: the health
// check, an annotator's save. Written as a generator that yields between small steps, it is
// run here a slice of about SLICE_MS at a time, with a turn of the event loop between slices,
// so nothing waits behind it for long. The CLI runs the same generators to the end at once.
// The generators keep their hot loops in plain functions called once per step: V8 optimises
// a long loop inside a generator function less well.

import { AsyncLocalStorage } from 'node:async_hooks';

/** Milliseconds of computing between two turns of the event loop. */
const SLICE_MS = 10;

/** Resolves on the next turn of the event loop, after pending I/O callbacks have run. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** What a sliced computation throws when whoever asked for it has gone. */
export class ComputationStoppedError extends Error {
  constructor() {
    super('the computation was stopped: whoever asked for it has gone');
    this.name = 'ComputationStoppedError';
  }
}

const wantedWhile = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `work` so that every sliced computation in it stops at its next slice once `signal`
 * aborts: a server stops computing for a client that hung up instead of finishing work
 * nobody will read. The use-cases need not pass the signal down: the slices find it.
 */
export function whileWanted<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return wantedWhile.run(signal, work);
}

/**
 * Runs `steps` to its end in slices of about {@link SLICE_MS}, giving the event loop a turn
 * between slices, and returns its value (or throws what it throws). Inside
 * {@link whileWanted}, throws {@link ComputationStoppedError} at the first slice after its
 * signal aborted.
 */
export async function inSlices<T>(steps: Generator<void, T, void>): Promise<T> {
  const wanted = wantedWhile.getStore();
  let started = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - started >= SLICE_MS) {
      await nextTurn();
      if (wanted?.aborted) {
        steps.return(undefined as T);
        throw new ComputationStoppedError();
      }
      started = performance.now();
    }
  }
}

/** `items` mapped by `map`, a step per thousand items (for {@link inSlices}). */
export function* mapSteps<T, U>(
  items: readonly T[],
  map: (item: T) => U,
): Generator<void, U[], void> {
  const out: U[] = new Array<U>(items.length);
  for (let from = 0; from < items.length; from += 1024) {
    mapRange(items, map, out, from, Math.min(items.length, from + 1024));
    yield;
  }
  return out;
}

// Hot loops stay out of generator functions, which V8 optimises less well.
function mapRange<T, U>(
  items: readonly T[],
  map: (item: T) => U,
  out: U[],
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) out[i] = map(items[i]!);
}
