// The analysis behind `assay judge-report` and the API's judge reports: how good one or
// many LLM judges are against the same human labels (or, without them, against each
// other), with intervals, scale usage, polarity, bias probes, leaderboard correlation and
// drift between versions of a judge.
import { evaluateRun, prepareQrels, resolveMeasures } from '@assay/measures';
import {
  clusterBootstrap,
  coincidenceMatrix,
  consensusLabels,
  fleissKappaFromSums,
  krippendorffAlphaFromCoincidences,
  type GradeMap,
} from '@assay/stats';
import type { Run } from '@assay/trec';
import type { AnswerScoreLine } from '../answers/answer-files.js';
import { lengthBias, type LengthBias } from './length-bias.js';
import { positionSwapConsistency, type PositionSwapReport } from './position-swap.js';
import {
  agreement,
  type AgreementReport,
  type GradeScale,
  type Grades,
  type Interval,
} from './agreement.js';
import {
  CORRELATION_DEFAULTS,
  correlateLeaderboards,
  leaderboardOf,
  type CorrelatedLeaderboard,
  type RankCorrelation,
} from './rank-correlation.js';

/** A grade used for less than this share of a label set's items is flagged: a collapsed scale. */
export const RARE_GRADE_SHARE = 0.02;

/** One label set of the report. */
export interface NamedGrades {
  name: string;
  grades: Grades;
}

/** What labelling cost, when the labels came from assay's own judging. */
export interface JudgeCost {
  /** Items labelled. */
  items: number;
  /** Model calls made (retries included; answers from the call store not counted). */
  calls: number;
  costUsd: number;
}

/** What a judge report is computed from. */
export interface JudgeReportInput {
  /** People's labels; absent: judges are compared with each other. */
  human?: NamedGrades;
  judges: NamedGrades[];
  /** The grade scale (labels outside it are left out and counted). */
  scale: GradeScale;
  /** Pairs [earlier, later] of judge names: versions of one judge compared item by item. */
  drift?: Array<[string, string]>;
  /** Runs: each judge's leaderboard is correlated with the human one (or the consensus). */
  runs?: readonly Run[];
  /** The measure of the leaderboards (default nDCG@10). */
  measure?: string;
  /** Passage length in words by docno: the length-bias probe. */
  lengths?: ReadonlyMap<string, number>;
  /** Cost and calls by judge name, for label sets from assay's own judging. */
  costs?: Readonly<Record<string, JudgeCost>>;
  /** Two comparative answer score files of the same answers in different orders: the position-swap probe. */
  swap?: { first: readonly AnswerScoreLine[]; second: readonly AnswerScoreLine[] };
  /** Bootstrap resamples of every interval (default 1,000; 0: none) and its seed (42). */
  samples?: number;
  seed?: number;
}

/** How often each grade of the scale was given. */
export interface GradeUsage {
  grade: number;
  count: number;
  share: number;
  /** Used for under 2% of the items. */
  rare: boolean;
}

/** One judge's part of the report. */
export interface JudgeSection {
  judge: string;
  /** Labels on the scale, and those outside it that were left out. */
  labels: number;
  outsideScale: number;
  usage: GradeUsage[];
  /** Grades used for under 2% of the items. */
  rareGrades: number[];
  /** Against the human labels (or, judges only, the majority of the other judges). */
  against: string;
  agreement: AgreementReport;
  /** Agreement below chance (linear-weighted kappa under 0): the grades may run backwards. */
  inverted: boolean;
  /** Rank correlation of the judge's leaderboard with the reference leaderboard. */
  leaderboard?: RankCorrelation;
  lengthBias?: LengthBias;
  cost?: JudgeCost & { perThousandItems: { costUsd: number; calls: number } };
}

/** Two versions of one judge compared item by item. */
export interface JudgeDrift {
  from: string;
  to: string;
  /** Items both versions labelled. */
  n: number;
  /** Share of the items whose grade changed. */
  changed: number;
  /** Mean of (later − earlier) grade. */
  meanShift: number;
  /** Rows the earlier grade, columns the later; kappa, alpha and the rest with intervals. */
  agreement: AgreementReport;
}

/** Several judges at once (judges only, or beside the human labels). */
export interface JudgePanel {
  /** Items every judge labelled (Fleiss' kappa is over these). */
  itemsAll: number;
  /** Items at least two judges labelled (Krippendorff's alpha is over these). */
  itemsPaired: number;
  fleissKappa: { value: number; ci?: Interval };
  krippendorffAlpha: {
    nominal: number;
    ordinal: number;
    interval: number;
    ci?: { nominal: Interval; ordinal: Interval; interval: Interval };
  };
  /** Each pair of judges over the items both labelled. */
  pairwise: Array<{
    a: string;
    b: string;
    n: number;
    exactAgreement: number;
    kappaLinear: number;
    alphaOrdinal: number;
    ac1: number;
  }>;
  /** The majority consensus of every judge (ties to the lower grade): its items and grade usage. */
  consensus: { items: number; usage: GradeUsage[] };
}

/** A judge report. */
export interface JudgeReport {
  scale: GradeScale;
  human?: { name: string; labels: number; usage: GradeUsage[] };
  judges: JudgeSection[];
  panel?: JudgePanel;
  drift: JudgeDrift[];
  measure?: string;
  runs?: number;
  /** Comparative answer judging judged twice in different orders. */
  positionSwap?: PositionSwapReport;
  bootstrap: { samples: number; seed: number; level: number; method: string };
  rareGradeShare: number;
  notes: string[];
}

type Mutable = Map<string, Map<string, number>>;

/** Inputs a judge report cannot be made from (the callers report them as bad input). */
export class JudgeReportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JudgeReportError';
  }
}

/** How many items both label sets grade. */
function shared(a: Grades, b: Grades): number {
  let n = 0;
  for (const [topic, docs] of a) {
    const other = b.get(topic);
    if (other) for (const docno of docs.keys()) if (other.has(docno)) n++;
  }
  return n;
}

/** The labels on the scale, and how many were not. */
function onScale(
  grades: Grades,
  scale: GradeScale,
): { grades: Mutable; outside: number; n: number } {
  const out: Mutable = new Map();
  let outside = 0;
  let n = 0;
  for (const [topic, docs] of grades) {
    for (const [docno, g] of docs) {
      if (g < 0) continue; // pooled, not judged
      if (g < scale.min || g > scale.max || !Number.isInteger(g)) {
        outside++;
        continue;
      }
      let m = out.get(topic);
      if (!m) out.set(topic, (m = new Map()));
      m.set(docno, g);
      n++;
    }
  }
  return { grades: out, outside, n };
}

/** How often each grade of the scale was used. */
export function gradeUsage(grades: Grades, scale: GradeScale): GradeUsage[] {
  const counts = new Map<number, number>();
  let total = 0;
  for (const docs of grades.values())
    for (const g of docs.values()) {
      counts.set(g, (counts.get(g) ?? 0) + 1);
      total++;
    }
  const usage: GradeUsage[] = [];
  for (let g = scale.min; g <= scale.max; g++) {
    const count = counts.get(g) ?? 0;
    const share = total === 0 ? 0 : count / total;
    usage.push({ grade: g, count, share, rare: share < RARE_GRADE_SHARE });
  }
  return usage;
}

function leaderboard(grades: Grades, runs: readonly Run[], measure: string): CorrelatedLeaderboard {
  const qrels = prepareQrels(grades as Map<string, Map<string, number>>);
  const resolved = resolveMeasures([measure]);
  return leaderboardOf(
    runs.map((run) => evaluateRun(qrels, run, resolved, { completeTopics: true })),
    measure,
  );
}

/** Several judges at once: Fleiss' kappa, Krippendorff's alpha (with intervals), pairs, consensus. */
function panel(
  judges: ReadonlyArray<{ name: string; grades: Mutable }>,
  scale: GradeScale,
  samples: number,
  seed: number,
): JudgePanel {
  const labels = Array.from({ length: scale.max - scale.min + 1 }, (_, i) => scale.min + i);
  const topics = [...new Set(judges.flatMap((j) => [...j.grades.keys()]))].sort();
  const m = judges.length;
  // Per topic: Fleiss sums over items every judge labelled, and alpha's coincidences.
  const fleiss: Array<{ subjects: number; agreement: number; totals: number[] }> = [];
  const coincidences: number[][][] = [];
  let itemsAll = 0;
  let itemsPaired = 0;
  for (const topic of topics) {
    const docs = new Set(judges.flatMap((j) => [...(j.grades.get(topic)?.keys() ?? [])]));
    const units: number[][] = [];
    const f = { subjects: 0, agreement: 0, totals: labels.map(() => 0) };
    for (const docno of docs) {
      const values: number[] = [];
      for (const j of judges) {
        const g = j.grades.get(topic)?.get(docno);
        if (g !== undefined) values.push(g);
      }
      if (values.length >= 2) {
        units.push(values);
        itemsPaired++;
      }
      if (values.length === m) {
        itemsAll++;
        f.subjects++;
        const counts = labels.map(() => 0);
        for (const v of values) counts[v - scale.min]!++;
        f.agreement += (counts.reduce((s, c) => s + c * c, 0) - m) / (m * (m - 1));
        counts.forEach((c, k) => (f.totals[k]! += c));
      }
    }
    fleiss.push(f);
    coincidences.push(coincidenceMatrix(units, labels));
  }
  const statistics = (weights: (i: number) => number): number[] => {
    const k = labels.length;
    const o = Array.from({ length: k }, () => new Array<number>(k).fill(0));
    const sums = { subjects: 0, raters: m, agreement: 0, categoryTotals: labels.map(() => 0) };
    topics.forEach((_, i) => {
      const w = weights(i);
      if (w === 0) return;
      const f = fleiss[i]!;
      sums.subjects += w * f.subjects;
      sums.agreement += w * f.agreement;
      f.totals.forEach((t, c) => (sums.categoryTotals[c]! += w * t));
      const ci = coincidences[i]!;
      for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) o[a]![b]! += w * ci[a]![b]!;
    });
    return [
      fleissKappaFromSums(sums),
      krippendorffAlphaFromCoincidences(o, labels, 'nominal'),
      krippendorffAlphaFromCoincidences(o, labels, 'ordinal'),
      krippendorffAlphaFromCoincidences(o, labels, 'interval'),
    ];
  };
  const [fk, an, ao, ai] = statistics(() => 1);
  const result: JudgePanel = {
    itemsAll,
    itemsPaired,
    fleissKappa: { value: fk! },
    krippendorffAlpha: { nominal: an!, ordinal: ao!, interval: ai! },
    pairwise: [],
    consensus: { items: 0, usage: [] },
  };
  if (samples > 0 && topics.length > 1) {
    const found = clusterBootstrap([topics.length], ([counts]) => statistics((i) => counts![i]!), {
      samples,
      seed,
    });
    const iv = (k: number): Interval => [found[k]!.lower, found[k]!.upper];
    result.fleissKappa.ci = iv(0);
    result.krippendorffAlpha.ci = { nominal: iv(1), ordinal: iv(2), interval: iv(3) };
  }
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      if (shared(judges[i]!.grades, judges[j]!.grades) === 0) {
        result.pairwise.push({
          a: judges[i]!.name,
          b: judges[j]!.name,
          n: 0,
          exactAgreement: Number.NaN,
          kappaLinear: Number.NaN,
          alphaOrdinal: Number.NaN,
          ac1: Number.NaN,
        });
        continue;
      }
      const r = agreement(judges[i]!.grades, judges[j]!.grades, scale, undefined, { samples: 0 });
      result.pairwise.push({
        a: judges[i]!.name,
        b: judges[j]!.name,
        n: r.n,
        exactAgreement: r.exactAgreement,
        kappaLinear: r.cohenKappa.linear,
        alphaOrdinal: r.krippendorffAlpha.ordinal,
        ac1: r.gwet.ac1,
      });
    }
  }
  const consensus = majority(judges.map((j) => j.grades));
  result.consensus = {
    items: [...consensus.values()].reduce((s, d) => s + d.size, 0),
    usage: gradeUsage(consensus, scale),
  };
  return result;
}

/** The majority grade of several label sets (ties to the lower grade), as `assay consensus`. */
function majority(sets: readonly Grades[]): Mutable {
  return consensusLabels(sets as GradeMap[], { method: 'majority', tie: 'low' }).labels;
}

/**
 * The judge report. With human labels, every judge is measured against them; without,
 * against the majority of the other judges, and the panel of judges is reported too.
 * Every interval is a topic-clustered percentile bootstrap (1,000 resamples, seed 42 by
 * default). Throws JudgeReportError for inputs it cannot compare (no judges, a judge
 * sharing no item with its reference, a drift pair naming no judge).
 */
export function judgeReport(input: JudgeReportInput): JudgeReport {
  const samples = input.samples ?? 1000;
  const seed = input.seed ?? 42;
  const { scale } = input;
  const notes: string[] = [];
  if (input.judges.length === 0 && !input.swap)
    throw new JudgeReportError('give at least one judge');
  const names = input.judges.map((j) => j.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw new JudgeReportError(`two judges are called ${duplicate}`);
  if (!input.human && input.judges.length === 1)
    throw new JudgeReportError('without human labels, give at least two judges');
  const human = input.human ? onScale(input.human.grades, scale) : undefined;
  if (human && human.outside > 0)
    notes.push(
      `${human.outside} human labels outside the scale ${scale.min}-${scale.max} were left out`,
    );
  const judges = input.judges.map((j) => ({ name: j.name, ...onScale(j.grades, scale) }));
  const measure = input.measure ?? 'nDCG@10';
  const runs = input.runs && input.runs.length >= 2 ? input.runs : undefined;
  if (input.runs && !runs) notes.push('leaderboard correlation needs at least two runs');
  const correlation = { ...CORRELATION_DEFAULTS, samples, seed };
  const reference = human
    ? human.grades
    : judges.length > 0
      ? majority(judges.map((j) => j.grades))
      : new Map<string, Map<string, number>>();
  const referenceBoard =
    runs && judges.length > 0 ? leaderboard(reference, runs, measure) : undefined;

  const sections: JudgeSection[] = judges.map((j) => {
    if (j.outside > 0)
      notes.push(
        `${j.name}: ${j.outside} labels outside the scale ${scale.min}-${scale.max} were left out`,
      );
    const against = human
      ? human.grades
      : majority(judges.filter((o) => o.name !== j.name).map((o) => o.grades));
    const reference = human ? input.human!.name : 'the majority of the other judges';
    if (shared(against, j.grades) === 0)
      throw new JudgeReportError(
        `judge ${j.name} labels no item that ${reference} labels on the scale ${scale.min}-${scale.max}`,
      );
    const report = agreement(against, j.grades, scale, undefined, { samples, seed });
    const usage = gradeUsage(j.grades, scale);
    const section: JudgeSection = {
      judge: j.name,
      labels: j.n,
      outsideScale: j.outside,
      usage,
      rareGrades: usage.filter((u) => u.rare).map((u) => u.grade),
      against: reference,
      agreement: report,
      inverted: report.cohenKappa.linear < 0,
    };
    if (runs && referenceBoard)
      section.leaderboard = correlateLeaderboards(
        referenceBoard,
        leaderboard(j.grades, runs, measure),
        measure,
        correlation,
      );
    if (input.lengths) {
      const bias = lengthBias(j.grades, human?.grades, input.lengths, samples, seed);
      if (bias) section.lengthBias = bias;
    }
    const cost = input.costs?.[j.name];
    if (cost)
      section.cost = {
        ...cost,
        perThousandItems: {
          costUsd: cost.items > 0 ? (1000 * cost.costUsd) / cost.items : Number.NaN,
          calls: cost.items > 0 ? (1000 * cost.calls) / cost.items : Number.NaN,
        },
      };
    return section;
  });

  const drift: JudgeDrift[] = (input.drift ?? []).map(([from, to]) => {
    const a = judges.find((j) => j.name === from);
    const b = judges.find((j) => j.name === to);
    if (!a || !b) throw new JudgeReportError(`drift names no judge ${!a ? from : to}`);
    if (shared(a.grades, b.grades) === 0)
      throw new JudgeReportError(`drift: ${from} and ${to} label no item in common`);
    const report = agreement(a.grades, b.grades, scale, undefined, { samples, seed });
    let shift = 0;
    report.confusion.matrix.forEach((row, i) =>
      row.forEach(
        (count, k) =>
          (shift += count * (report.confusion.labels[k]! - report.confusion.labels[i]!)),
      ),
    );
    return {
      from,
      to,
      n: report.n,
      changed: 1 - report.exactAgreement,
      meanShift: report.n === 0 ? Number.NaN : shift / report.n,
      agreement: report,
    };
  });

  const out: JudgeReport = {
    scale,
    judges: sections,
    drift,
    bootstrap: {
      samples,
      seed,
      level: 0.95,
      method:
        'percentile bootstrap over topics: topics drawn with replacement, each with all its items',
    },
    rareGradeShare: RARE_GRADE_SHARE,
    notes,
  };
  if (human)
    out.human = {
      name: input.human!.name,
      labels: human.n,
      usage: gradeUsage(human.grades, scale),
    };
  if (judges.length >= 2) out.panel = panel(judges, scale, samples, seed);
  if (runs) {
    out.measure = measure;
    out.runs = runs.length;
  }
  if (input.swap) out.positionSwap = positionSwapConsistency(input.swap.first, input.swap.second);
  return out;
}
