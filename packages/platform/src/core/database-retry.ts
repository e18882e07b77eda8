import { isDatabaseUnavailable } from '@assay/db';

/** Options of {@link whileUnavailable}. */
export interface WhileUnavailableOptions {
  /** Stop waiting when aborted: the last error is thrown. */
  signal?: AbortSignal | undefined;
  /** Told about each failure that is waited out. */
  onWait?: (error: unknown) => void;
  /** First wait in ms (default 250); doubles up to `maxWaitMs` (default 5000). */
  firstWaitMs?: number;
  maxWaitMs?: number;
}

/**
 * Runs a database operation, and while the database cannot be reached (down, restarting)
 * runs it again after a wait that doubles up to 5 s, until it succeeds or `signal`
 * aborts. Any other error is thrown at once.
 */
export async function whileUnavailable<T>(
  operation: () => Promise<T>,
  options: WhileUnavailableOptions = {},
): Promise<T> {
  const maxWaitMs = options.maxWaitMs ?? 5_000;
  for (let wait = options.firstWaitMs ?? 250; ; wait = Math.min(wait * 2, maxWaitMs)) {
    try {
      return await operation();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || options.signal?.aborted) throw error;
      options.onWait?.(error);
      await pause(wait, options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}

/** Waits `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
