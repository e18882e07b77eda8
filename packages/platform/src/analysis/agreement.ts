// The analysis behind `assay agree` and stored agreement reports: how far two label sets
// agree on the (topic, document) pairs both contain.
import {
  binarizedKappas,
  CLUSTER_BOOTSTRAP_SAMPLES,
  clusterBootstrapSteps,
  cohenKappaFromTable,
  confusionMatrix,
  exactAgreementFromTable,
  fleissKappaFromTable,
  gwetAC,
  gwetACFromTable,
  krippendorffAlpha,
  krippendorffAlphaFromTable,
  pabakFromTable,
  runSteps,
} from '@assay/stats';
import { f4 } from '../presentation/index.js';

/** Topic → docno → grade: the labels of one label set (a parsed qrels file). */
export type Grades = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** A grade scale, both ends included. */
export interface GradeScale {
  min: number;
  max: number;
}

/** A confidence interval: [lower, upper]. */
export type Interval = [number, number];

/** The coefficients of agreement between two label sets, all computed from their confusion matrix. */
export interface AgreementCoefficients<T = number> {
  exactAgreement: T;
  cohenKappa: { unweighted: T; linear: T; quadratic: T };
  krippendorffAlpha: { nominal: T; ordinal: T; interval: T };
  /** Fleiss' kappa of the two label sets (Scott's pi for two raters). */
  fleissKappa: T;
  /** Gwet's AC1, and AC2 with linear and quadratic agreement weights, over the whole scale. */
  gwet: { ac1: T; ac2: { linear: T; quadratic: T } };
  /** Prevalence- and bias-adjusted kappa over the whole scale: (q·p_o − 1)/(q − 1). */
  pabak: T;
}

/** How the intervals of an agreement report were computed. */
export interface AgreementBootstrap {
  method: string;
  samples: number;
  seed: number;
  level: number;
  /** Topics resampled (each topic's pairs stay together). */
  topics: number;
}

/** The agreement between two label sets, as `assay agree` prints it. */
export interface AgreementReport extends AgreementCoefficients {
  n: number;
  onlyA: number;
  onlyB: number;
  scale: GradeScale;
  clipped: { a: number; b: number };
  /**
   * Per threshold t (relevant = grade >= t): Cohen's kappa, exact agreement, Krippendorff's
   * ordinal alpha and Gwet's AC1 of the binarised labels.
   */
  binarized: Array<{
    threshold: number;
    kappa: number;
    agreement: number;
    alpha: number;
    ac1: number;
  }>;
  confusion: { labels: number[]; matrix: number[][] };
  /** Topic-clustered bootstrap intervals of every coefficient (absent when not asked for). */
  bootstrap?: AgreementBootstrap;
  intervals?: AgreementCoefficients<Interval>;
}

/** Options of {@link agreement}. */
export interface AgreementOptions {
  /** Bootstrap resamples of the intervals (default 1,000); 0 leaves the intervals out. */
  samples?: number;
  /** Seed of the bootstrap (default 42). */
  seed?: number;
}

/** How the intervals are computed, said in every output. */
export const AGREEMENT_BOOTSTRAP_METHOD =
  'percentile bootstrap over topics: topics drawn with replacement, each with all its pairs';

/** Every coefficient of a confusion matrix over `labels` (ascending). */
export function agreementCoefficients(
  matrix: readonly (readonly number[])[],
  labels: readonly number[],
): AgreementCoefficients {
  return {
    exactAgreement: exactAgreementFromTable(matrix),
    cohenKappa: {
      unweighted: cohenKappaFromTable(matrix, 'none'),
      linear: cohenKappaFromTable(matrix, 'linear'),
      quadratic: cohenKappaFromTable(matrix, 'quadratic'),
    },
    krippendorffAlpha: {
      nominal: krippendorffAlphaFromTable(matrix, labels, 'nominal'),
      ordinal: krippendorffAlphaFromTable(matrix, labels, 'ordinal'),
      interval: krippendorffAlphaFromTable(matrix, labels, 'interval'),
    },
    fleissKappa: fleissKappaFromTable(matrix),
    gwet: {
      ac1: gwetACFromTable(matrix, 'none'),
      ac2: {
        linear: gwetACFromTable(matrix, 'linear'),
        quadratic: gwetACFromTable(matrix, 'quadratic'),
      },
    },
    pabak: pabakFromTable(matrix),
  };
}

/** The coefficients as a flat list, in a fixed order, and back. */
function flatten(c: AgreementCoefficients): number[] {
  return [
    c.exactAgreement,
    c.cohenKappa.unweighted,
    c.cohenKappa.linear,
    c.cohenKappa.quadratic,
    c.krippendorffAlpha.nominal,
    c.krippendorffAlpha.ordinal,
    c.krippendorffAlpha.interval,
    c.fleissKappa,
    c.gwet.ac1,
    c.gwet.ac2.linear,
    c.gwet.ac2.quadratic,
    c.pabak,
  ];
}

function unflatten<T>(v: readonly T[]): AgreementCoefficients<T> {
  return {
    exactAgreement: v[0]!,
    cohenKappa: { unweighted: v[1]!, linear: v[2]!, quadratic: v[3]! },
    krippendorffAlpha: { nominal: v[4]!, ordinal: v[5]!, interval: v[6]! },
    fleissKappa: v[7]!,
    gwet: { ac1: v[8]!, ac2: { linear: v[9]!, quadratic: v[10]! } },
    pabak: v[11]!,
  };
}

/**
 * Topic-clustered bootstrap intervals of every coefficient: `samples` resamples of the
 * topics (each with all its pairs), the coefficients of the summed confusion matrices, and
 * their percentile interval (see clusterBootstrap in @assay/stats).
 */
export function agreementIntervals(
  tables: readonly (readonly (readonly number[])[])[],
  labels: readonly number[],
  samples: number,
  seed: number,
  level = 0.95,
): AgreementCoefficients<Interval> {
  return runSteps(agreementIntervalsSteps(tables, labels, samples, seed, level));
}

/**
 * {@link agreementIntervals} one step at a time (a step every few resamples), with the same
 * intervals, so that a server can compute it a slice at a time (see work-slices.ts).
 */
export function* agreementIntervalsSteps(
  tables: readonly (readonly (readonly number[])[])[],
  labels: readonly number[],
  samples: number,
  seed: number,
  level = 0.95,
): Generator<void, AgreementCoefficients<Interval>, void> {
  const k = labels.length;
  const sum = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const found = yield* clusterBootstrapSteps(
    [tables.length],
    ([counts]) => {
      for (const row of sum) row.fill(0);
      tables.forEach((t, c) => {
        const times = counts![c]!;
        if (times === 0) return;
        for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) sum[i]![j]! += times * t[i]![j]!;
      });
      return flatten(agreementCoefficients(sum, labels));
    },
    // Each resample sums the drawn topics' tables and computes 12 coefficients of the sum.
    { samples, seed, level, cost: (tables.length + 12) * k * k },
  );
  return unflatten(found.map((f): Interval => [f.lower, f.upper]));
}

/**
 * Computes the agreement report over the pairs both label sets contain, with
 * topic-clustered bootstrap intervals unless `options.samples` is 0.
 */
export function agreement(
  a: Grades,
  b: Grades,
  scale: GradeScale,
  clipped = { a: 0, b: 0 },
  options: AgreementOptions = {},
): AgreementReport {
  return runSteps(agreementSteps(a, b, scale, clipped, options));
}

/**
 * {@link agreement} one step at a time (a step per topic, per binarising threshold and
 * every few resamples of the bootstrap), with the same report, so that a server can
 * compute it a slice at a time (see work-slices.ts) while it answers others.
 */
export function* agreementSteps(
  a: Grades,
  b: Grades,
  scale: GradeScale,
  clipped = { a: 0, b: 0 },
  options: AgreementOptions = {},
): Generator<void, AgreementReport, void> {
  const shared: SharedPairs = { gradesA: [], gradesB: [], tables: [], onlyA: 0 };
  const labels = range(scale.min, scale.max);
  for (const [qid, docs] of a) {
    sharedPairsOf(docs, b.get(qid), labels, shared);
    yield;
  }
  const { gradesA, gradesB, tables } = shared;
  let onlyB = 0;
  for (const [qid, docs] of b) {
    onlyB += missingFrom(docs, a.get(qid));
    yield;
  }
  const confusion = confusionMatrix(gradesA, gradesB, labels);
  const samples = options.samples ?? CLUSTER_BOOTSTRAP_SAMPLES;
  const seed = options.seed ?? 42;
  const binarized: AgreementReport['binarized'] = [];
  for (const kappa of binarizedKappas(gradesA, gradesB, labels)) {
    binarized.push(binarizedAt(kappa, gradesA, gradesB));
    yield;
  }
  const report: AgreementReport = {
    n: gradesA.length,
    onlyA: shared.onlyA,
    onlyB,
    scale,
    clipped,
    ...agreementCoefficients(confusion.matrix, labels),
    binarized,
    confusion,
  };
  if (samples > 0 && tables.length > 0) {
    report.bootstrap = {
      method: AGREEMENT_BOOTSTRAP_METHOD,
      samples,
      seed,
      level: 0.95,
      topics: tables.length,
    };
    report.intervals = yield* agreementIntervalsSteps(tables, labels, samples, seed);
  }
  return report;
}

/** The pairs both label sets grade, topic by topic, as {@link agreementSteps} gathers them. */
interface SharedPairs {
  gradesA: number[];
  gradesB: number[];
  /** The confusion matrix of each topic with a shared pair. */
  tables: number[][][];
  onlyA: number;
}

/** Adds one topic's pairs graded in A (`docs`) and in B (`other`) to `shared`. */
function sharedPairsOf(
  docs: ReadonlyMap<string, number>,
  other: ReadonlyMap<string, number> | undefined,
  labels: readonly number[],
  shared: SharedPairs,
): void {
  const ta: number[] = [];
  const tb: number[] = [];
  for (const [docno, grade] of docs) {
    const g = other?.get(docno);
    if (g === undefined) shared.onlyA++;
    else {
      ta.push(grade);
      tb.push(g);
    }
  }
  if (ta.length === 0) return;
  for (const g of ta) shared.gradesA.push(g);
  for (const g of tb) shared.gradesB.push(g);
  shared.tables.push(confusionMatrix(ta, tb, labels).matrix);
}

/** How many of one topic's documents `docs` are missing from `other`. */
function missingFrom(
  docs: ReadonlyMap<string, number>,
  other: ReadonlyMap<string, number> | undefined,
): number {
  let n = 0;
  for (const docno of docs.keys()) if (other?.get(docno) === undefined) n++;
  return n;
}

/** One threshold's binarised kappa with the alpha and AC1 of the same binarised labels. */
function binarizedAt(
  b: ReturnType<typeof binarizedKappas>[number],
  gradesA: readonly number[],
  gradesB: readonly number[],
): AgreementReport['binarized'][number] {
  const ba = gradesA.map((g) => (g >= b.threshold ? 1 : 0));
  const bb = gradesB.map((g) => (g >= b.threshold ? 1 : 0));
  return {
    ...b,
    alpha: krippendorffAlpha([ba, bb], 'ordinal'),
    ac1: gwetAC(ba, bb, { labels: [0, 1] }),
  };
}

function range(min: number, max: number): number[] {
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

/** The lowest and highest grade seen in either label set (one wider when they are equal). */
export function observedScale(a: Grades, b: Grades): GradeScale {
  let min = Infinity;
  let max = -Infinity;
  for (const q of [a, b]) {
    for (const docs of q.values()) {
      for (const g of docs.values()) {
        if (g < min) min = g;
        if (g > max) max = g;
      }
    }
  }
  if (min === max) max = min + 1;
  return { min, max };
}

/**
 * The report as `assay agree` prints it: both sources, counts, scale (with how many
 * grades were clamped when `clip` is on), the coefficients and the confusion matrix.
 */
export function agreementText(
  r: AgreementReport,
  nameA: string,
  nameB: string,
  clip: boolean,
): string {
  const lines: string[] = [];
  lines.push(`A: ${nameA}`, `B: ${nameB}`);
  lines.push(`pairs in both: ${r.n}    only in A: ${r.onlyA}    only in B: ${r.onlyB}`);
  const clipNote = clip
    ? `  (clamped into the scale: ${r.clipped.a} grades of A, ${r.clipped.b} of B)`
    : '';
  lines.push(`scale: ${r.scale.min}-${r.scale.max}${clipNote}`);
  lines.push('');
  const ci = (get: (c: AgreementCoefficients<Interval>) => Interval): string => {
    if (!r.intervals) return '';
    const [lo, hi] = get(r.intervals);
    return ` [${f4(lo)}, ${f4(hi)}]`;
  };
  const rows: Array<[string, number, (c: AgreementCoefficients<Interval>) => Interval]> = [
    ['exact agreement', r.exactAgreement, (c) => c.exactAgreement],
    ["Cohen's kappa", r.cohenKappa.unweighted, (c) => c.cohenKappa.unweighted],
    ['  linear', r.cohenKappa.linear, (c) => c.cohenKappa.linear],
    ['  quadratic', r.cohenKappa.quadratic, (c) => c.cohenKappa.quadratic],
    ["Krippendorff's alpha", r.krippendorffAlpha.nominal, (c) => c.krippendorffAlpha.nominal],
    ['  ordinal', r.krippendorffAlpha.ordinal, (c) => c.krippendorffAlpha.ordinal],
    ['  interval', r.krippendorffAlpha.interval, (c) => c.krippendorffAlpha.interval],
    ["Fleiss' kappa", r.fleissKappa, (c) => c.fleissKappa],
    ["Gwet's AC1", r.gwet.ac1, (c) => c.gwet.ac1],
    ['  AC2 linear', r.gwet.ac2.linear, (c) => c.gwet.ac2.linear],
    ['  AC2 quadratic', r.gwet.ac2.quadratic, (c) => c.gwet.ac2.quadratic],
    ['PABAK', r.pabak, (c) => c.pabak],
  ];
  if (r.bootstrap)
    lines.push(
      `95% intervals: ${r.bootstrap.method}; ${r.bootstrap.samples} resamples of ${r.bootstrap.topics} topics, seed ${r.bootstrap.seed}`,
      '',
    );
  for (const [name, value, get] of rows) {
    // Cohen's kappa and Krippendorff's alpha head their variants: unweighted, nominal.
    const first =
      name === "Cohen's kappa"
        ? ' (unweighted)'
        : name === "Krippendorff's alpha"
          ? ' (nominal)'
          : '';
    lines.push(`${`${name}${first}`.padEnd(32)}${f4(value).padStart(8)}${ci(get)}`);
  }
  lines.push('');
  lines.push('binarised (relevant = grade >= t)');
  lines.push('  t   kappa    alpha      AC1    agreement');
  for (const b of r.binarized) {
    lines.push(
      `  ${String(b.threshold).padEnd(3)} ${f4(b.kappa).padStart(7)}  ${f4(b.alpha).padStart(7)}  ${f4(b.ac1).padStart(7)}  ${f4(b.agreement).padStart(9)}`,
    );
  }
  lines.push('');
  lines.push('confusion matrix (rows A, columns B)');
  const width = Math.max(6, ...r.confusion.matrix.flat().map((v) => String(v).length + 2));
  lines.push(
    `${'A\\B'.padEnd(5)}${r.confusion.labels.map((l) => String(l).padStart(width)).join('')}${'total'.padStart(width + 2)}`,
  );
  r.confusion.matrix.forEach((row, i) => {
    const total = row.reduce((s, v) => s + v, 0);
    lines.push(
      `${String(r.confusion.labels[i]).padEnd(5)}${row.map((v) => String(v).padStart(width)).join('')}${String(total).padStart(width + 2)}`,
    );
  });
  const totals = r.confusion.labels.map((_, j) =>
    r.confusion.matrix.reduce((s, row) => s + row[j]!, 0),
  );
  lines.push(
    `${'total'.padEnd(5)}${totals.map((v) => String(v).padStart(width)).join('')}${String(r.n).padStart(width + 2)}`,
  );
  return `${lines.join('\n')}\n`;
}
