import { createMiddleware } from 'hono/factory';
import { ApiError } from './errors.js';
import type { AppEnv } from '../router.js';

/**
 * Heavy computations take turns: at most `maxRunning` at once, the next `maxWaiting` wait
 * in order of arrival, and any more are answered 503 `busy` with Retry-After. Each one is
 * bounded (the use-cases refuse work over their caps) and computed a slice at a time, so
 * the server keeps answering others meanwhile; taking turns bounds the memory they hold
 * together, whoever sends many at once.
 */
export class ComputationGate {
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(
    readonly maxRunning = 2,
    readonly maxWaiting = 32,
  ) {}

  /** Computations running now and waiting for their turn. */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  /** Runs `work` in its turn; busy when too many are already waiting. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running < this.maxRunning) this.#running++;
    else if (this.#waiting.length < this.maxWaiting)
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else
      throw new ApiError(
        'busy',
        `the server is computing ${this.#running} requests and has ${this.#waiting.length} waiting; try again in a few seconds`,
        undefined,
        { 'retry-after': '5' },
      );
    try {
      return await work();
    } finally {
      // The turn passes to the next one waiting, or frees the slot.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

/** Runs the rest of the request in its turn of the app's {@link ComputationGate}. */
export const computing = createMiddleware<AppEnv>((c, next) => c.var.computations.run(next));
