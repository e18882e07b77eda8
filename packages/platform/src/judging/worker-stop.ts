// The parts of a judge worker run that decide when it stops and wake it up: what ended it,
// the three signals its calls and writes follow, and the watch over a database out of reach.

/**
 * Why a worker run ended. done: nothing left to claim; budget: the budget was spent;
 * signal: asked to stop (or the database stayed out of reach too long); endpoint: the
 * model endpoint could not be reached for several items in a row.
 */
export type WorkerStopReason = 'done' | 'budget' | 'signal' | 'endpoint';

/**
 * Wakes the worker's loop: each `notify()` settles the promise `next` handed out before it,
 * so a loop awaiting `next` looks again after anything changed (a claim came back, an item
 * finished, a stop).
 */
export class Changes {
  private settle!: () => void;
  private current = this.fresh();

  /** Settles when something changes next. */
  get next(): Promise<void> {
    return this.current;
  }

  /** Something changed. */
  notify(): void {
    const settle = this.settle;
    this.current = this.fresh();
    settle();
  }

  private fresh(): Promise<void> {
    return new Promise<void>((resolve) => (this.settle = resolve));
  }
}

/** Options of {@link WorkerStop}. */
export interface WorkerStopOptions {
  /** After a stop by signal, cut off what is in flight after this many ms (default never). */
  cancelAfterMs?: number | undefined;
  /** Told when the run is asked to stop. */
  onStop?: () => void;
}

/**
 * How a worker run stops. `stop` aborted: claim nothing more, send no new call or retry;
 * `cancel`: cut off the calls in flight; `abandon`: stop waiting for a database that
 * cannot be reached. The first reason given wins; `fatal` keeps the first failure the
 * run ends on.
 */
export class WorkerStop {
  private readonly stopping = new AbortController();
  private readonly cutting = new AbortController();
  private readonly leaving = new AbortController();
  private cancelTimer: NodeJS.Timeout | undefined;
  private reason: WorkerStopReason = 'done';
  private failure: { error: unknown } | undefined;

  constructor(private readonly options: WorkerStopOptions = {}) {}

  get stop(): AbortSignal {
    return this.stopping.signal;
  }

  get cancel(): AbortSignal {
    return this.cutting.signal;
  }

  get abandon(): AbortSignal {
    return this.leaving.signal;
  }

  /** Why the run ended (done until told otherwise). */
  get stoppedBy(): WorkerStopReason {
    return this.reason;
  }

  /** Whether the run failed, and with what. */
  get fatal(): { error: unknown } | undefined {
    return this.failure;
  }

  /**
   * Stops claiming and sending, for `why`; a stop by signal cuts off what is still in
   * flight `cancelAfterMs` later. A run already stopping keeps its first reason.
   */
  request(why: Exclude<WorkerStopReason, 'done'>): void {
    if (this.stopping.signal.aborted) return;
    this.reason = why;
    this.stopping.abort();
    const after = this.options.cancelAfterMs;
    if (why === 'signal' && after !== undefined)
      this.cancelTimer = setTimeout(() => this.cutOff(), after);
    this.options.onStop?.();
  }

  /** The run ended for `why` without being stopped (the budget spent, nothing in flight). */
  ended(why: WorkerStopReason): void {
    if (!this.stopping.signal.aborted) this.reason = why;
  }

  /** Cuts off the calls in flight and stops waiting for the database, now. */
  cutOff(): void {
    this.cutting.abort();
    this.leaving.abort();
  }

  /** The run fails with `error` (the first failure wins) once it has cleaned up. */
  fail(error: unknown): void {
    this.failure ??= { error };
  }

  /** Stops for 'signal' when `signal` aborts; returns what stops listening. */
  follow(signal: AbortSignal | undefined): () => void {
    const onAbort = () => this.request('signal');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return () => signal?.removeEventListener('abort', onAbort);
  }

  /** Clears the timer of a pending cut-off. */
  dispose(): void {
    clearTimeout(this.cancelTimer);
  }
}

/** Options of {@link DatabaseWatch}. */
export interface DatabaseWatchOptions {
  /** Give up on a database out of reach this many ms in a row (default: never). */
  giveUpMs?: number | undefined;
  /** Told once per run, the first time the database cannot be reached. */
  onNotice?: ((message: string) => void) | undefined;
  /** Told when the worker gives up, with the database's last error. */
  onGiveUp: (lastError: unknown) => void;
}

/**
 * Watches a worker's database: says once that it cannot be reached (the worker waits for
 * it), and when `giveUpMs` is set and it stays out of reach that long in a row, gives up
 * with its last error. A write or claim that reaches it starts the count again.
 */
export class DatabaseWatch {
  private since: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastError: unknown;
  private told = false;

  constructor(private readonly options: DatabaseWatchOptions) {}

  /** A claim or write could not reach the database; `notice` says what waits. */
  outOfReach(error: unknown, notice: string): void {
    if (!this.told) {
      this.told = true;
      this.options.onNotice?.(notice);
    }
    this.lastError = error;
    const limit = this.options.giveUpMs;
    if (limit === undefined || this.since !== undefined) return;
    this.since = Date.now();
    this.timer = setTimeout(() => {
      if (this.since !== undefined) this.options.onGiveUp(this.lastError);
    }, limit);
  }

  /** A claim or write reached the database. */
  reached(): void {
    this.since = undefined;
    clearTimeout(this.timer);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
