import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  CallStoppedError,
  canonicalJson,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  RateLimiter,
  requestHash,
  withRetries,
} from '../src/index.js';

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n] ?? null });

describe('retry policy', () => {
  it('doubles the backoff ceiling with full jitter and caps it', () => {
    const policy = { maxAttempts: 10, baseDelayMs: 500, maxDelayMs: 4000 };
    // random() = 0.5 → half of 500·2^(n-1), capped at 4000
    expect(
      [1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, { retryable: true }, () => 0.5)),
    ).toEqual([250, 500, 1000, 2000, 2000]);
    expect(backoffDelay(3, policy, { retryable: true, retryAfterMs: 1500 }, () => 0.5)).toBe(1500);
    expect(backoffDelay(3, policy, { retryable: true, retryAfterMs: 99_000 }, () => 0.5)).toBe(
      4000,
    );
  });

  it('reads Retry-After as seconds, as an HTTP date, and retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }), now)).toBe(
      10_000,
    );
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '3' }), now)).toBe(
      250,
    );
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
  });

  it('stops on non-retryable errors and after the last attempt', async () => {
    let calls = 0;
    const fail = () => {
      calls++;
      return Promise.reject(new Error('x'));
    };
    await expect(
      withRetries(fail, () => ({ retryable: false }), { sleep: async () => {} }),
    ).rejects.toThrow('x');
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      withRetries(fail, () => ({ retryable: true }), { sleep: async () => {} }),
    ).rejects.toThrow('x');
    expect(calls).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
  });

  it('tries a timed-out attempt once more, not until the attempts run out', async () => {
    const outcomes = ['timeout', '500', 'timeout', '500'];
    let calls = 0;
    const attempt = () => Promise.reject(new Error(outcomes[calls++]));
    const classify = (error: unknown) => ({
      retryable: true,
      timedOut: (error as Error).message === 'timeout',
    });
    // Timeout, 500, timeout: the second timeout ends it, 3 attempts of the 6.
    await expect(withRetries(attempt, classify, { sleep: async () => {} })).rejects.toThrow(
      'timeout',
    );
    expect(calls).toBe(3);
    // A policy may allow more (or fewer) timeouts.
    calls = 0;
    const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 4, maxTimedOutAttempts: 1 };
    await expect(withRetries(attempt, classify, { sleep: async () => {}, policy })).rejects.toThrow(
      'timeout',
    );
    expect(calls).toBe(1);
    calls = 0;
    const { maxTimedOutAttempts: _ignored, ...without } = DEFAULT_RETRY_POLICY;
    // A policy that does not say takes the default: two.
    await expect(
      withRetries(attempt, classify, { sleep: async () => {}, policy: without }),
    ).rejects.toThrow('timeout');
    expect(calls).toBe(3);
  });

  it('starts no attempt once stopped: a wait between attempts ends at once', async () => {
    const controller = new AbortController();
    let calls = 0;
    const waits: number[] = [];
    const failing = withRetries(
      () => {
        calls++;
        return Promise.reject(new Error('boom'));
      },
      () => ({ retryable: true }),
      {
        // A wait that never ends on its own: only the stop ends it.
        sleep: (ms) => {
          waits.push(ms);
          if (waits.length === 1) queueMicrotask(() => controller.abort());
          return new Promise<void>(() => {});
        },
        signal: controller.signal,
      },
    );
    const error = await failing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallStoppedError);
    expect((error as Error).cause).toMatchObject({ message: 'boom' });
    expect(calls).toBe(1);
    expect(waits).toHaveLength(1);
  });
});

describe('request hash', () => {
  it('ignores key order and undefined fields, and changes with any content', () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: undefined }] })).toBe('{"a":[2,{"d":3}],"b":1}');
    const a = requestHash({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      temperature: 0,
    });
    const b = requestHash({
      temperature: 0,
      messages: [{ content: 'x', role: 'user' }],
      model: 'm',
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(
      requestHash({ model: 'm', messages: [{ role: 'user', content: 'y' }], temperature: 0 }),
    ).not.toBe(a);
  });
});

describe('rate limiter', () => {
  it('holds requests beyond the per-minute budget until the window moves on', async () => {
    let now = 0;
    const waits: number[] = [];
    const limiter = new RateLimiter(
      { concurrency: 10, requestsPerMinute: 2 },
      () => now,
      async (ms) => {
        waits.push(ms);
        now += ms;
      },
    );
    for (let i = 0; i < 3; i++) await limiter.run(10, async () => undefined);
    // Third request waits until the first leaves the 60 s window.
    expect(waits).toEqual([60_000]);
  });

  it('paces by tokens per minute', async () => {
    let now = 0;
    const waits: number[] = [];
    const limiter = new RateLimiter(
      { concurrency: 1, tokensPerMinute: 1000 },
      () => now,
      async (ms) => {
        waits.push(ms);
        now += ms;
      },
    );
    await limiter.run(600, async () => (now += 1000));
    await limiter.run(600, async () => undefined); // 1200 > 1000: waits until t = 60 000
    expect(waits).toEqual([59_000]);
  });
});
