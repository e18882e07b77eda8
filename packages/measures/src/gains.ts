import type { RankedTopic } from './ranking.js';

/** One grade's gain and how many judged documents have that grade. */
export interface GradeGain {
  grade: number;
  gain: number;
  count: number;
}

/** Parsed `grade=gain` pairs (trec_eval's ndcg/G/rbp parameters); non-integer names are ignored. */
export type GainOverrides = ReadonlyArray<{ name: string; value: number }>;

const INTEGER = /^[+-]?\d+$/;

/**
 * The gain table trec_eval builds for a topic: every grade 0..numLevels-1 with gain equal
 * to the grade unless overridden, plus overridden grades that nobody used (count 0),
 * ordered by increasing gain.
 */
export function buildGains(topic: RankedTopic, overrides: GainOverrides): GradeGain[] {
  const gains: GradeGain[] = [];
  for (const pair of overrides) {
    if (!INTEGER.test(pair.name)) continue;
    gains.push({ grade: Number.parseInt(pair.name, 10), gain: pair.value, count: 0 });
  }
  const numExplicit = gains.length;
  for (let grade = 0; grade < topic.numLevels; grade++) {
    const count = topic.levelCounts[grade] ?? 0;
    let found = false;
    for (let j = 0; j < numExplicit; j++) {
      if (gains[j]!.grade === grade) {
        gains[j]!.count = count;
        found = true;
        break;
      }
    }
    if (!found) gains.push({ grade, gain: grade, count });
  }
  // trec_eval compares gains after truncating their difference to an integer; a stable
  // sort on the same key keeps its order for every gain table with integral differences.
  gains.sort((a, b) => Math.trunc(a.gain - b.gain));
  return gains;
}

/** Gain of a relevance value (0 for grades missing from the table, e.g. unjudged). */
export function gainOf(rel: number, gains: readonly GradeGain[]): number {
  for (const g of gains) if (g.grade === rel) return g.gain;
  return 0;
}

/**
 * Walks the ideal ranking: call `next()` once per rank to get the ideal gain at that rank
 * (highest gains first, each grade repeated as many times as it was judged).
 */
export function idealGainCursor(gains: readonly GradeGain[]): {
  next(): number;
  current(): number;
} {
  let level = gains.length - 1;
  let atLevel = 0;
  let gain = level >= 0 ? gains[level]!.gain : 0;
  return {
    next() {
      atLevel++;
      while (level >= 0 && atLevel > gains[level]!.count) {
        atLevel = 1;
        level--;
        gain = level >= 0 ? gains[level]!.gain : 0;
      }
      return gain;
    },
    current() {
      return gain;
    },
  };
}
