import type { CallStore } from './call-store.js';
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
  /** Told about every call paid for (answered or failed). */
  onPaidCall?: (record: import('./call-store.js').LlmCallRecord) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}
