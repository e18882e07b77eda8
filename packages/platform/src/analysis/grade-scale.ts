import type { GradeScale } from './agreement.js';

/**
 * Fits every grade into `scale`. A grade outside it is either clamped to the nearest end,
 * in place, when `clip` is on, or handed to `outside`, which throws the caller's error
 * (naming the file and line, or the label set). Returns how many grades were clamped.
 */
export function fitGradesToScale(
  grades: Map<string, Map<string, number>>,
  scale: GradeScale,
  clip: boolean,
  outside: (qid: string, docno: string, grade: number) => never,
): number {
  let clipped = 0;
  for (const [qid, docs] of grades) {
    for (const [docno, grade] of docs) {
      if (grade >= scale.min && grade <= scale.max) continue;
      if (!clip) outside(qid, docno, grade);
      docs.set(docno, Math.min(scale.max, Math.max(scale.min, grade)));
      clipped++;
    }
  }
  return clipped;
}
