import { adjustPValues, type PValueAdjustment } from './corrections.js';
import { bootstrapCI, pairedTTest, welchTTest } from './significance.js';
import { winRates } from './win-rates.js';

/** One scored answer: a system's answer to a topic, in one trial, on each criterion. */
export interface AnswerScore {
  topic: string;
  system: string;
  /** Repetition number; rows of the same (topic, system) are averaged first. */
  trial?: number;
  scores: Readonly<Record<string, number>>;
}

/** Options of {@link answerQualityReport}. */
export interface AnswerQualityOptions {
  /** 'paired' (topics as pairs; default) or 'welch' (independent samples, unequal variances). */
  test?: 'paired' | 'welch';
  /** Correction applied per criterion over that criterion's pairs; default 'holm'. */
  correction?: PValueAdjustment;
  /** Significance level for `significant`; default 0.05. */
  alpha?: number;
  /** Seed of the bootstrap intervals; default 42. */
  seed?: number;
  /** Bootstrap resamples; default 10000. */
  samples?: number;
}

/** Per system: topics, means with 95% bootstrap intervals, win rates (per criterion). */
export interface AnswerSystemSummary {
  system: string;
  /** Topics with at least one score for this system. */
  n: number;
  means: Record<string, number>;
  ci: Record<string, [number, number]>;
  winRate: Record<string, number>;
  winRateNormalised: Record<string, number>;
}

/** One significance test between two systems on one criterion. */
export interface AnswerPairTest {
  a: string;
  b: string;
  criterion: string;
  test: 'paired' | 'welch';
  /** t statistic, positive when `a` scores higher. */
  statistic: number;
  p: number;
  /** p after the correction over this criterion's pairs. */
  pAdjusted: number;
  significant: boolean;
}

/** The answer-quality report: systems (sorted by name) and the pairwise tests. */
export interface AnswerQualityReport {
  systems: AnswerSystemSummary[];
  tests: AnswerPairTest[];
}

/**
 * Per-topic score of each system and criterion: the mean over that (topic, system)'s trials.
 * Returned as criterion → system → topic → value; criteria in order of first appearance.
 */
export function averageTrials(
  rows: readonly AnswerScore[],
): Map<string, Map<string, Map<string, number>>> {
  const sums = new Map<string, Map<string, Map<string, { sum: number; count: number }>>>();
  for (const row of rows) {
    for (const [criterion, value] of Object.entries(row.scores)) {
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new RangeError(
          `averageTrials: ${row.system} on topic ${row.topic} has ${criterion} = ${String(value)}`,
        );
      let bySystem = sums.get(criterion);
      if (!bySystem) sums.set(criterion, (bySystem = new Map()));
      let byTopic = bySystem.get(row.system);
      if (!byTopic) bySystem.set(row.system, (byTopic = new Map()));
      const cell = byTopic.get(row.topic) ?? { sum: 0, count: 0 };
      cell.sum += value;
      cell.count++;
      byTopic.set(row.topic, cell);
    }
  }
  const out = new Map<string, Map<string, Map<string, number>>>();
  for (const [criterion, bySystem] of sums) {
    const systems = new Map<string, Map<string, number>>();
    for (const [system, byTopic] of bySystem)
      systems.set(system, new Map([...byTopic].map(([t, c]) => [t, c.sum / c.count])));
    out.set(criterion, systems);
  }
  return out;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Aggregates scored answers as the SRSA paper reports them, per criterion:
 * - trials of the same (topic, system) are averaged first;
 * - per system the mean over its topics and a 95% percentile bootstrap interval (seeded);
 * - win rates over the topics every system answered (tied top scores win for each) and the
 *   same rates normalised to sum to 1;
 * - per pair of systems (a before b by name) a paired t-test over the topics both have, or
 *   Welch's t-test over each one's topics, with p-values corrected over the criterion's pairs.
 * A test that cannot be computed (fewer than two values, no variance) gives NaN statistic
 * and p, and is not significant. Systems are listed by name.
 */
export function answerQualityReport(
  rows: readonly AnswerScore[],
  options: AnswerQualityOptions = {},
): AnswerQualityReport {
  const test = options.test ?? 'paired';
  const correction = options.correction ?? 'holm';
  const alpha = options.alpha ?? 0.05;
  const seed = options.seed ?? 42;
  const samples = options.samples ?? 10000;
  const perTopic = averageTrials(rows);
  const systems = [...new Set(rows.map((r) => r.system))].sort(byName);
  const summaries = systems.map((system): AnswerSystemSummary => ({
    system,
    n: new Set(rows.filter((r) => r.system === system).map((r) => r.topic)).size,
    means: {},
    ci: {},
    winRate: {},
    winRateNormalised: {},
  }));
  const tests: AnswerPairTest[] = [];
  for (const [criterion, bySystem] of perTopic) {
    const valuesOf = (system: string) => [...(bySystem.get(system)?.values() ?? [])];
    for (const summary of summaries) {
      const values = valuesOf(summary.system);
      if (values.length === 0) {
        summary.means[criterion] = Number.NaN;
        summary.ci[criterion] = [Number.NaN, Number.NaN];
        continue;
      }
      const ci = bootstrapCI(values, { seed, samples });
      summary.means[criterion] = ci.estimate;
      summary.ci[criterion] = [ci.lower, ci.upper];
    }
    const byTopic = new Map<string, Map<string, number>>();
    for (const [system, topics] of bySystem)
      for (const [topic, value] of topics) {
        let cell = byTopic.get(topic);
        if (!cell) byTopic.set(topic, (cell = new Map()));
        cell.set(system, value);
      }
    const wins = winRates(byTopic, systems);
    for (const summary of summaries) {
      summary.winRate[criterion] = wins.winRate[summary.system]!;
      summary.winRateNormalised[criterion] = wins.normalised[summary.system]!;
    }
    const pairs: AnswerPairTest[] = [];
    for (let i = 0; i < systems.length; i++)
      for (let j = i + 1; j < systems.length; j++) {
        const a = systems[i]!;
        const b = systems[j]!;
        const { statistic, p } =
          test === 'paired'
            ? pairedOn(bySystem.get(a), bySystem.get(b))
            : welchOn(valuesOf(a), valuesOf(b));
        pairs.push({
          a,
          b,
          criterion,
          test,
          statistic,
          p,
          pAdjusted: Number.NaN,
          significant: false,
        });
      }
    const adjusted = adjustPValues(
      pairs.map((t) => t.p),
      correction,
    );
    pairs.forEach((t, k) => {
      t.pAdjusted = adjusted[k]!;
      t.significant = t.pAdjusted < alpha;
    });
    tests.push(...pairs);
  }
  return { systems: summaries, tests };
}

const UNTESTABLE = { statistic: Number.NaN, p: Number.NaN };

function pairedOn(
  a: ReadonlyMap<string, number> | undefined,
  b: ReadonlyMap<string, number> | undefined,
): { statistic: number; p: number } {
  if (!a || !b) return UNTESTABLE;
  const x: number[] = [];
  const y: number[] = [];
  for (const [topic, value] of a) {
    const other = b.get(topic);
    if (other === undefined) continue;
    x.push(value);
    y.push(other);
  }
  if (x.length < 2) return UNTESTABLE;
  const r = pairedTTest(x, y);
  return { statistic: r.statistic, p: r.p };
}

function welchOn(x: number[], y: number[]): { statistic: number; p: number } {
  if (x.length < 2 || y.length < 2) return UNTESTABLE;
  const r = welchTTest(x, y);
  return { statistic: r.statistic, p: r.p };
}
