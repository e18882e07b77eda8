/**
 * Keeps the k best documents seen, best meaning higher score, then (as trec_eval orders
 * ties) the document later in docno byte order. A bounded binary heap whose root is the
 * worst kept document.
 */
export class TopK {
  private readonly docs: Uint32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(
    readonly k: number,
    private readonly docnoOrder: Uint32Array,
  ) {
    this.docs = new Uint32Array(k);
    this.scores = new Float64Array(k);
  }

  /** The score a document must beat to enter (−Infinity until the heap is full). */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  /** Offers document `doc` with `score`. */
  offer(doc: number, score: number): void {
    if (this.k === 0) return;
    if (this.size < this.k) {
      let i = this.size++;
      // Sift up: the parent must be worse than the child.
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(score, doc, this.scores[parent]!, this.docs[parent]!)) break;
        this.scores[i] = this.scores[parent]!;
        this.docs[i] = this.docs[parent]!;
        i = parent;
      }
      this.scores[i] = score;
      this.docs[i] = doc;
      return;
    }
    if (!this.worse(this.scores[0]!, this.docs[0]!, score, doc)) return;
    this.replaceRoot(doc, score);
  }

  /** The kept documents, best first. */
  results(): { doc: number; score: number }[] {
    const out: { doc: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ doc: this.docs[i]!, score: this.scores[i]! });
    const order = this.docnoOrder;
    return out.sort((a, b) => b.score - a.score || order[b.doc]! - order[a.doc]!);
  }

  /** True when (s1, d1) ranks below (s2, d2). */
  private worse(s1: number, d1: number, s2: number, d2: number): boolean {
    return s1 < s2 || (s1 === s2 && this.docnoOrder[d1]! < this.docnoOrder[d2]!);
  }

  private replaceRoot(doc: number, score: number): void {
    const n = this.size;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (
        right < n &&
        this.worse(this.scores[right]!, this.docs[right]!, this.scores[left]!, this.docs[left]!)
      )
        child = right;
      if (!this.worse(this.scores[child]!, this.docs[child]!, score, doc)) break;
      this.scores[i] = this.scores[child]!;
      this.docs[i] = this.docs[child]!;
      i = child;
    }
    this.scores[i] = score;
    this.docs[i] = doc;
  }
}
