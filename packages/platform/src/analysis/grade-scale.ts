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

/**
 * The widest grade scale agreement is computed over: its confusion matrix and weights grow
 * with the square of the number of grades, so a stray grade such as 2000000000 must not
 * turn a 0-3 scale into two billion rows.
 */
export const MAX_SCALE_GRADES = 1000;

/** How many grades a scale holds, both ends included. */
export function scaleWidth(scale: GradeScale): number {
  return scale.max - scale.min + 1;
}

/** A grade of one of two label sets, with where it is. */
export interface LocatedGrade {
  /** Which of the two label sets holds it. */
  side: 'a' | 'b';
  qid: string;
  docno: string;
  grade: number;
}

/**
 * The grade that stretches the observed scale of `a` and `b` most: of the lowest and the
 * highest grade seen, the one farther from zero (where grades usually start).
 */
export function outlyingGrade(
  a: ReadonlyMap<string, ReadonlyMap<string, number>>,
  b: ReadonlyMap<string, ReadonlyMap<string, number>>,
): LocatedGrade | undefined {
  let low: LocatedGrade | undefined;
  let high: LocatedGrade | undefined;
  for (const [side, grades] of [
    ['a', a],
    ['b', b],
  ] as const) {
    for (const [qid, docs] of grades) {
      for (const [docno, grade] of docs) {
        if (low === undefined || grade < low.grade) low = { side, qid, docno, grade };
        if (high === undefined || grade > high.grade) high = { side, qid, docno, grade };
      }
    }
  }
  if (low === undefined || high === undefined) return undefined;
  return Math.abs(high.grade) >= Math.abs(low.grade) ? high : low;
}
