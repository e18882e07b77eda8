// The analysis behind `assay ppi` and the API's prediction-powered estimates: a leaderboard
// whose means come from a few human labels and LLM labels on everything (PPI++), with
// paired differences tested and corrected per measure.
import { evaluateRun, prepareQrels, resolveMeasures, type RunEvaluation } from '@assay/measures';
import type { Qrels, Run } from '@assay/trec';
import {
  adjustPValues,
  predictionPoweredMean,
  type PredictionPoweredResult,
  type PValueAdjustment,
} from '@assay/stats';

/** What people labelled: whole topics (every judged pair of them) or single pairs. */
export type PpiSampling = 'topics' | 'pairs';

/** The samplings `assay ppi` accepts. */
export const PPI_SAMPLINGS = ['topics', 'pairs'] as const satisfies readonly PpiSampling[];

/** Settings of a prediction-powered leaderboard. */
export interface PpiSettings {
  /** Intervals at level 1 − alpha; a difference is significant when its corrected p < alpha. */
  alpha: number;
  /** Correction of the difference tests, one family per measure. */
  correction: PValueAdjustment;
  /** A half-width to reach: each row then says how many labelled units it likely needs. */
  targetHalfWidth?: number;
}

/** The settings when none are given. */
export const PPI_DEFAULTS = { alpha: 0.05, correction: 'holm' } as const;

/** Inputs that cannot give an estimate (the command reports them as usage or input errors). */
export class PpiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PpiError';
  }
}

/** One run's values on the labelled units, per measure. */
export interface UnitValues {
  /** The measure under the human labels, one value per labelled unit. */
  labelled: number[];
  /** The measure under the LLM labels on the same units, in the same order. */
  predicted: number[];
  /** The mean under the LLM labels over the whole population (every LLM-labelled topic). */
  predictedMean: number;
}

/**
 * What the estimates are computed from: per measure and run, values on the same labelled
 * units (topics or pairs) in the same order, so differences between runs pair up.
 */
export interface PpiUnits {
  sampling: PpiSampling;
  /** Output columns, in -m order (the first orders the leaderboard). */
  measures: string[];
  runs: string[];
  /** Labelled units: topics, or pairs. */
  n: number;
  /** Units of the population: LLM-labelled topics, or pairs. */
  N: number;
  /** Topics the means are taken over (the LLM's). */
  topics: number;
  /** measure → run → values. */
  values: Record<string, Record<string, UnitValues>>;
}

/** An estimate and its interval. */
export interface PpiInterval {
  estimate: number;
  ci_lower: number;
  ci_upper: number;
}

/** One (run, measure) of the leaderboard, as `assay ppi --format json` writes it. */
export interface PpiRow extends PpiInterval {
  run: string;
  measure: string;
  /** Weight of the LLM labels (PPI++: tuned to minimise the variance, in [0, 1]). */
  lambda: number;
  /** Labelled units (topics, or pairs). */
  n: number;
  /** Units of the population. */
  N: number;
  /** From the human labels alone. */
  human: PpiInterval;
  /** The mean under the LLM labels alone. */
  llm_mean: number;
  /** With a target half-width: the labelled units it likely needs (at most N). */
  needed?: number;
}

/** The estimated difference of two runs on one measure, tested. */
export interface PpiPair extends PpiInterval {
  /** The run above in the leaderboard; the estimate is of mean(a − b). */
  a: string;
  b: string;
  measure: string;
  lambda: number;
  /** Two-sided p of "no difference" (t with n − 1 degrees of freedom). */
  p: number;
  /** p after the correction, applied over this measure's pairs. */
  p_adjusted: number;
  significant: boolean;
  human: PpiInterval;
}

/** A prediction-powered leaderboard. */
export interface PpiReport {
  sampling: PpiSampling;
  /** Confidence level of every interval (1 − alpha). */
  level: number;
  alpha: number;
  correction: PValueAdjustment;
  measures: string[];
  n: number;
  N: number;
  topics: number;
  method: string;
  targetHalfWidth?: number;
  /** With a target: the most labelled units any row needs, and how many more that is. */
  needed?: { units: number; more: number };
  /** Leaderboard order (by the first measure's estimate, best first), each run's measures in order. */
  rows: PpiRow[];
  pairs: PpiPair[];
}

/** How the estimates are made, stated in every output. */
export function ppiMethod(sampling: PpiSampling): string {
  const units =
    sampling === 'topics'
      ? 'topics people labelled (every judged pair of each), a uniform sample of the LLM-labelled topics'
      : 'pairs people labelled, a uniform sample of the LLM-labelled pairs';
  return (
    `prediction-powered inference (PPI++): estimate = human mean + λ·(LLM mean over everything − LLM mean on the ${units}); ` +
    'λ in [0, 1] minimises the variance; intervals: t on n − 1 degrees of freedom, finite-population corrected'
  );
}

/**
 * Per-topic values of runs evaluated with every qrels topic (`assay eval -c`), by measure,
 * run and topic.
 */
function topicValues(
  evaluations: readonly RunEvaluation[],
  measures: readonly string[],
): Map<string, Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, Map<string, number>>>();
  for (const measure of measures) {
    const byRun = new Map<string, Map<string, number>>();
    for (const e of evaluations) {
      const col = e.columns.findIndex((c) => c.name === measure);
      if (col < 0) throw new Error(`measure ${measure} was not computed for ${e.runid}`);
      byRun.set(e.runid, new Map(e.topics.map((t) => [t.qid, t.values[col] as number])));
    }
    out.set(measure, byRun);
  }
  return out;
}

/**
 * The units of topic sampling: runs evaluated (every qrels topic counting, as `assay eval
 * -c`) under the human labels of the sampled topics and under the LLM labels of every
 * topic. Every human topic must be an LLM topic; the runs must be the same in both.
 */
export function topicUnits(
  human: readonly RunEvaluation[],
  llm: readonly RunEvaluation[],
  measures: readonly string[],
): PpiUnits {
  const runs = llm.map((e) => e.runid);
  checkRuns(runs, human);
  const humanTopics = human[0]?.topics.map((t) => t.qid) ?? [];
  const llmTopics = new Set(llm[0]?.topics.map((t) => t.qid) ?? []);
  const outside = humanTopics.filter((t) => !llmTopics.has(t));
  if (outside.length > 0)
    throw new PpiError(
      `the human labels judge ${outside.length} topic(s) the LLM labels do not (${outside.slice(0, 5).join(', ')}); the LLM must label every topic`,
    );
  if (humanTopics.length < 2)
    throw new PpiError(
      `an estimate needs human labels on at least 2 topics; got ${humanTopics.length}`,
    );
  const h = topicValues(human, measures);
  const l = topicValues(llm, measures);
  const values: PpiUnits['values'] = {};
  for (const measure of measures) {
    values[measure] = {};
    for (const run of runs) {
      const hv = h.get(measure)!.get(run)!;
      const lv = l.get(measure)!.get(run)!;
      let sum = 0;
      for (const v of lv.values()) sum += v;
      values[measure]![run] = {
        labelled: humanTopics.map((t) => hv.get(t)!),
        predicted: humanTopics.map((t) => lv.get(t)!),
        predictedMean: sum / lv.size,
      };
    }
  }
  return {
    sampling: 'topics',
    measures: [...measures],
    runs,
    n: humanTopics.length,
    N: llmTopics.size,
    topics: llmTopics.size,
    values,
  };
}

function checkRuns(runs: readonly string[], other: readonly RunEvaluation[]): void {
  const duplicate = runs.find((r, i) => runs.indexOf(r) !== i);
  if (duplicate !== undefined)
    throw new PpiError(`two runs carry the tag '${duplicate}'; tags must differ`);
  if (runs.length < 1) throw new PpiError('give at least one run');
  if (other.length !== runs.length || other.some((e, i) => e.runid !== runs[i]))
    throw new PpiError('the runs evaluated under both label sets differ');
}

/**
 * The units of pair sampling: people labelled a uniform sample of the pairs the LLM
 * labelled (graded 0 or more). Every measure must be linear in the labels (P@k, SetP, dcg,
 * Judged@k: see `linearInLabels` in @assay/measures); a pair's share of a run's mean is the
 * measure of the run on that pair alone, computed as `assay eval -c` computes it, times
 * |pairs|/topics so the population mean of the shares is the run's mean. Runs are parsed
 * runs (`parseRun`).
 */
export function pairUnits(
  human: Qrels,
  llm: Qrels,
  runs: readonly Run[],
  measureSpecs: readonly string[],
): PpiUnits {
  const resolved = resolveMeasures(measureSpecs);
  const notLinear = resolved
    .filter((m) => m.definition.linearInLabels !== true)
    .flatMap((m) => m.names);
  if (notLinear.length > 0)
    throw new PpiError(
      `pair sampling estimates only measures linear in the labels (P@k, SetP, dcg, Judged@k); not ${notLinear.join(', ')}: sample whole topics instead`,
    );
  const measures = resolved.flatMap((m) => m.names);
  const names = runs.map((r) => r.name);
  const duplicate = names.find((r, i) => names.indexOf(r) !== i);
  if (duplicate !== undefined)
    throw new PpiError(`two runs carry the tag '${duplicate}'; tags must differ`);
  let population = 0;
  for (const docs of llm.values()) for (const g of docs.values()) if (g >= 0) population++;
  const sampled: Array<{ topic: string; docno: string; human: number; llm: number }> = [];
  for (const [topic, docs] of human) {
    for (const [docno, grade] of docs) {
      if (grade < 0) continue;
      const g = llm.get(topic)?.get(docno);
      if (g === undefined || g < 0)
        throw new PpiError(
          `topic ${topic} document ${docno} has a human label but no LLM label; people label a sample of the LLM-labelled pairs`,
        );
      sampled.push({ topic, docno, human: grade, llm: g });
    }
  }
  sampled.sort((x, y) => compare(x.topic, y.topic) || compare(x.docno, y.docno));
  if (sampled.length < 2)
    throw new PpiError(`an estimate needs human labels on at least 2 pairs; got ${sampled.length}`);
  const prepared = prepareQrels(llm);
  const topics = prepared.topics.length;
  const scale = population / topics;
  const values: PpiUnits['values'] = {};
  for (const m of measures) values[m] = {};
  for (const run of runs) {
    const means = evaluateRun(prepared, run, resolved, { completeTopics: true });
    const labelled = measures.map(() => [] as number[]);
    const predicted = measures.map(() => [] as number[]);
    for (const s of sampled) {
      const entries = run.topics.get(s.topic);
      const alone = (grade: number): number[] => {
        if (entries === undefined) return measures.map(() => 0);
        const one = prepareQrels(new Map([[s.topic, new Map([[s.docno, grade]])]]));
        const single: Run = { name: run.name, topics: new Map([[s.topic, entries]]) };
        return evaluateRun(one, single, resolved).topics[0]!.values as number[];
      };
      const h = alone(s.human);
      const l = alone(s.llm);
      measures.forEach((_, k) => {
        labelled[k]!.push(h[k]! * scale);
        predicted[k]!.push(l[k]! * scale);
      });
    }
    measures.forEach((m, k) => {
      values[m]![run.name] = {
        labelled: labelled[k]!,
        predicted: predicted[k]!,
        predictedMean: means.summary[means.columns.findIndex((c) => c.name === m)] as number,
      };
    });
  }
  return {
    sampling: 'pairs',
    measures,
    runs: names,
    n: sampled.length,
    N: population,
    topics,
    values,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function interval(r: { estimate: number; lower: number; upper: number }): PpiInterval {
  return { estimate: r.estimate, ci_lower: r.lower, ci_upper: r.upper };
}

/** Labelled units needed for a half-width h: 1 / (h²/(t²·S²) + 1/N), at least 2, at most N. */
function unitsNeeded(r: PredictionPoweredResult, target: number): number {
  if (r.n === r.N) return r.N;
  const t = r.se > 0 ? (r.upper - r.estimate) / r.se : 0;
  if (t === 0 || r.residualVariance === 0) return Math.min(r.N, 2);
  const needed = 1 / ((target * target) / (t * t * r.residualVariance) + 1 / r.N);
  return Math.min(r.N, Math.max(2, Math.ceil(needed - 1e-9)));
}

/**
 * The prediction-powered leaderboard: per run and measure the PPI++ estimate of the mean
 * with its interval and λ, the human-only estimate and the LLM-only mean; per measure every
 * pair of runs (the higher one first, by the first measure) with the estimated mean
 * difference, its interval and a two-sided test, corrected over the measure's pairs.
 */
export function ppiLeaderboard(units: PpiUnits, settings: PpiSettings): PpiReport {
  const level = 1 - settings.alpha;
  if (!(settings.alpha > 0 && settings.alpha < 1))
    throw new PpiError('alpha must lie between 0 and 1');
  if (settings.targetHalfWidth !== undefined && !(settings.targetHalfWidth > 0))
    throw new PpiError('the target half-width must be above 0');
  const estimate = (v: UnitValues) =>
    predictionPoweredMean(
      v.labelled,
      v.predicted,
      { mean: v.predictedMean, size: units.N },
      { level },
    );
  const results = new Map<string, Map<string, PredictionPoweredResult>>();
  for (const m of units.measures) {
    const byRun = new Map<string, PredictionPoweredResult>();
    for (const run of units.runs) byRun.set(run, estimate(units.values[m]![run]!));
    results.set(m, byRun);
  }
  const first = units.measures[0]!;
  const order = [...units.runs].sort(
    (a, b) =>
      results.get(first)!.get(b)!.estimate - results.get(first)!.get(a)!.estimate || compare(a, b),
  );
  const rows: PpiRow[] = [];
  let needed = 0;
  for (const run of order) {
    for (const m of units.measures) {
      const r = results.get(m)!.get(run)!;
      const row: PpiRow = {
        run,
        measure: m,
        ...interval(r),
        lambda: r.lambda,
        n: r.n,
        N: r.N,
        human: interval(r.classical),
        llm_mean: r.predictedMean,
      };
      if (settings.targetHalfWidth !== undefined) {
        row.needed = unitsNeeded(r, settings.targetHalfWidth);
        needed = Math.max(needed, row.needed);
      }
      rows.push(row);
    }
  }
  const pairs: PpiPair[] = [];
  for (const m of units.measures) {
    const tested = [] as Array<Omit<PpiPair, 'p_adjusted' | 'significant'>>;
    for (let i = 0; i < order.length; i++) {
      for (let j = i + 1; j < order.length; j++) {
        const a = units.values[m]![order[i]!]!;
        const b = units.values[m]![order[j]!]!;
        const r = predictionPoweredMean(
          a.labelled.map((v, k) => v - b.labelled[k]!),
          a.predicted.map((v, k) => v - b.predicted[k]!),
          { mean: a.predictedMean - b.predictedMean, size: units.N },
          { level },
        );
        tested.push({
          a: order[i]!,
          b: order[j]!,
          measure: m,
          ...interval(r),
          lambda: r.lambda,
          p: r.p,
          human: interval(r.classical),
        });
      }
    }
    const adjusted = adjustPValues(
      tested.map((t) => t.p),
      settings.correction,
    );
    tested.forEach((t, k) =>
      pairs.push({ ...t, p_adjusted: adjusted[k]!, significant: adjusted[k]! < settings.alpha }),
    );
  }
  return {
    sampling: units.sampling,
    level,
    alpha: settings.alpha,
    correction: settings.correction,
    measures: units.measures,
    n: units.n,
    N: units.N,
    topics: units.topics,
    method: ppiMethod(units.sampling),
    ...(settings.targetHalfWidth === undefined
      ? {}
      : {
          targetHalfWidth: settings.targetHalfWidth,
          needed: { units: needed, more: Math.max(0, needed - units.n) },
        }),
    rows,
    pairs,
  };
}
