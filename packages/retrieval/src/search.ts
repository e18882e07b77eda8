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

  constructor(
    readonly index: Bm25Index,
    readonly params: Bm25Params = DEFAULT_BM25,
  ) {
    this.scores = new Float64Array(index.documentCount);
    this.seen = new Uint8Array(index.documentCount);
    this.touched = new Uint32Array(index.documentCount);
  }

  /** The top `k` documents for query text, ordered score desc, then docno desc. */
  search(text: string, k: number): Hit[] {
    return this.searchWeighted(analyzeQuery(this.index, text), k);
  }

  /** The top `k` documents for a weighted query; terms with weight ≤ 0 are ignored. */
  searchWeighted(query: WeightedQuery, k: number): Hit[] {
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
}
