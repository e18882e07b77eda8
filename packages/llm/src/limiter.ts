/** Limits on how fast judging may call the endpoint. */
export interface RateLimits {
  /** Calls in flight at once. */
  concurrency: number;
  /** Requests started per rolling minute (0 = no limit). */
  requestsPerMinute?: number;
  /** Tokens (prompt + expected completion) per rolling minute (0 = no limit). */
  tokensPerMinute?: number;
}

/**
 * Paces calls: at most `concurrency` at once and, when set, at most N requests and T tokens
 * started in any 60-second window. `now` and `sleep` are injected for tests.
 */
export class RateLimiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly started: Array<{ at: number; tokens: number }> = [];

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((r) => setTimeout(r, ms)),
  ) {
    if (!(limits.concurrency >= 1)) throw new RangeError('concurrency must be at least 1');
  }

  /** Runs `task` once a slot and the per-minute budgets allow; `tokens` is its estimated size. */
  async run<T>(tokens: number, task: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      await this.pace(tokens);
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.limits.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  private async pace(tokens: number): Promise<void> {
    const rpm = this.limits.requestsPerMinute ?? 0;
    const tpm = this.limits.tokensPerMinute ?? 0;
    for (;;) {
      const now = this.now();
      while (this.started.length && this.started[0]!.at <= now - 60_000) this.started.shift();
      const used = this.started.reduce((s, e) => s + e.tokens, 0);
      const requestsOk = rpm <= 0 || this.started.length < rpm;
      // A request larger than the whole budget may still go once the window is empty.
      const tokensOk = tpm <= 0 || used + tokens <= tpm || this.started.length === 0;
      if (requestsOk && tokensOk) {
        this.started.push({ at: now, tokens });
        return;
      }
      const oldest = this.started[0]!.at;
      await this.sleep(Math.max(1, oldest + 60_000 - now));
    }
  }
}
