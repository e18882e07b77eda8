// Compatibility (Clarke, Vtyurina & Smucker, "Assessing top-k preferences", TOIS 2021), as
// ir_measures' `Compat(p=0.95)` computes it: the rank-biased overlap, to the depth of the
// longer list, of the run's ranking with an ideal ranking of the topic's relevant documents,
// divided by the overlap the ideal ranking has with itself.
import type { RankedTopic } from './ranking.js';

/** Persistence of `Compat` when none is given (ir_measures' default). */
export const COMPAT_P = 0.95;

/**
 * Compat of a ranked topic. The ideal ranking holds every document graded 1 or more,
 * highest grade first; documents of one grade are ordered as the run ranks them, those it
 * did not retrieve after those it did (ir_measures orders them by the run's score, giving
 * missing ones 0, so the two agree whenever scores are positive and untied; ties in score
 * follow trec_eval's ranking here, as every assay measure). With depth D = max(retrieved,
 * relevant) and X_d the overlap of the first d documents of the ranking and of the ideal:
 * RBO = Σ_{d=1..D} p^(d−1)·X_d/d / Σ_{d=1..D} p^(d−1), and Compat = RBO / RBO(ideal, ideal)
 * when `normalize` (the default), else RBO. 0 for a topic without relevant documents.
 */
export function compatibility(t: RankedTopic, p: number, normalize: boolean): number {
  // Judged grades ascending, with their counts (from the qrels, not the run).
  const levels = t.levels;
  let relevant = 0;
  for (const level of levels) if (level.grade >= 1) relevant += level.count;
  const depth = Math.max(t.numRet, relevant);
  if (depth === 0 || relevant === 0) return 0;
  // above.get(g): judged documents graded higher than g.
  const above = new Map<number, number>();
  let higher = 0;
  for (let i = levels.length - 1; i >= 0; i--) {
    above.set(levels[i]!.grade, higher);
    higher += levels[i]!.count;
  }
  const seenOfGrade = new Map<number, number>();
  // joins[d]: documents that are in both top-d lists from depth d on.
  const joins = new Float64Array(depth + 1);
  for (let i = 0; i < t.numRet; i++) {
    const g = t.rels[i]!;
    if (g < 1) continue;
    const before = seenOfGrade.get(g) ?? 0;
    seenOfGrade.set(g, before + 1);
    const idealPosition = above.get(g)! + before + 1;
    joins[Math.max(i + 1, idealPosition)]!++;
  }
  let overlap = 0;
  let score = 0;
  let best = 0;
  let norm = 0;
  let weight = 1;
  for (let d = 1; d <= depth; d++) {
    overlap += joins[d]!;
    score += (weight * overlap) / d;
    best += (weight * Math.min(d, relevant)) / d;
    norm += weight;
    weight *= p;
  }
  return normalize ? score / best : score / norm;
}
