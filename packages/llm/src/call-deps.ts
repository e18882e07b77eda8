import type { CallStore, LlmCallRecord } from './call-store.js';
import type { ModelPrice } from './cost.js';
import type { RateLimiter } from './limiter.js';
import type { RetryPolicy } from './retry.js';

/** What every LLM call needs: where calls are kept, pacing, the retry policy, spending. */
export interface CallDeps {
  store: CallStore;
  limiter?: RateLimiter;
  retry?: RetryPolicy;
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Checked before a call is sent (not for stored answers); throws to stop spending. */
  beforePaidCall?: () => void;
  /** Told about every call sent, once it is answered or has failed for good. */
  onPaidCall?: (record: LlmCallRecord) => void;
  /** Told when a failed attempt is to be tried again (before the wait), with its error. */
  onRetry?: (error: unknown) => void;
  /**
   * Once aborted, no call is sent and none is tried again (a `CallStoppedError` instead);
   * calls already in flight go on.
   */
  stop?: AbortSignal;
  /** Once aborted, calls in flight are cut off (and end in a `CallStoppedError`). */
  cancel?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}
