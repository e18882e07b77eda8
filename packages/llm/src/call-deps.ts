import type { CallStore, ModelPrice, RateLimiter, RetryPolicy } from '@assay/judge';

/** What every LLM call needs: where calls are kept, pacing, the retry policy, spending. */
export interface CallDeps {
  store: CallStore;
  limiter?: RateLimiter;
  retry?: RetryPolicy;
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Checked before a call is sent (not for stored answers); throws to stop spending. */
  beforePaidCall?: () => void;
  /** Told about every call paid for (answered or failed). */
  onPaidCall?: (record: import('@assay/judge').LlmCallRecord) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}
