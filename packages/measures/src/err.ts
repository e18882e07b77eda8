// Expected reciprocal rank (Chapelle et al., CIKM 2009) as ir_measures computes `ERR@k`
// through gdeval (the TREC Web track script): a document of grade g stops the user with
// probability (2^g - 1) / 2^4, grades taken on gdeval's 0..4 scale (negative grades and
// unjudged documents count as 0, grades above 4 as 4).
import type { RankedTopic } from './ranking.js';

/** gdeval's highest grade: the stopping probability of a grade is (2^g - 1) / 2^MAX_GRADE. */
export const ERR_MAX_GRADE = 4;

function stopProbability(grade: number): number {
  const g = Math.min(Math.max(grade, 0), ERR_MAX_GRADE);
  return (2 ** g - 1) / 2 ** ERR_MAX_GRADE;
}

/** ERR of a list of grades in rank order, over its first `k` entries. */
function errOfGrades(grades: ArrayLike<number>, k: number): number {
  let err = 0;
  let reach = 1; // probability that the user reaches this rank
  const n = Math.min(grades.length, k);
  for (let i = 0; i < n; i++) {
    const stop = stopProbability(grades[i]!);
    err += (reach * stop) / (i + 1);
    reach *= 1 - stop;
  }
  return err;
}

/** ERR@k of a ranked topic (k = Infinity: the whole ranking). */
export function expectedReciprocalRank(t: RankedTopic, k: number): number {
  return errOfGrades(t.rels, k);
}

/**
 * nERR@k: ERR@k divided by the ERR@k of the ideal ranking (every judged document of the
 * topic, highest grade first); 0 when the topic has no document of grade 1 or more.
 */
export function normalizedExpectedReciprocalRank(t: RankedTopic, k: number): number {
  const ideal: number[] = [];
  for (let l = t.levels.length - 1; l >= 0 && ideal.length < k; l--) {
    const { grade, count } = t.levels[l]!;
    if (grade < 1) break;
    for (let c = 0; c < count && ideal.length < k; c++) ideal.push(grade);
  }
  const best = errOfGrades(ideal, k);
  return best > 0 ? expectedReciprocalRank(t, k) / best : 0;
}
