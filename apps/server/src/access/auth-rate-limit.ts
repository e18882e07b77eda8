/**
 * Counts failed authentications per client address: after `maxFailures` failures within
 * `windowMs`, that address is refused (429 with Retry-After) until the window that began
 * with its first failure ends. A successful request does not reset the count, so guessing
 * tokens between valid requests does not help. Memory stays bounded: at most
 * `maxClients` addresses are tracked (the oldest entry is dropped first).
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(
    readonly maxFailures = 20,
    readonly windowMs = 60_000,
    private readonly maxClients = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds the address must wait, or 0 when it may try. */
  retryAfter(client: string): number {
    const entry = this.current(client);
    if (!entry || entry.count < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((entry.since + this.windowMs - this.now()) / 1000));
  }

  /** Records one failed authentication of the address. */
  fail(client: string): void {
    const entry = this.current(client);
    if (entry) {
      entry.count++;
      return;
    }
    if (this.failures.size >= this.maxClients) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    this.failures.set(client, { count: 1, since: this.now() });
  }

  private current(client: string) {
    const entry = this.failures.get(client);
    if (entry && this.now() - entry.since >= this.windowMs) {
      this.failures.delete(client);
      return undefined;
    }
    return entry;
  }
}
