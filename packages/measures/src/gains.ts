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
 * The gain table trec_eval builds for a topic: every grade that some document has, with gain
 * equal to the grade unless overridden, plus the overridden grades (count 0 when nobody
 * has them), ordered by increasing gain. trec_eval also lists the grades between 0 and the
 * highest that nobody has (count 0, gain = grade); they change no measure but rbp's scaling
 * (see gainBounds), so they are left out: a grade of 2000000000 costs one entry.
 */
export function buildGains(topic: RankedTopic, overrides: GainOverrides): GradeGain[] {
  const gains = explicitGains(overrides);
  const numExplicit = gains.length;
  for (const { grade, count } of topic.levels) {
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

function explicitGains(overrides: GainOverrides): GradeGain[] {
  const gains: GradeGain[] = [];
  for (const pair of overrides) {
    if (!INTEGER.test(pair.name)) continue;
    gains.push({ grade: Number.parseInt(pair.name, 10), gain: pair.value, count: 0 });
  }
  return gains;
}

/**
 * The lowest and highest gain of trec_eval's full gain table, grades nobody has included:
 * the overridden gains and every grade from 0 to numLevels - 1 not overridden (whose gain
 * is the grade itself, so only the lowest and highest such grade matter).
 */
export function gainBounds(
  topic: RankedTopic,
  overrides: GainOverrides,
): { min: number; max: number } {
  const explicit = explicitGains(overrides);
  const overridden = new Set(explicit.map((g) => g.grade));
  let min = Infinity;
  let max = -Infinity;
  for (const g of explicit) {
    if (g.gain < min) min = g.gain;
    if (g.gain > max) max = g.gain;
  }
  let low = 0;
  while (low < topic.numLevels && overridden.has(low)) low++;
  let high = topic.numLevels - 1;
  while (high >= 0 && overridden.has(high)) high--;
  if (low <= high) {
    min = Math.min(min, low);
    max = Math.max(max, high);
  }
  return { min, max };
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
