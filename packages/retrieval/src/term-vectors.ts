import type { Bm25Index } from './bm25-index.js';
import type { WeightedQuery } from './search.js';

/** A sparse vector over term numbers. */
export type TermVector = Map<number, number>;

/**
 * A document's tf-idf vector: tf(t, d) · idf(t) (Lucene's idf), scaled to unit length.
 */
export function documentVector(index: Bm25Index, doc: number): TermVector {
  const { terms, tfs } = index.documentTerms(doc);
  const vector: TermVector = new Map();
  for (let i = 0; i < terms.length; i++) vector.set(terms[i]!, tfs[i]! * index.idf(terms[i]!));
  return unitLength(vector);
}

/** A query's tf-idf vector (query term counts times idf), scaled to unit length. */
export function queryVector(index: Bm25Index, query: WeightedQuery): TermVector {
  const vector: TermVector = new Map();
  for (const [t, count] of query) vector.set(t, count * index.idf(t));
  return unitLength(vector);
}

/** The vector scaled to Euclidean length 1 (a zero vector stays zero). */
export function unitLength(vector: TermVector): TermVector {
  let sum = 0;
  for (const v of vector.values()) sum += v * v;
  const norm = Math.sqrt(sum);
  if (norm === 0) return vector;
  const out: TermVector = new Map();
  for (const [t, v] of vector) out.set(t, v / norm);
  return out;
}

/** The dot product (cosine, for unit vectors). */
export function dot(a: TermVector, b: TermVector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let sum = 0;
  for (const [t, v] of small) {
    const w = large.get(t);
    if (w !== undefined) sum += v * w;
  }
  return sum;
}

/** Σ w_i · v_i / Σ w_i (the zero vector when the weights sum to 0). */
export function weightedCentroid(
  vectors: readonly TermVector[],
  weights: readonly number[],
): TermVector {
  const out: TermVector = new Map();
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) return out;
  vectors.forEach((vector, i) => {
    const w = weights[i]! / total;
    for (const [t, v] of vector) out.set(t, (out.get(t) ?? 0) + w * v);
  });
  return out;
}

/**
 * The `n` entries of highest weight (ties by the terms' string order, so the choice
 * is deterministic), weights ≤ 0 left out.
 */
export function topTerms(index: Bm25Index, vector: TermVector, n: number): TermVector {
  const terms = index.data.terms;
  const entries = [...vector].filter(([, v]) => v > 0);
  entries.sort((a, b) => b[1] - a[1] || (terms[a[0]]! < terms[b[0]]! ? -1 : 1));
  return new Map(entries.slice(0, n));
}
