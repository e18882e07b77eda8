// A panel of judges at once: Fleiss' kappa and Krippendorff's alpha with intervals, every
// pair, and the majority consensus; and how a label set uses the grade scale.
import {
  clusterBootstrapSteps,
  coincidenceMatrix,
  consensusLabels,
  fleissKappaFromSums,
  krippendorffAlphaFromCoincidences,
  runSteps,
  type GradeMap,
} from '@assay/stats';
import { agreementSteps, type GradeScale, type Grades, type Interval } from './agreement.js';

/** A grade used for less than this share of a label set's items is flagged: a collapsed scale. */
export const RARE_GRADE_SHARE = 0.02;

/** How often each grade of the scale was given. */
export interface GradeUsage {
  grade: number;
  count: number;
  share: number;
  /** Used for under 2% of the items. */
  rare: boolean;
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

/** Grades by topic and docno, as the report builds them. */
export type Mutable = Map<string, Map<string, number>>;

/** How many items both label sets grade. */
export function shared(a: Grades, b: Grades): number {
  let n = 0;
  for (const [topic, docs] of a) {
    const other = b.get(topic);
    if (other) for (const docno of docs.keys()) if (other.has(docno)) n++;
  }
  return n;
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

/** Several judges at once: Fleiss' kappa, Krippendorff's alpha (with intervals), pairs, consensus. */
export function panel(
  judges: ReadonlyArray<{ name: string; grades: Mutable }>,
  scale: GradeScale,
  samples: number,
  seed: number,
): JudgePanel {
  return runSteps(panelSteps(judges, scale, samples, seed));
}

/**
 * {@link panel} one step at a time (a step per topic, every few resamples of the
 * intervals and per pair of judges), with the same panel, so that a server can compute it
 * a slice at a time (see work-slices.ts).
 */
export function* panelSteps(
  judges: ReadonlyArray<{ name: string; grades: Mutable }>,
  scale: GradeScale,
  samples: number,
  seed: number,
): Generator<void, JudgePanel, void> {
  const labels = Array.from({ length: scale.max - scale.min + 1 }, (_, i) => scale.min + i);
  const topics = [...new Set(judges.flatMap((j) => [...j.grades.keys()]))].sort();
  const m = judges.length;
  // Per topic: Fleiss sums over items every judge labelled, and alpha's coincidences.
  const fleiss: TopicFleiss[] = [];
  const coincidences: number[][][] = [];
  let itemsAll = 0;
  let itemsPaired = 0;
  for (const topic of topics) {
    const t = topicPanel(topic, judges, labels, scale);
    itemsAll += t.itemsAll;
    itemsPaired += t.itemsPaired;
    fleiss.push(t.fleiss);
    coincidences.push(t.coincidences);
    yield;
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
    const found = yield* clusterBootstrapSteps(
      [topics.length],
      ([counts]) => statistics((i) => counts![i]!),
      // Each resample sums the drawn topics' coincidences and computes four coefficients.
      { samples, seed, cost: (topics.length + 4) * labels.length * labels.length },
    );
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
      const r = yield* agreementSteps(judges[i]!.grades, judges[j]!.grades, scale, undefined, {
        samples: 0,
      });
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

/** Fleiss' sums over one topic's items that every judge labelled. */
interface TopicFleiss {
  subjects: number;
  agreement: number;
  totals: number[];
}

/** One topic of the panel: its Fleiss sums, alpha's coincidences and its items. */
function topicPanel(
  topic: string,
  judges: ReadonlyArray<{ grades: Mutable }>,
  labels: readonly number[],
  scale: GradeScale,
): { fleiss: TopicFleiss; coincidences: number[][]; itemsAll: number; itemsPaired: number } {
  const m = judges.length;
  const docs = new Set(judges.flatMap((j) => [...(j.grades.get(topic)?.keys() ?? [])]));
  const units: number[][] = [];
  const f: TopicFleiss = { subjects: 0, agreement: 0, totals: labels.map(() => 0) };
  let itemsAll = 0;
  let itemsPaired = 0;
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
  return { fleiss: f, coincidences: coincidenceMatrix(units, labels), itemsAll, itemsPaired };
}

/** The majority grade of several label sets (ties to the lower grade), as `assay consensus`. */
export function majority(sets: readonly Grades[]): Mutable {
  return consensusLabels(sets as GradeMap[], { method: 'majority', tie: 'low' }).labels;
}
