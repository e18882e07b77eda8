/** Options of {@link RateWindow}. */
export interface RateWindowOptions {
  /** How far back the rate looks, in seconds (default 30). */
  windowSeconds?: number;
  /** Items that must be finished before there is a rate at all (default 5). */
  minItems?: number;
}

/**
 * Items per second over a sliding window of recent progress. The window starts at the
 * first finished item, so the wait for the first answer (connecting, a cold model) does
 * not drag the rate down; until `minItems` items are finished there is no rate yet (the
 * display says "estimating"), and later only the last `windowSeconds` count, so the rate
 * follows a run that speeds up or slows down.
 */
export class RateWindow {
  readonly #windowMs: number;
  readonly #minItems: number;
  /** (time in ms, items finished) readings, oldest first; the first may predate the window. */
  readonly #samples: Array<{ at: number; count: number }> = [];

  constructor(options: RateWindowOptions = {}) {
    this.#windowMs = (options.windowSeconds ?? 30) * 1000;
    this.#minItems = options.minItems ?? 5;
  }

  /** Records that `count` items (a running total) were finished at time `at` (ms). */
  add(at: number, count: number): void {
    if (count <= 0) return;
    const last = this.#samples.at(-1);
    if (last && last.count === count) return;
    this.#samples.push({ at, count });
    // Keep one reading at or before the window's start, so the window is always covered.
    while (this.#samples.length > 2 && this.#samples[1]!.at <= at - this.#windowMs) {
      this.#samples.shift();
    }
  }

  /** Items per second at time `now` (ms), or undefined while still estimating. */
  rate(now: number): number | undefined {
    const first = this.#samples[0];
    const last = this.#samples.at(-1);
    if (!first || !last || last.count < this.#minItems) return undefined;
    const seconds = (now - first.at) / 1000;
    if (seconds <= 0) return undefined;
    return (last.count - first.count) / seconds;
  }
}
