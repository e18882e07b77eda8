// The analysis behind `assay judge-report` and the API's judge reports: how good one or
// many LLM judges are against the same human labels (or, without them, against each
// other), with intervals, scale usage, polarity, bias probes, leaderboard correlation and
// drift between versions of a judge.
import { evaluateRun, prepareQrels, resolveMeasures } from '@assay/measures';
import type { Run } from '@assay/trec';
import type { AnswerScoreLine } from '../answers/answer-files.js';
import { runSteps } from '@assay/stats';
import { lengthBiasSteps, type LengthBias } from './length-bias.js';
import { positionSwapConsistency, type PositionSwapReport } from './position-swap.js';
import { agreementSteps, type AgreementReport, type GradeScale, type Grades } from './agreement.js';
import {
  gradeUsage,
  majority,
  panelSteps,
  RARE_GRADE_SHARE,
  shared,
  type GradeUsage,
  type JudgePanel,
  type Mutable,
} from './judge-panel.js';

export { gradeUsage, RARE_GRADE_SHARE, type GradeUsage, type JudgePanel } from './judge-panel.js';
import {
  CORRELATION_DEFAULTS,
  correlateLeaderboardsSteps,
  leaderboardOf,
  type CorrelatedLeaderboard,
  type RankCorrelation,
} from './rank-correlation.js';

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

/** Inputs a judge report cannot be made from (the callers report them as bad input). */
export class JudgeReportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JudgeReportError';
  }
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

/** The leaderboard of `runs` under `grades` on `measure`, a step per run evaluated. */
function* leaderboardSteps(
  grades: Grades,
  runs: readonly Run[],
  measure: string,
): Generator<void, CorrelatedLeaderboard, void> {
  const qrels = prepareQrels(grades as Map<string, Map<string, number>>);
  const resolved = resolveMeasures([measure]);
  const evaluations = [];
  for (const run of runs) {
    evaluations.push(evaluateRun(qrels, run, resolved, { completeTopics: true }));
    yield;
  }
  return leaderboardOf(evaluations, measure);
}

/** A judge's labels on the scale, and how many were left out. */
type OnScale = { name: string; grades: Mutable; outside: number; n: number };

/** What every judge's section is measured with. */
interface SectionContext {
  input: JudgeReportInput;
  judges: readonly OnScale[];
  human: { grades: Mutable } | undefined;
  runs: readonly Run[] | undefined;
  referenceBoard: CorrelatedLeaderboard | undefined;
  measure: string;
  samples: number;
  seed: number;
  notes: string[];
}

/** The inputs a report cannot be made from, refused before anything is computed. */
function refuseUnusable(input: JudgeReportInput): void {
  if (input.judges.length === 0 && !input.swap)
    throw new JudgeReportError('give at least one judge');
  const names = input.judges.map((j) => j.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw new JudgeReportError(`two judges are called ${duplicate}`);
  if (!input.human && input.judges.length === 1)
    throw new JudgeReportError('without human labels, give at least two judges');
}

/** One judge against the human labels, or against the majority of the other judges. */
function* judgeSectionSteps(
  j: OnScale,
  context: SectionContext,
): Generator<void, JudgeSection, void> {
  const { input, judges, human, runs, referenceBoard, measure, samples, seed } = context;
  const { scale } = input;
  if (j.outside > 0)
    context.notes.push(
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
  const report = yield* agreementSteps(against, j.grades, scale, undefined, { samples, seed });
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
    section.leaderboard = yield* correlateLeaderboardsSteps(
      referenceBoard,
      yield* leaderboardSteps(j.grades, runs, measure),
      measure,
      { ...CORRELATION_DEFAULTS, samples, seed },
    );
  if (input.lengths) {
    const bias = yield* lengthBiasSteps(j.grades, human?.grades, input.lengths, samples, seed);
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
}

/** Two versions of one judge, item by item: how many grades changed and which way. */
function* judgeDriftSteps(
  [from, to]: [string, string],
  judges: readonly OnScale[],
  scale: GradeScale,
  samples: number,
  seed: number,
): Generator<void, JudgeDrift, void> {
  const a = judges.find((j) => j.name === from);
  const b = judges.find((j) => j.name === to);
  if (!a || !b) throw new JudgeReportError(`drift names no judge ${!a ? from : to}`);
  if (shared(a.grades, b.grades) === 0)
    throw new JudgeReportError(`drift: ${from} and ${to} label no item in common`);
  const report = yield* agreementSteps(a.grades, b.grades, scale, undefined, { samples, seed });
  let shift = 0;
  report.confusion.matrix.forEach((row, i) =>
    row.forEach(
      (count, k) => (shift += count * (report.confusion.labels[k]! - report.confusion.labels[i]!)),
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
}

/**
 * The judge report. With human labels, every judge is measured against them; without,
 * against the majority of the other judges, and the panel of judges is reported too.
 * Every interval is a topic-clustered percentile bootstrap (1,000 resamples, seed 42 by
 * default). Throws JudgeReportError for inputs it cannot compare (no judges, a judge
 * sharing no item with its reference, a drift pair naming no judge).
 */
export function judgeReport(input: JudgeReportInput): JudgeReport {
  return runSteps(judgeReportSteps(input));
}

/**
 * {@link judgeReport} one step at a time (a step per topic, per run evaluated and every few
 * resamples of each interval), with the same report, so that a server can compute it a
 * slice at a time (see work-slices.ts) while it answers others.
 */
export function* judgeReportSteps(input: JudgeReportInput): Generator<void, JudgeReport, void> {
  const samples = input.samples ?? 1000;
  const seed = input.seed ?? 42;
  const { scale } = input;
  const notes: string[] = [];
  refuseUnusable(input);
  const human = input.human ? onScale(input.human.grades, scale) : undefined;
  if (human && human.outside > 0)
    notes.push(
      `${human.outside} human labels outside the scale ${scale.min}-${scale.max} were left out`,
    );
  const judges = input.judges.map((j) => ({ name: j.name, ...onScale(j.grades, scale) }));
  const measure = input.measure ?? 'nDCG@10';
  const runs = input.runs && input.runs.length >= 2 ? input.runs : undefined;
  if (input.runs && !runs) notes.push('leaderboard correlation needs at least two runs');
  const reference = human
    ? human.grades
    : judges.length > 0
      ? majority(judges.map((j) => j.grades))
      : new Map<string, Map<string, number>>();
  const referenceBoard =
    runs && judges.length > 0 ? yield* leaderboardSteps(reference, runs, measure) : undefined;
  const context = { input, judges, human, runs, referenceBoard, measure, samples, seed, notes };
  const sections: JudgeSection[] = [];
  for (const j of judges) sections.push(yield* judgeSectionSteps(j, context));
  const drift: JudgeDrift[] = [];
  for (const pair of input.drift ?? [])
    drift.push(yield* judgeDriftSteps(pair, judges, scale, samples, seed));

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
  if (judges.length >= 2) out.panel = yield* panelSteps(judges, scale, samples, seed);
  if (runs) {
    out.measure = measure;
    out.runs = runs.length;
  }
  if (input.swap) out.positionSwap = positionSwapConsistency(input.swap.first, input.swap.second);
  return out;
}
