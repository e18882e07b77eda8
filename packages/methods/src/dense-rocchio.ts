import { unitVector } from './dense-index.js';

/** One feedback document: its vector (unit length) and its cosine to the query. */
export interface FeedbackVector {
  vector: Float32Array;
  similarity: number;
}

/** Weights of the weighted Rocchio update. */
export interface RocchioWeights {
  alpha: number;
  beta: number;
  gamma: number;
}

/**
 * LLMForum-RAG's weighted Rocchio over embeddings, one round:
 * q' = α·q̂ + β·Σ s_i·d_i / Σ s_i − γ·Σ (1 − s_j)·d_j / Σ (1 − s_j), q̂ the query at unit
 * length, d_i the positives and d_j the negatives with their cosines s to the query. A
 * centroid whose weights sum to 0 (or that has no documents) is the zero vector.
 */
export function weightedRocchioVector(
  query: Float32Array,
  positives: readonly FeedbackVector[],
  negatives: readonly FeedbackVector[],
  weights: RocchioWeights,
): Float32Array {
  const out = unitVector(query).map((x) => weights.alpha * x);
  const addCentroid = (
    docs: readonly FeedbackVector[],
    weightOf: (s: number) => number,
    factor: number,
  ) => {
    const total = docs.reduce((sum, d) => sum + weightOf(d.similarity), 0);
    if (total === 0) return;
    for (const d of docs) {
      const w = (factor * weightOf(d.similarity)) / total;
      for (let j = 0; j < out.length; j++) out[j] = out[j]! + w * d.vector[j]!;
    }
  };
  addCentroid(positives, (s) => s, weights.beta);
  addCentroid(negatives, (s) => 1 - s, -weights.gamma);
  return out;
}
