/**
 * A first-in, first-out async mutex: `lock()` resolves once every earlier holder has
 * called `unlock()`. Used to hand PGlite's single connection to one Kysely connection
 * (and so one transaction) at a time.
 */
export class FifoMutex {
  #locked = false;
  readonly #waiters: Array<() => void> = [];

  /** Waits until the mutex is free, then takes it. */
  lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Releases the mutex to the next waiter, if any. */
  unlock(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }

  /** Whether someone holds the mutex. */
  get locked(): boolean {
    return this.#locked;
  }
}
