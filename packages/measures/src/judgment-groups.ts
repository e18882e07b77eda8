/**
 * Judgment groups (trec_eval's `-R qrels_jg`): a topic may carry several independent sets
 * of judgments (one per assessor or user), told apart by the qrels "iter" column. The
 * `_avgjg` measures score the ranking against each group separately and average the
 * per-group values; with a single group they equal the plain measure.
 */
import { compareBytewise, type QrelsJg } from '@assay/trec';
import { summarizeJudgments, type RankedTopic, type TopicJudgments } from './ranking.js';
import { averagePrecision, precisionAt, rPrecisionMultiples } from './trec-measures.js';

/** Judgment-group qrels prepared once and shared by every run evaluated against them. */
export interface PreparedJudgmentGroups {
  format: 'qrels_jg';
  /** Topic ids in byte order, as trec_eval visits them. */
  topics: string[];
  /** Per topic, one set of judgment statistics per group, groups in byte order of their id. */
  groups: Map<string, TopicJudgments[]>;
}

/** Prepares judgment-group qrels: sorted topics and groups, per-group grade statistics. */
export function prepareJudgmentGroups(qrels: QrelsJg): PreparedJudgmentGroups {
  const topics = [...qrels.keys()].sort(compareBytewise);
  const groups = new Map<string, TopicJudgments[]>();
  for (const qid of topics) {
    const byGroup = qrels.get(qid)!;
    const ids = [...byGroup.keys()].sort(compareBytewise);
    groups.set(
      qid,
      ids.map((id) => summarizeJudgments(byGroup.get(id)!)),
    );
  }
  return { format: 'qrels_jg', topics, groups };
}

/**
 * Adds up a measure's values over the groups' rankings and divides by the number of
 * groups when there is more than one, in the order trec_eval accumulates them (so the
 * result is bit-identical).
 */
export function averageOverGroups(
  groups: readonly RankedTopic[],
  measure: (t: RankedTopic) => number[],
): number[] {
  let sums: number[] | undefined;
  for (const t of groups) {
    const values = measure(t);
    if (!sums) sums = values.map(() => 0);
    for (let i = 0; i < values.length; i++) sums[i]! += values[i]!;
  }
  if (!sums) return [];
  if (groups.length > 1) for (let i = 0; i < sums.length; i++) sums[i]! /= groups.length;
  return sums;
}

/** Average precision averaged over judgment groups (`map_avgjg`). */
export function averagePrecisionOverGroups(groups: readonly RankedTopic[]): number {
  return averageOverGroups(groups, (t) => [averagePrecision(t)])[0] ?? 0;
}

/** Precision at each cutoff averaged over judgment groups (`P_avgjg`). */
export function precisionAtOverGroups(
  groups: readonly RankedTopic[],
  cutoffs: readonly number[],
): number[] {
  if (groups.length === 0) return cutoffs.map(() => 0);
  return averageOverGroups(groups, (t) => precisionAt(t, cutoffs));
}

/** Precision at multiples of R averaged over judgment groups (`Rprec_mult_avgjg`). */
export function rPrecisionMultiplesOverGroups(
  groups: readonly RankedTopic[],
  multiples: readonly number[],
): number[] {
  if (groups.length === 0) return multiples.map(() => 0);
  return averageOverGroups(groups, (t) => rPrecisionMultiples(t, multiples));
}
