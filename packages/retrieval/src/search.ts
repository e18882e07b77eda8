import { type Bm25Index, type Bm25Params, DEFAULT_BM25 } from './bm25-index.js';
import { TopK } from './top-k.js';

/** One retrieved document: index document number, id and score. */
export interface Hit {
  doc: number;
  docno: string;
  score: number;
}

/** A query as term numbers with weights (a bag of words has each term's count as weight). */
export type WeightedQuery = Map<number, number>;

/** The query's terms (after analysis) as weights: each known term's count in the text. */
export function analyzeQuery(index: Bm25Index, text: string): WeightedQuery {
  return weightTerms(index, index.analyzer.analyze(text));
}

/** Counts of the known terms among `terms`; unknown terms match nothing and are dropped. */
export function weightTerms(index: Bm25Index, terms: readonly string[]): WeightedQuery {
  const query: WeightedQuery = new Map();
  for (const term of terms) {
    const t = index.termIds.get(term);
    if (t !== undefined) query.set(t, (query.get(t) ?? 0) + 1);
  }
  return query;
}

/**
 * Scores documents for weighted queries with Lucene's BM25:
 * Σ_t w_t · idf(t) · tf / (tf + k1·(1 − b + b·dl/avgdl)), idf = ln(1 + (N − df + 0.5)/(df + 0.5)).
 * Keeps one score buffer for all queries (not safe to share between concurrent callers).
 */
export class Bm25Searcher {
  private readonly scores: Float64Array;
  private readonly seen: Uint8Array;
  private readonly touched: Uint32Array;

  // Per term, the largest tf/(tf + norm) of its postings (NaN until first needed).
  private readonly bounds: Float64Array;

  /**
   * `pruning` turns on MaxScore, which skips documents that cannot reach the top k; the
   * results are identical to scoring every document, scores included. It is off by
   * default: on Cranfield-like text (short documents, queries of frequent terms) scoring
   * every posting into one array was as fast or faster in bench/retrieval's collections.
   */
  constructor(
    readonly index: Bm25Index,
    readonly params: Bm25Params = DEFAULT_BM25,
    readonly pruning = false,
  ) {
    this.scores = new Float64Array(index.documentCount);
    this.seen = new Uint8Array(index.documentCount);
    this.touched = new Uint32Array(index.documentCount);
    this.bounds = new Float64Array(index.data.terms.length).fill(Number.NaN);
  }

  /** The top `k` documents for query text, ordered score desc, then docno desc. */
  search(text: string, k: number): Hit[] {
    return this.searchWeighted(analyzeQuery(this.index, text), k);
  }

  /** The top `k` documents for a weighted query; terms with weight ≤ 0 are ignored. */
  searchWeighted(query: WeightedQuery, k: number): Hit[] {
    const terms: { t: number; factor: number }[] = [];
    for (const [t, weight] of query)
      if (weight > 0) terms.push({ t, factor: weight * this.index.idf(t) });
    if (k < 1 || terms.length === 0) return [];
    return this.pruning && terms.length > 1 ? this.maxScore(terms, k) : this.exhaustive(query, k);
  }

  /** Term at a time into one score array; then the bounded heap over every match. */
  private exhaustive(query: WeightedQuery, k: number): Hit[] {
    const { index, scores, seen, touched } = this;
    const { termOffsets, postingDocs, postingTfs } = index.data;
    const norms = index.lengthNorms(this.params);
    let count = 0;
    for (const [t, weight] of query) {
      if (!(weight > 0)) continue;
      const factor = weight * index.idf(t);
      const end = termOffsets[t + 1]!;
      for (let i = termOffsets[t]!; i < end; i++) {
        const d = postingDocs[i]!;
        const tf = postingTfs[i]!;
        if (seen[d] === 0) {
          seen[d] = 1;
          touched[count++] = d;
          scores[d] = 0;
        }
        scores[d]! += (factor * tf) / (tf + norms[d]!);
      }
    }
    const top = new TopK(Math.min(k, count), index.docnoOrder());
    for (let i = 0; i < count; i++) {
      const d = touched[i]!;
      seen[d] = 0;
      const s = scores[d]!;
      if (s >= top.threshold) top.offer(d, s);
    }
    const ids = index.data.docIds;
    return top.results().map(({ doc, score }) => ({ doc, docno: ids[doc]!, score }));
  }

  /** The largest tf/(tf + k1·(1 − b + b·dl/avgdl)) among term t's postings. */
  private bound(t: number): number {
    let b = this.bounds[t]!;
    if (Number.isNaN(b)) {
      const { termOffsets, postingDocs, postingTfs } = this.index.data;
      const norms = this.index.lengthNorms(this.params);
      b = 0;
      for (let i = termOffsets[t]!; i < termOffsets[t + 1]!; i++) {
        const tf = postingTfs[i]!;
        const v = tf / (tf + norms[postingDocs[i]!]!);
        if (v > b) b = v;
      }
      this.bounds[t] = b;
    }
    return b;
  }

  /**
   * MaxScore (Turtle and Flood, 1995), document at a time. Terms sorted by upper bound;
   * the low ones whose bounds together stay below the k-th best score are "non-essential":
   * a document only they contain cannot enter, and they are looked up (by galloping search)
   * only for candidates that could still reach the top k. Contributions are summed in the
   * query's term order, as the exhaustive path sums them, so the scores are the same.
   */
  private maxScore(terms: { t: number; factor: number }[], k: number): Hit[] {
    const { index } = this;
    const { termOffsets, postingDocs, postingTfs } = index.data;
    const norms = index.lengthNorms(this.params);
    const n = terms.length;
    // Upper bounds, widened a little so rounding never prunes a document that qualifies.
    const ub = terms.map(({ t, factor }) => factor * this.bound(t) * (1 + 1e-9));
    const order = terms.map((_, i) => i).sort((a, b) => ub[a]! - ub[b]!);
    const factor = order.map((i) => terms[i]!.factor);
    const pos = order.map((i) => termOffsets[terms[i]!.t]!);
    const end = order.map((i) => termOffsets[terms[i]!.t + 1]!);
    const prefix = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + ub[order[i]!]!;
    const contribution = new Float64Array(n); // by query position
    const top = new TopK(k, index.docnoOrder());
    let threshold = -Infinity;
    let essential = 0; // sorted terms [0, essential) are non-essential
    for (;;) {
      let d = Infinity;
      for (let i = essential; i < n; i++)
        if (pos[i]! < end[i]! && postingDocs[pos[i]!]! < d) d = postingDocs[pos[i]!]!;
      if (d === Infinity) break;
      contribution.fill(0);
      let partial = 0;
      const norm = norms[d]!;
      for (let i = essential; i < n; i++) {
        const p = pos[i]!;
        if (p < end[i]! && postingDocs[p] === d) {
          const tf = postingTfs[p]!;
          const c = (factor[i]! * tf) / (tf + norm);
          contribution[order[i]!] = c;
          partial += c;
          pos[i] = p + 1;
        }
      }
      let pruned = false;
      for (let i = essential - 1; i >= 0; i--) {
        if (partial + prefix[i + 1]! < threshold) {
          pruned = true;
          break;
        }
        const p = advance(postingDocs, pos[i]!, end[i]!, d);
        pos[i] = p;
        if (p < end[i]! && postingDocs[p] === d) {
          const tf = postingTfs[p]!;
          const c = (factor[i]! * tf) / (tf + norm);
          contribution[order[i]!] = c;
          partial += c;
        }
      }
      if (pruned) continue;
      let score = 0;
      for (let q = 0; q < n; q++) if (contribution[q] !== 0) score += contribution[q]!;
      top.offer(d, score);
      if (top.threshold > threshold) {
        threshold = top.threshold;
        while (essential < n && prefix[essential + 1]! < threshold) essential++;
      }
    }
    const ids = index.data.docIds;
    return top.results().map(({ doc, score }) => ({ doc, docno: ids[doc]!, score }));
  }
}

/** The first position in [from, end) whose document is ≥ d (galloping, then binary search). */
export function advance(docs: Uint32Array, from: number, end: number, d: number): number {
  if (from >= end || docs[from]! >= d) return from;
  let lo = from;
  let step = 1;
  let probe = lo + 1;
  while (probe < end && docs[probe]! < d) {
    lo = probe;
    step *= 2;
    probe = lo + step;
  }
  let a = lo + 1;
  let b = Math.min(probe, end);
  while (a < b) {
    const m = (a + b) >> 1;
    if (docs[m]! < d) a = m + 1;
    else b = m;
  }
  return a;
}
