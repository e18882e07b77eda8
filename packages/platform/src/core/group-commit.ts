/**
 * Group commit: `flush` runs on everything added while the previous flush was running (at
 * most `max` at a time), so many concurrent items share one database round trip.
 */
export class GroupCommit<T, R> {
  private readonly queue: Array<{
    item: T;
    resolve: (r: R) => void;
    reject: (e: unknown) => void;
  }> = [];
  private running = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly max = 500,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) {
        this.running = true;
        // Let the items started in the same tick join the first flush.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.max);
      try {
        const results = await this.flush(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i] as R));
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.running = false;
  }
}
