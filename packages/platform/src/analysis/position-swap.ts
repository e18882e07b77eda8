// Position-swap consistency of comparative answer judging: the same answers judged side by
// side twice, in different orders (`assay answers score --mode comparative` with two
// seeds), and whether the judge's preference between two answers survives their swap.
import type { AnswerScoreLine } from '../answers/answer-files.js';

/** Position-swap consistency on one criterion. */
export interface SwapCriterion {
  criterion: string;
  /** Pairs of answers (same topic) shown in one order in the first file and the other in the second. */
  swapped: number;
  /** Swapped pairs whose preference (higher score, or a tie) is the same both times. */
  consistent: number;
  /** consistent / swapped. */
  consistency: number;
  /** Swapped pairs where the answer shown first won both times: the preference followed the position. */
  firstWins: number;
  /** Swapped pairs where the answer shown second won both times. */
  secondWins: number;
}

/** The position-swap probe of two comparative score files. */
export interface PositionSwapReport {
  /** Topics both files judged comparatively. */
  topics: number;
  criteria: SwapCriterion[];
}

interface Shown {
  /** Position letter per system (A, B, …), and mean score per criterion (trials averaged). */
  label: string;
  scores: Map<string, number>;
}

function byTopic(lines: readonly AnswerScoreLine[]): Map<string, Map<string, Shown>> {
  const sums = new Map<
    string,
    Map<string, { label: string; sums: Map<string, number>; n: number }>
  >();
  for (const line of lines) {
    if (line.label === undefined) continue;
    let topic = sums.get(line.topic);
    if (!topic) sums.set(line.topic, (topic = new Map()));
    let s = topic.get(line.system);
    if (!s) topic.set(line.system, (s = { label: line.label, sums: new Map(), n: 0 }));
    s.n++;
    for (const [c, v] of Object.entries(line.scores)) s.sums.set(c, (s.sums.get(c) ?? 0) + v);
  }
  const out = new Map<string, Map<string, Shown>>();
  for (const [topic, systems] of sums) {
    const m = new Map<string, Shown>();
    for (const [system, s] of systems)
      m.set(system, {
        label: s.label,
        scores: new Map([...s.sums].map(([c, v]) => [c, v / s.n])),
      });
    out.set(topic, m);
  }
  return out;
}

/**
 * For every topic judged comparatively in both files (lines with a `label`) and every pair
 * of systems shown in one order in `first` and the other in `second`: on each criterion,
 * whether the preference (the higher mean score over trials, or a tie) is the same both
 * times, and when it is not, whether the first-shown or the second-shown answer won both
 * times. Lines without a label (pointwise scoring) are ignored.
 */
export function positionSwapConsistency(
  first: readonly AnswerScoreLine[],
  second: readonly AnswerScoreLine[],
): PositionSwapReport {
  const a = byTopic(first);
  const b = byTopic(second);
  const criteria = new Map<string, SwapCriterion>();
  let topics = 0;
  for (const [topic, shownA] of a) {
    const shownB = b.get(topic);
    if (!shownB) continue;
    topics++;
    const systems = [...shownA.keys()].filter((s) => shownB.has(s)).sort();
    for (let i = 0; i < systems.length; i++) {
      for (let j = i + 1; j < systems.length; j++) {
        const [s, t] = [systems[i]!, systems[j]!];
        const orderA = Math.sign(compare(shownA.get(s)!.label, shownA.get(t)!.label));
        const orderB = Math.sign(compare(shownB.get(s)!.label, shownB.get(t)!.label));
        if (orderA === orderB) continue; // not swapped
        for (const [c, va] of shownA.get(s)!.scores) {
          const wa = shownA.get(t)!.scores.get(c);
          const vb = shownB.get(s)!.scores.get(c);
          const wb = shownB.get(t)!.scores.get(c);
          if (wa === undefined || vb === undefined || wb === undefined) continue;
          let row = criteria.get(c);
          if (!row)
            criteria.set(
              c,
              (row = {
                criterion: c,
                swapped: 0,
                consistent: 0,
                consistency: 0,
                firstWins: 0,
                secondWins: 0,
              }),
            );
          row.swapped++;
          const prefA = Math.sign(va - wa);
          const prefB = Math.sign(vb - wb);
          if (prefA === prefB) row.consistent++;
          // s is shown first in A when orderA < 0; it wins in A when prefA > 0.
          else if (prefA !== 0 && prefB !== 0) {
            const firstWonA = orderA < 0 === prefA > 0;
            const firstWonB = orderB < 0 === prefB > 0;
            if (firstWonA && firstWonB) row.firstWins++;
            else if (!firstWonA && !firstWonB) row.secondWins++;
          }
        }
      }
    }
  }
  const rows = [...criteria.values()].sort((x, y) => compare(x.criterion, y.criterion));
  for (const r of rows) r.consistency = r.swapped === 0 ? Number.NaN : r.consistent / r.swapped;
  return { topics, criteria: rows };
}

function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
