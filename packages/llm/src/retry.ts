import { requestSignal } from './abort-fanout.js';

/** When and how long to wait before trying a failed LLM call again. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 6). */
  maxAttempts: number;
  /** First backoff in ms (default 500); doubles each attempt. */
  baseDelayMs: number;
  /** Longest single wait in ms (default 60 000), Retry-After included. */
  maxDelayMs: number;
  /**
   * Attempts that may time out before the call gives up (default 2: a timeout is tried
   * once more). Each waits the whole timeout, so a hanging endpoint would otherwise hold a
   * call for maxAttempts timeouts (6 × 120 s).
   */
  maxTimedOutAttempts?: number;
}

/** The defaults: 6 attempts, 0.5 s doubling, at most 60 s per wait, 2 timeouts. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 60_000,
  maxTimedOutAttempts: 2,
};

/** What a failed attempt tells the retry loop. */
export interface AttemptFailure {
  /** Whether trying again may help (429, 5xx, timeouts, dropped connections). */
  retryable: boolean;
  /** The server's Retry-After, in ms, when it sent one. */
  retryAfterMs?: number;
  /** True when the attempt waited its whole timeout for an answer (see maxTimedOutAttempts). */
  timedOut?: boolean;
}

/**
 * Wait before attempt `attempt` (1 = the first retry): the server's Retry-After when given,
 * otherwise exponential backoff with full jitter (a uniform wait up to base·2^(attempt-1)),
 * capped at maxDelayMs. `random` is injected so tests are deterministic.
 */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  failure: AttemptFailure,
  random: () => number,
): number {
  if (failure.retryAfterMs !== undefined)
    return Math.min(policy.maxDelayMs, Math.max(0, failure.retryAfterMs));
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Reads Retry-After (seconds or an HTTP date) or retry-after-ms into milliseconds. */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now: number,
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)))
    return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A call not sent, or not tried again, because its run is stopping. */
export class CallStoppedError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('stopped before the call was answered', options);
    this.name = 'CallStoppedError';
  }
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the attempts run out (or the
 * attempts that may time out: `maxTimedOutAttempts`). Once `signal` is aborted no further
 * attempt starts (a wait between attempts ends at once) and a {@link CallStoppedError} is
 * thrown with the last failure as its cause.
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  classify: (error: unknown) => AttemptFailure,
  options: {
    policy?: RetryPolicy;
    sleep?: (ms: number) => Promise<void>;
    random?: () => number;
    onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
    signal?: AbortSignal;
  } = {},
): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const sleep = options.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const { signal } = options;
  const maxTimedOut = policy.maxTimedOutAttempts ?? DEFAULT_RETRY_POLICY.maxTimedOutAttempts!;
  let timedOut = 0;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      const failure = classify(error);
      if (failure.timedOut) timedOut++;
      if (!failure.retryable || n >= policy.maxAttempts || timedOut >= maxTimedOut) throw error;
      if (signal?.aborted) throw new CallStoppedError({ cause: error });
      const delayMs = backoffDelay(n, policy, failure, random);
      options.onRetry?.({ attempt: n, delayMs, error });
      await untilAborted(sleep(delayMs), signal);
      if (signal?.aborted) throw new CallStoppedError({ cause: error });
    }
  }
}

/** `wait`, cut short when `signal` aborts. */
function untilAborted(wait: Promise<void>, shared: AbortSignal | undefined): Promise<void> {
  if (!shared) return wait;
  const { signal, release } = requestSignal(shared);
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      release();
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    wait.then(done, (error: unknown) => {
      release();
      reject(error);
    });
  });
}
