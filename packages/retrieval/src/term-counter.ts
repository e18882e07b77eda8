/**
 * Numbers terms in the order they are first seen and counts one document's terms at a
 * time in a scratch array reused from document to document: what every index builder
 * (in memory or on disk) does with a document's tokens.
 */
export class TermCounter {
  /** Term → term number. */
  readonly termIds = new Map<string, number>();
  /** Term number → term. */
  readonly terms: string[] = [];
  // Term number -> frequency in the current document, zero elsewhere.
  private scratch = new Uint32Array(1024);
  private readonly touched: number[] = [];

  /**
   * Counts a document's tokens. Returns the numbers of the terms it holds, in first-seen
   * order (the array is reused by the next call); {@link take} gives each one's frequency.
   */
  count(tokens: readonly string[]): number[] {
    const touched = this.touched;
    touched.length = 0;
    for (const token of tokens) {
      let t = this.termIds.get(token);
      if (t === undefined) {
        t = this.terms.length;
        this.termIds.set(token, t);
        this.terms.push(token);
        if (t >= this.scratch.length) {
          const next = new Uint32Array(this.scratch.length * 2);
          next.set(this.scratch);
          this.scratch = next;
        }
      }
      if (this.scratch[t] === 0) touched.push(t);
      this.scratch[t]!++;
    }
    return touched;
  }

  /** The current document's frequency of term `t`, capped to 16 bits; resets it to zero. */
  take(t: number): number {
    const tf = this.scratch[t]!;
    this.scratch[t] = 0;
    return Math.min(tf, 0xffff);
  }
}
