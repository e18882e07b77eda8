import type { AnswerScore } from './answer-quality.js';

/** How much repeated trials of the same evaluation disagree, per system and criterion. */
export interface TrialSpread {
  /** Most trials any (topic, system) has. */
  maxTrials: number;
  /**
   * Per system and criterion: the mean, over the topics with at least two trials, of the
   * sample standard deviation of that topic's trial scores (NaN when no topic has two).
   */
  meanSd: Record<string, Record<string, number>>;
}

/**
 * The spread of repeated trials: for every (topic, system) with two or more trials, the
 * sample standard deviation (n − 1) of each criterion's trial scores, averaged over topics.
 *
 * @example
 * trialSpread([{ topic: 'q', system: 's', trial: 1, scores: { x: 2 } },
 *              { topic: 'q', system: 's', trial: 2, scores: { x: 4 } }])
 * // { maxTrials: 2, meanSd: { s: { x: 1.414… } } }
 */
export function trialSpread(rows: readonly AnswerScore[]): TrialSpread {
  const cells = new Map<string, Map<string, Map<string, number[]>>>();
  for (const row of rows) {
    let byTopic = cells.get(row.system);
    if (!byTopic) cells.set(row.system, (byTopic = new Map()));
    let byCriterion = byTopic.get(row.topic);
    if (!byCriterion) byTopic.set(row.topic, (byCriterion = new Map()));
    for (const [criterion, value] of Object.entries(row.scores)) {
      const list = byCriterion.get(criterion);
      if (list) list.push(value);
      else byCriterion.set(criterion, [value]);
    }
  }
  let maxTrials = 0;
  const meanSd: Record<string, Record<string, number>> = {};
  for (const [system, byTopic] of cells) {
    const sums = new Map<string, { sum: number; count: number }>();
    for (const byCriterion of byTopic.values())
      for (const [criterion, values] of byCriterion) {
        maxTrials = Math.max(maxTrials, values.length);
        const cell = sums.get(criterion) ?? { sum: 0, count: 0 };
        if (values.length >= 2) {
          const mean = values.reduce((a, b) => a + b, 0) / values.length;
          const ss = values.reduce((a, v) => a + (v - mean) ** 2, 0);
          cell.sum += Math.sqrt(ss / (values.length - 1));
          cell.count++;
        }
        sums.set(criterion, cell);
      }
    meanSd[system] = Object.fromEntries(
      [...sums].map(([c, { sum, count }]) => [c, count ? sum / count : Number.NaN]),
    );
  }
  return { maxTrials, meanSd };
}
