import { createMiddleware } from 'hono/factory';
import { whileWanted } from '@assay/platform';
import { ApiError } from './errors.js';
import type { AppEnv } from '../router.js';

/**
 * Heavy computations take turns: at most `maxRunning` at once, the next `maxWaiting` wait
 * in order of arrival, and any more are answered 503 `busy` with Retry-After. Each one is
 * bounded (the use-cases refuse work over their caps) and computed a slice at a time, so
 * the server keeps answering others meanwhile; taking turns bounds the memory they hold
 * together, whoever sends many at once.
 *
 * A request waits at most `maxWaitMs` for its turn, then is answered 503 `busy`: well
 * before a connection's idle timeout (120 s) would reset it with no answer at all. A
 * request whose client hangs up leaves the queue, and one computing stops at its next slice.
 */
export class ComputationGate {
  #running = 0;
  readonly #waiting: Array<{ start: () => void }> = [];

  constructor(
    readonly maxRunning = 2,
    readonly maxWaiting = 32,
    readonly maxWaitMs = 60_000,
  ) {}

  /** Computations running now and waiting for their turn. */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  /** Runs `work` in its turn; busy when too many are already waiting or the wait is too long. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#running < this.maxRunning) this.#running++;
    else if (this.#waiting.length < this.maxWaiting) await this.#turn(signal);
    else throw this.#busy();
    try {
      return signal ? await whileWanted(signal, work) : await work();
    } finally {
      // The turn passes to the next one waiting, or frees the slot.
      const next = this.#waiting.shift();
      if (next) next.start();
      else this.#running--;
    }
  }

  /** Waits in the queue until a turn is handed over; leaves it on time-out or hang-up. */
  #turn(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const leave = (error: Error) => {
        const at = this.#waiting.indexOf(entry);
        if (at < 0) return;
        this.#waiting.splice(at, 1);
        settle();
        reject(error);
      };
      const onAbort = () => leave(new ApiError('busy', 'the client went away before its turn'));
      const timer = setTimeout(() => leave(this.#busy()), this.maxWaitMs);
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const entry = {
        start: () => {
          settle();
          resolve();
        },
      };
      this.#waiting.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #busy(): ApiError {
    return new ApiError(
      'busy',
      `the server is computing ${this.#running} requests and has ${this.#waiting.length} waiting; try again in a few seconds`,
      undefined,
      { 'retry-after': '5' },
    );
  }
}

/** Runs the rest of the request in its turn of the app's {@link ComputationGate}. */
export const computing = createMiddleware<AppEnv>((c, next) =>
  c.var.computations.run(next, c.req.raw.signal),
);
