import { averageTrials, type AnswerScore } from './answer-quality.js';
import { cohenKappa, exactAgreement, krippendorffAlpha } from './agreement.js';

/** Agreement of two raters (a judge, people) on one criterion of the same answers. */
export interface CriterionAgreement {
  criterion: string;
  /** Answers (topic, system) both graded on this criterion. */
  n: number;
  /** Share of those answers with the same (rounded) grade. */
  exact: number;
  kappaLinear: number;
  kappaQuadratic: number;
  alphaOrdinal: number;
  alphaInterval: number;
}

/**
 * Per criterion, how far two sets of answer scores agree on the answers both graded: each
 * rater's grade of an answer is the mean of its trials; exact agreement, Cohen's kappa
 * (linear and quadratic weights over the integer scale min…max) and ordinal alpha use that
 * mean rounded to the nearest grade (halves up), interval alpha the mean itself. Criteria
 * are those both sets grade, in the order of `a`.
 */
export function answerScoreAgreement(
  a: readonly AnswerScore[],
  b: readonly AnswerScore[],
  scale: { min: number; max: number },
): CriterionAgreement[] {
  const labels: number[] = [];
  for (let g = scale.min; g <= scale.max; g++) labels.push(g);
  const meansA = averageTrials(a);
  const meansB = averageTrials(b);
  const out: CriterionAgreement[] = [];
  for (const [criterion, bySystemA] of meansA) {
    const bySystemB = meansB.get(criterion);
    if (!bySystemB) continue;
    const x: number[] = [];
    const y: number[] = [];
    for (const [system, topicsA] of bySystemA) {
      const topicsB = bySystemB.get(system);
      if (!topicsB) continue;
      for (const [topic, value] of topicsA) {
        const other = topicsB.get(topic);
        if (other === undefined) continue;
        x.push(value);
        y.push(other);
      }
    }
    const rounded = (v: number) => Math.min(scale.max, Math.max(scale.min, Math.floor(v + 0.5)));
    const rx = x.map(rounded);
    const ry = y.map(rounded);
    const none = x.length === 0;
    out.push({
      criterion,
      n: x.length,
      exact: none ? Number.NaN : exactAgreement(rx, ry),
      kappaLinear: none ? Number.NaN : cohenKappa(rx, ry, { weights: 'linear', labels }),
      kappaQuadratic: none ? Number.NaN : cohenKappa(rx, ry, { weights: 'quadratic', labels }),
      alphaOrdinal: none ? Number.NaN : krippendorffAlpha([rx, ry], 'ordinal'),
      alphaInterval: none ? Number.NaN : krippendorffAlpha([x, y], 'interval'),
    });
  }
  return out;
}
