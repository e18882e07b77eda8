import type { JudgeTaskResult } from './task.js';

/** Options of {@link EndpointGuard}. */
export interface EndpointGuardOptions {
  /** Items in a row that found no endpoint before the guard acts (at least 1). */
  limit: number;
  /** A following worker pauses and goes on; any other stops. */
  follow: boolean;
  /** The first pause, in ms; it doubles (up to 10 min) while the endpoint stays away. */
  firstPauseMs: number;
  now?: () => number;
}

/** What one item's result asks of the worker. */
export type EndpointVerdict =
  | { action: 'go' }
  /** Stop the run; `why` names the endpoint's failure (`timedOut`: it did not answer in time). */
  | { action: 'stop'; why: string; timedOut?: true }
  /** Put the tasks claimed ahead back and claim nothing until `resumesAt`; `notice` says so. */
  | { action: 'pause'; notice: string; resumesAt: number };

/** The longest pause of a following worker whose endpoint stays out of reach. */
const MAX_PAUSE_MS = 600_000;

/**
 * Counts the items in a row whose calls could not reach the model endpoint at all, or got
 * no answer in time (after their retries). At `limit` of them a run stops; a following
 * worker pauses instead, the pause doubling while the endpoint stays out of reach and
 * starting over once a call is answered. An item that got an answer, or any other result,
 * breaks the row (an item put back because the run is stopping, with nothing answered,
 * does not).
 */
export class EndpointGuard {
  private inARow = 0;
  private pauseMs: number;
  private until = 0;
  private readonly now: () => number;

  constructor(private readonly options: EndpointGuardOptions) {
    this.pauseMs = options.firstPauseMs;
    this.now = options.now ?? Date.now;
  }

  /** Whether claiming pauses now. */
  get paused(): boolean {
    return this.now() < this.until;
  }

  /** When the pause ends (0: never paused). */
  get resumesAt(): number {
    return this.until;
  }

  /** What `result` asks of the worker; `stopping`: the run is stopping already. */
  judged(result: JudgeTaskResult, stopping: boolean): EndpointVerdict {
    if (result.paidCalls.length > 0) this.pauseMs = this.options.firstPauseMs;
    const noAnswer =
      result.kind === 'release' && (result.why === 'endpoint' || result.why === 'timeout');
    if (!noAnswer) {
      if (result.kind !== 'release' || result.paidCalls.length > 0) this.inARow = 0;
      return { action: 'go' };
    }
    this.inARow++;
    if (this.inARow < Math.max(1, this.options.limit) || stopping || this.paused)
      return { action: 'go' };
    const timedOut = result.why === 'timeout';
    const why = `${result.error ?? 'the model endpoint cannot be reached'} (${this.inARow} items in a row${timedOut ? ' timed out' : ''}; the items went back to pending)`;
    this.inARow = 0;
    if (!this.options.follow)
      return timedOut ? { action: 'stop', why, timedOut } : { action: 'stop', why };
    this.until = this.now() + this.pauseMs;
    const notice = `${why}; trying again in ${Math.round(this.pauseMs / 1000)} s`;
    this.pauseMs = Math.min(this.pauseMs * 2, MAX_PAUSE_MS);
    return { action: 'pause', notice, resumesAt: this.until };
  }
}
