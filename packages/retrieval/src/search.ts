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

/** A term's postings: documents ascending, with their term frequencies. */
export interface Postings {
  docs: Uint32Array;
  tfs: Uint16Array;
}

/**
 * What BM25 top-k search reads from an index: the in-memory {@link Bm25Index} (views of
 * its arrays) and the on-disk `DiskBm25Index` (positioned reads through a cache) both are one.
 */
export interface PostingsSource {
  readonly documentCount: number;
  /** Number of documents containing term number `t`. */
  df(t: number): number;
  /** Lucene idf of term number `t`. */
  idf(t: number): number;
  /** Term number `t`'s postings. */
  postings(t: number): Postings;
  /** The largest tf/(tf + k1·(1 − b + b·dl/avgdl)) among term t's postings (MaxScore's bound). */
  bound(t: number, params: Bm25Params): number;
  /** k1·(1 − b + b·dl/avgdl) for every document. */
  lengthNorms(params: Bm25Params): Float64Array;
  /** Each document's position in docno byte order. */
  docnoOrder(): Uint32Array;
  /** Document number `d`'s id. */
  docno(d: number): string;
}

/**
 * Scores documents of a {@link PostingsSource} for weighted queries with Lucene's BM25:
 * Σ_t w_t · idf(t) · tf / (tf + k1·(1 − b + b·dl/avgdl)), idf = ln(1 + (N − df + 0.5)/(df + 0.5)),
 * and keeps the top k, ordered score desc, then docno desc (as trec_eval breaks ties).
 * Keeps one score buffer for all queries (not safe to share between concurrent callers).
 *
 * `pruning` turns on MaxScore, which skips documents that cannot reach the top k; the
 * results are identical to scoring every document, scores included. It is off by
 * default: on Cranfield-like text (short documents, queries of frequent terms) scoring
 * every posting into one array was as fast or faster in bench/retrieval's collections.
 */
export abstract class PostingsSearcher<S extends PostingsSource> {
  private scores: Float64Array | undefined;
  private seen: Uint8Array | undefined;
  private touched: Uint32Array | undefined;

  constructor(
    readonly index: S,
    readonly params: Bm25Params = DEFAULT_BM25,
    readonly pruning = false,
  ) {}

  /** The query text's terms as term numbers of this index with weights. */
  protected abstract analyze(text: string): WeightedQuery;

  /** The top `k` documents for query text, ordered score desc, then docno desc. */
  search(text: string, k: number): Hit[] {
    return this.searchWeighted(this.analyze(text), k);
  }

  /** The top `k` documents for a weighted query (term numbers of this index); weights ≤ 0 are ignored. */
  searchWeighted(query: WeightedQuery, k: number): Hit[] {
    const terms: number[] = [];
    const factors: number[] = [];
    for (const [t, weight] of query)
      if (weight > 0) {
        terms.push(t);
        factors.push(weight * this.index.idf(t));
      }
    if (k < 1 || terms.length === 0) return [];
    const top =
      this.pruning && terms.length > 1
        ? this.maxScore(terms, factors, k)
        : this.exhaustive(terms, factors, k);
    return top.results().map(({ doc, score }) => ({ doc, docno: this.index.docno(doc), score }));
  }

  /** Term at a time into one score array; then the bounded heap over every match. */
  private exhaustive(terms: number[], factors: number[], k: number): TopK {
    const { index } = this;
    const N = index.documentCount;
    const scores = (this.scores ??= new Float64Array(N));
    const seen = (this.seen ??= new Uint8Array(N));
    const touched = (this.touched ??= new Uint32Array(N));
    const norms = index.lengthNorms(this.params);
    let count = 0;
    for (let q = 0; q < terms.length; q++) {
      const factor = factors[q]!;
      const { docs, tfs } = index.postings(terms[q]!);
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i]!;
        const tf = tfs[i]!;
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
    return top;
  }

  /**
   * MaxScore (Turtle and Flood, 1995), term at a time. Terms go in descending order of
   * their upper bound (the most a term can add to a score). Each list is scored into the
   * score array in full while a document not seen yet could still reach the top k: while
   * the bounds of the terms left sum to at least the k-th best partial score so far (a
   * lower bound of the final k-th best score, as contributions are never negative). Past
   * that point the documents seen are the only candidates: the remaining (long, low-idf)
   * lists are looked up by galloping search for them alone, and candidates whose partial
   * score plus the bounds left fall below the k-th best are dropped. The candidates left
   * are then scored again in the query's term order, as the exhaustive path sums them, so
   * hits and scores are identical to scoring every document.
   */
  private maxScore(terms: number[], factors: number[], k: number): TopK {
    const { index, params } = this;
    const N = index.documentCount;
    const scores = (this.scores ??= new Float64Array(N));
    const seen = (this.seen ??= new Uint8Array(N));
    const touched = (this.touched ??= new Uint32Array(N));
    const norms = index.lengthNorms(params);
    const n = terms.length;
    const lists = terms.map((t) => index.postings(t)); // read once (the on-disk index may not cache them)
    // Upper bounds, widened a little so rounding never prunes a document that qualifies.
    const ub = terms.map((t, q) => factors[q]! * index.bound(t, params) * (1 + SLACK));
    const order = terms.map((_, q) => q).sort((a, b) => ub[b]! - ub[a]! || a - b);
    const rest = new Float64Array(n + 1); // rest[i]: the bounds of sorted terms i … n−1
    for (let i = n - 1; i >= 0; i--) rest[i] = rest[i + 1]! + ub[order[i]!]!;
    const kth = new KthLargest(k);
    let count = 0;
    let threshold = -Infinity;
    let i = 0;
    for (; i < n && rest[i]! >= threshold; i++) {
      const q = order[i]!;
      const factor = factors[q]!;
      const { docs, tfs } = lists[q]!;
      for (let j = 0; j < docs.length; j++) {
        const d = docs[j]!;
        const tf = tfs[j]!;
        if (seen[d] === 0) {
          seen[d] = 1;
          touched[count++] = d;
          scores[d] = 0;
        }
        scores[d]! += (factor * tf) / (tf + norms[d]!);
      }
      if (count >= k) threshold = kth.of(scores, touched, count) * (1 - SLACK);
    }
    // Candidates: the documents seen that could still reach the top k.
    let candidates = new Uint32Array(count);
    let c = 0;
    for (let j = 0; j < count; j++) {
      const d = touched[j]!;
      seen[d] = 0;
      if (scores[d]! + rest[i]! >= threshold) candidates[c++] = d;
    }
    candidates = candidates.subarray(0, c).sort();
    for (; i < n && c > 0; i++) {
      const q = order[i]!;
      const factor = factors[q]!;
      const { docs, tfs } = lists[q]!;
      let p = 0;
      for (let j = 0; j < c; j++) {
        const d = candidates[j]!;
        p = advance(docs, p, docs.length, d);
        if (p === docs.length) break;
        if (docs[p] === d) {
          const tf = tfs[p]!;
          scores[d]! += (factor * tf) / (tf + norms[d]!);
        }
      }
      if (c >= k) threshold = Math.max(threshold, kth.of(scores, candidates, c) * (1 - SLACK));
      let kept = 0;
      for (let j = 0; j < c; j++) {
        const d = candidates[j]!;
        if (scores[d]! + rest[i + 1]! >= threshold) candidates[kept++] = d;
      }
      c = kept;
    }
    // The exact scores of the candidates, summed in the query's term order.
    const exact = new Float64Array(c);
    for (let q = 0; q < n; q++) {
      const factor = factors[q]!;
      const { docs, tfs } = lists[q]!;
      let p = 0;
      for (let j = 0; j < c; j++) {
        const d = candidates[j]!;
        p = advance(docs, p, docs.length, d);
        if (p === docs.length) break;
        if (docs[p] === d) {
          const tf = tfs[p]!;
          exact[j]! += (factor * tf) / (tf + norms[d]!);
        }
      }
    }
    const top = new TopK(Math.min(k, c), index.docnoOrder());
    for (let j = 0; j < c; j++)
      if (exact[j]! >= top.threshold) top.offer(candidates[j]!, exact[j]!);
    return top;
  }
}

/** Relative widening of MaxScore's bounds and thresholds, far above any rounding error. */
const SLACK = 1e-9;

/** The k-th largest of a set of scores, with a reusable bounded min-heap of floats. */
class KthLargest {
  private heap: Float64Array | undefined;
  constructor(private readonly k: number) {}

  /** The k-th largest of scores[docs[0 … count−1]] (count ≥ k). */
  of(scores: Float64Array, docs: Uint32Array, count: number): number {
    const k = this.k;
    const heap = (this.heap ??= new Float64Array(k)); // allocated once k documents are seen
    for (let j = 0; j < k; j++) heap[j] = scores[docs[j]!]!;
    for (let j = (k >> 1) - 1; j >= 0; j--) this.siftDown(j, heap[j]!);
    for (let j = k; j < count; j++) {
      const s = scores[docs[j]!]!;
      if (s > heap[0]!) this.siftDown(0, s);
    }
    return heap[0]!;
  }

  private siftDown(at: number, value: number): void {
    const heap = this.heap!;
    const k = this.k;
    let i = at;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= k) break;
      if (child + 1 < k && heap[child + 1]! < heap[child]!) child++;
      if (heap[child]! >= value) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = value;
  }
}

/** BM25 search over an in-memory {@link Bm25Index}; see {@link PostingsSearcher}. */
export class Bm25Searcher extends PostingsSearcher<Bm25Index> {
  protected analyze(text: string): WeightedQuery {
    return analyzeQuery(this.index, text);
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
