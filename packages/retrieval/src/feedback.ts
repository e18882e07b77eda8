import type { Bm25Index } from './bm25-index.js';
import type { Hit, WeightedQuery } from './search.js';
import {
  documentVector,
  dot,
  queryVector,
  topTerms,
  type TermVector,
  weightedCentroid,
} from './term-vectors.js';

/** RM3 settings (Anserini's defaults: 10 documents, 10 terms, original weight 0.5). */
export interface Rm3Options {
  fbDocs: number;
  fbTerms: number;
  originalQueryWeight: number;
}

/** Anserini's RM3 defaults. */
export const DEFAULT_RM3: Rm3Options = { fbDocs: 10, fbTerms: 10, originalQueryWeight: 0.5 };

/** Classic Rocchio settings. */
export interface RocchioOptions {
  fbDocs: number;
  fbTerms: number;
  alpha: number;
  beta: number;
  gamma: number;
  /** Documents from the bottom of the first ranking used as negatives when gamma > 0. */
  fbNegDocs: number;
}

/** Anserini's Rocchio defaults: 10 documents, 10 terms, α = 1, β = 0.75, γ = 0. */
export const DEFAULT_ROCCHIO: RocchioOptions = {
  fbDocs: 10,
  fbTerms: 10,
  alpha: 1,
  beta: 0.75,
  gamma: 0,
  fbNegDocs: 10,
};

/** Weighted Rocchio settings (LLMForum-RAG). */
export interface WeightedRocchioOptions {
  /** Documents retrieved first and re-ranked by cosine (the paper: 50). */
  depth: number;
  /** How many of the re-ranked documents are positives (the paper tries 3, 5, 10, 20). */
  positives: number;
  /** Expansion terms kept besides the query's own (sparse vectors need a cut-off). */
  fbTerms: number;
  alpha: number;
  beta: number;
  gamma: number;
}

/** The paper's settings: top 50, 5 positives, α = β = γ = 1; 10 expansion terms. */
export const DEFAULT_WEIGHTED_ROCCHIO: WeightedRocchioOptions = {
  depth: 50,
  positives: 5,
  fbTerms: 10,
  alpha: 1,
  beta: 1,
  gamma: 1,
};

/** Terms RM3 may add: 2..20 characters of letters or digits, in at most 10% of documents. */
function rm3Eligible(index: Bm25Index, t: number): boolean {
  const term = index.data.terms[t]!;
  if (term.length < 2 || term.length > 20 || !/^[\p{L}\p{N}]+$/u.test(term)) return false;
  return index.df(t) / index.documentCount <= 0.1;
}

/**
 * RM3 as Anserini computes it: each feedback document's term frequencies divided by its
 * length (over eligible terms), weighted by its retrieval score and summed; the top
 * `fbTerms` terms, scaled to sum 1, interpolated with the query's term counts scaled to
 * sum 1: w·q + (1 − w)·rm.
 */
export function rm3Query(
  index: Bm25Index,
  query: WeightedQuery,
  firstRanking: readonly Hit[],
  options: Rm3Options = DEFAULT_RM3,
): WeightedQuery {
  const model: TermVector = new Map();
  for (const hit of firstRanking.slice(0, options.fbDocs)) {
    const { terms, tfs } = index.documentTerms(hit.doc);
    let length = 0;
    const kept: number[] = [];
    for (let i = 0; i < terms.length; i++)
      if (rm3Eligible(index, terms[i]!)) {
        length += tfs[i]!;
        kept.push(i);
      }
    if (length === 0) continue;
    for (const i of kept) {
      const t = terms[i]!;
      model.set(t, (model.get(t) ?? 0) + (tfs[i]! / length) * hit.score);
    }
  }
  const relevance = scaleToSum(topTerms(index, model, options.fbTerms));
  const original = scaleToSum(query);
  const w = options.originalQueryWeight;
  const out: WeightedQuery = new Map();
  for (const [t, v] of original) out.set(t, w * v);
  for (const [t, v] of relevance) out.set(t, (out.get(t) ?? 0) + (1 - w) * v);
  return out;
}

function scaleToSum(vector: TermVector): TermVector {
  let sum = 0;
  for (const v of vector.values()) sum += v;
  const out: TermVector = new Map();
  for (const [t, v] of vector) out.set(t, sum === 0 ? 0 : v / sum);
  return out;
}

/**
 * Combines q' = α·q + β·pos − γ·neg over unit tf-idf vectors and keeps, as the new query,
 * the query's own terms and the `fbTerms` best other terms, positive weights only.
 */
function expandedQuery(
  index: Bm25Index,
  query: TermVector,
  positive: TermVector,
  negative: TermVector,
  o: { alpha: number; beta: number; gamma: number; fbTerms: number },
): WeightedQuery {
  const combined: TermVector = new Map();
  const add = (vector: TermVector, factor: number) => {
    if (factor === 0) return;
    for (const [t, v] of vector) combined.set(t, (combined.get(t) ?? 0) + factor * v);
  };
  add(query, o.alpha);
  add(positive, o.beta);
  add(negative, -o.gamma);
  const out: WeightedQuery = new Map();
  const others: TermVector = new Map();
  for (const [t, v] of combined) {
    if (query.has(t)) {
      if (v > 0) out.set(t, v);
    } else others.set(t, v);
  }
  for (const [t, v] of topTerms(index, others, o.fbTerms)) out.set(t, v);
  return out;
}

/**
 * Classic Rocchio over unit tf-idf vectors: positives are the top `fbDocs` documents of
 * the first ranking (equal weights), negatives its last `fbNegDocs` (when γ > 0).
 */
export function rocchioQuery(
  index: Bm25Index,
  query: WeightedQuery,
  firstRanking: readonly Hit[],
  options: RocchioOptions = DEFAULT_ROCCHIO,
): WeightedQuery {
  const positives = firstRanking.slice(0, options.fbDocs).map((h) => documentVector(index, h.doc));
  const rest = firstRanking.slice(options.fbDocs);
  const negatives =
    options.gamma > 0
      ? rest
          .slice(Math.max(0, rest.length - options.fbNegDocs))
          .map((h) => documentVector(index, h.doc))
      : [];
  return expandedQuery(
    index,
    queryVector(index, query),
    weightedCentroid(
      positives,
      positives.map(() => 1),
    ),
    weightedCentroid(
      negatives,
      negatives.map(() => 1),
    ),
    options,
  );
}

/**
 * The weighted Rocchio of LLMForum-RAG, over unit tf-idf vectors: the first `depth`
 * documents re-ranked by cosine s to the query; the top `positives` are relevant, the
 * rest not; centroids weighted by s (relevant) and 1 − s (others);
 * q' = α·q + β·pos − γ·neg, one round.
 */
export function weightedRocchioQuery(
  index: Bm25Index,
  query: WeightedQuery,
  firstRanking: readonly Hit[],
  options: WeightedRocchioOptions = DEFAULT_WEIGHTED_ROCCHIO,
): WeightedQuery {
  const q = queryVector(index, query);
  const scored = firstRanking.slice(0, options.depth).map((hit, rank) => {
    const vector = documentVector(index, hit.doc);
    return { vector, similarity: dot(q, vector), rank };
  });
  scored.sort((a, b) => b.similarity - a.similarity || a.rank - b.rank);
  const pos = scored.slice(0, options.positives);
  const neg = scored.slice(options.positives);
  return expandedQuery(
    index,
    q,
    weightedCentroid(
      pos.map((d) => d.vector),
      pos.map((d) => d.similarity),
    ),
    weightedCentroid(
      neg.map((d) => d.vector),
      neg.map((d) => 1 - d.similarity),
    ),
    options,
  );
}

/**
 * A whole document as a query: every term it has, weighted by its frequency in it (the
 * query its text would make, read from the forward index).
 */
export function wholeDocumentQuery(index: Bm25Index, doc: number): WeightedQuery {
  const { terms, tfs } = index.documentTerms(doc);
  const out: WeightedQuery = new Map();
  for (let i = 0; i < terms.length; i++) out.set(terms[i]!, tfs[i]!);
  return out;
}

/**
 * A document as a query: its `terms` terms of highest tf-idf weight (its most
 * discriminative), each with weight 1.
 */
export function documentQuery(index: Bm25Index, doc: number, terms: number): WeightedQuery {
  const out: WeightedQuery = new Map();
  for (const t of topTerms(index, documentVector(index, doc), terms).keys()) out.set(t, 1);
  return out;
}
