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
   * MaxScore (Turtle and Flood, 1995), document at a time. Terms sorted by upper bound;
   * the low ones whose bounds together stay below the k-th best score are "non-essential":
   * a document only they contain cannot enter, and they are looked up (by galloping search)
   * only for candidates that could still reach the top k. Contributions are summed in the
   * query's term order, as the exhaustive path sums them, so the scores are the same.
   */
  private maxScore(terms: number[], factors: number[], k: number): TopK {
    const { index, params } = this;
    const norms = index.lengthNorms(params);
    const n = terms.length;
    // Upper bounds, widened a little so rounding never prunes a document that qualifies.
    const ub = terms.map((t, q) => factors[q]! * index.bound(t, params) * (1 + 1e-9));
    const order = terms.map((_, q) => q).sort((a, b) => ub[a]! - ub[b]!);
    const factor = order.map((q) => factors[q]!);
    const lists = order.map((q) => index.postings(terms[q]!));
    const docs = lists.map((l) => l.docs);
    const tfs = lists.map((l) => l.tfs);
    const pos = new Int32Array(n);
    const end = Int32Array.from(lists, (l) => l.docs.length);
    const prefix = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + ub[order[i]!]!;
    const contribution = new Float64Array(n); // by query position
    const top = new TopK(k, index.docnoOrder());
    let threshold = -Infinity;
    let essential = 0; // sorted terms [0, essential) are non-essential
    for (;;) {
      let d = Infinity;
      for (let i = essential; i < n; i++)
        if (pos[i]! < end[i]! && docs[i]![pos[i]!]! < d) d = docs[i]![pos[i]!]!;
      if (d === Infinity) break;
      contribution.fill(0);
      let partial = 0;
      const norm = norms[d]!;
      for (let i = essential; i < n; i++) {
        const p = pos[i]!;
        if (p < end[i]! && docs[i]![p] === d) {
          const tf = tfs[i]![p]!;
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
        const p = advance(docs[i]!, pos[i]!, end[i]!, d);
        pos[i] = p;
        if (p < end[i]! && docs[i]![p] === d) {
          const tf = tfs[i]![p]!;
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
    return top;
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
