// Scores of RAG answers, per answer and per system: nugget scores from nugget assignments,
// support precision and recall from citation support, rubric scores from criterion
// judgments; then the significance-tested leaderboard of the systems through the same
// comparison code as `assay compare` (bootstrap intervals, paired tests, corrections).
// Pure: the same functions score a file and a stored assessment set.
import {
  NUGGET_MEASURES,
  SUPPORT_MEASURES,
  nuggetScores,
  rubricScore,
  supportScores,
} from '@assay/stats';
import {
  CompareError,
  compareTopicValues,
  comparisonReport,
  type CompareReport,
  type CompareSettings,
} from '../analysis/index.js';
import { PlatformError } from '../core/errors.js';
import { csvRow } from '../formats/index.js';
import type { NuggetAssignmentRecord, RubricJudgmentRecord, SupportRecord } from './rag-files.js';

/** What is scored: nugget assignments, citation support, or rubric criteria. */
export type RagKind = 'nuggets' | 'support' | 'rubric';

/** The measures of each kind, in output order; the first orders the leaderboard. */
export const RAG_MEASURES: Readonly<Record<RagKind, readonly string[]>> = {
  nuggets: NUGGET_MEASURES,
  support: SUPPORT_MEASURES,
  rubric: ['rubric'],
};

/** What the judgments behind a leaderboard are called in its outputs. */
const SOURCE: Readonly<Record<RagKind, string>> = {
  nuggets: 'nugget assignments',
  support: 'support assessments',
  rubric: 'rubric judgments',
};

/** One answer's scores. */
export interface RagAnswerScores {
  topic: string;
  system: string;
  scores: Record<string, number>;
  /** Rubric scores per axis (axes without a positive weight left out). */
  axes?: Record<string, number>;
}

/** Per-answer nugget scores of assignments in nuggetizer's form. */
export function nuggetAnswerScores(records: readonly NuggetAssignmentRecord[]): RagAnswerScores[] {
  return records.map((r) => ({
    topic: r.qid,
    system: r.system,
    scores: { ...nuggetScores(r.nuggets) },
  }));
}

/** Per-answer support precision and recall. */
export function supportAnswerScores(
  records: readonly SupportRecord[],
  options: { firstCitationOnly?: boolean } = {},
): RagAnswerScores[] {
  return records.map((r) => ({
    topic: r.qid,
    system: r.system,
    scores: {
      ...supportScores(
        r.sentences.map((s) => ({ citations: s.citations.map((c) => c.support) })),
        options,
      ),
    },
  }));
}

/** How many citations support scores count, and how many of them are "cannot assess". */
export interface CitationCounts {
  total: number;
  cannotAssess: number;
}

/**
 * The citations of support records that scores count (each sentence's first only with
 * `firstCitationOnly`), and those judged "cannot assess", which count in neither precision
 * nor recall: a leaderboard over them says nothing of support, which its outputs name.
 */
export function citationCounts(
  records: readonly SupportRecord[],
  options: { firstCitationOnly?: boolean } = {},
): CitationCounts {
  let total = 0;
  let cannotAssess = 0;
  for (const r of records)
    for (const s of r.sentences)
      for (const c of options.firstCitationOnly ? s.citations.slice(0, 1) : s.citations) {
        total++;
        if (c.support === 'cannot_assess') cannotAssess++;
      }
  return { total, cannotAssess };
}

/** Per-answer rubric scores, overall and per axis. */
export function rubricAnswerScores(records: readonly RubricJudgmentRecord[]): RagAnswerScores[] {
  return records.map((r) => {
    const s = rubricScore(r.criteria);
    return { topic: r.qid, system: r.system, scores: { rubric: s.score }, axes: s.axes };
  });
}

/** How the leaderboard treats topics, as every output states it. */
export const RAG_TOPIC_HANDLING =
  'every topic with an assessed answer counts; a system without an answer to a topic scores 0 on it';

/** A leaderboard of systems from per-answer scores, and what it left out. */
export interface RagLeaderboard {
  report: CompareReport;
  /** Topic ids in leaderboard order. */
  topics: string[];
  /** Systems, best first. */
  systems: string[];
}

/**
 * The significance-tested leaderboard of the systems from per-answer scores: for each
 * measure of `kind`, the mean over topics with a 95% bootstrap interval, pairwise tests
 * and the correction per measure (settings as `assay compare`). Topics are those of
 * `topics` (default: every topic an answer was scored on) and the systems those of
 * `systems` (default: every system with a scored answer); a system without a scored answer
 * to a topic scores 0 there. `name` names the judgments in every output.
 */
export function ragLeaderboard(
  kind: RagKind,
  answers: readonly RagAnswerScores[],
  settings: CompareSettings,
  name: string,
  topics?: readonly string[],
  systemNames?: readonly string[],
): RagLeaderboard {
  const measures = [...RAG_MEASURES[kind]];
  const topicIds = topics ? [...topics] : [...new Set(answers.map((a) => a.topic))];
  const bySystem = new Map<string, Map<string, Record<string, number>>>();
  for (const a of answers) {
    let m = bySystem.get(a.system);
    if (!m) bySystem.set(a.system, (m = new Map()));
    m.set(a.topic, a.scores);
  }
  const zero = Object.fromEntries(measures.map((m) => [m, 0]));
  const names = systemNames ? [...systemNames] : [...bySystem.keys()].sort();
  const systems = names.map((run) => ({
    run,
    values: new Map(topicIds.map((t) => [t, bySystem.get(run)?.get(t) ?? zero])),
  }));
  try {
    const comparison = compareTopicValues(systems, topicIds, measures, settings, {
      topicHandling: RAG_TOPIC_HANDLING,
      source: SOURCE[kind],
    });
    return {
      report: comparisonReport([{ qrels: name, comparison }], measures),
      topics: topicIds,
      systems: comparison.runs.map((r) => r.run),
    };
  } catch (error) {
    if (error instanceof CompareError) throw new PlatformError('invalid_input', error.message);
    throw error;
  }
}

/** A rubric axis' mean score per system, over the topics whose rubric has the axis. */
export interface AxisMean {
  system: string;
  axis: string;
  mean: number;
  topics: number;
}

/** Per system and axis, the mean rubric score over the answers scored on that axis. */
export function axisMeans(answers: readonly RagAnswerScores[]): AxisMean[] {
  const sums = new Map<string, { system: string; axis: string; sum: number; n: number }>();
  for (const a of answers)
    for (const [axis, value] of Object.entries(a.axes ?? {})) {
      const key = JSON.stringify([a.system, axis]);
      const entry = sums.get(key) ?? { system: a.system, axis, sum: 0, n: 0 };
      entry.sum += value;
      entry.n++;
      sums.set(key, entry);
    }
  return [...sums.values()]
    .map((e) => ({ system: e.system, axis: e.axis, mean: e.sum / e.n, topics: e.n }))
    .sort((x, y) =>
      x.axis === y.axis ? (x.system < y.system ? -1 : 1) : x.axis < y.axis ? -1 : 1,
    );
}

/** Per-answer scores as JSONL: `{"qid","system",<measure>…,"axes"?}`. */
export function formatAnswerScores(kind: RagKind, answers: readonly RagAnswerScores[]): string {
  return answers
    .map((a) => {
      const line: Record<string, unknown> = { qid: a.topic, system: a.system };
      for (const m of RAG_MEASURES[kind]) line[m] = a.scores[m];
      if (a.axes) line.axes = a.axes;
      return `${JSON.stringify(line)}\n`;
    })
    .join('');
}

/** Per-answer scores as CSV (`qid,system,<measures>`), through assay's one CSV escaper. */
export function answerScoresCsv(kind: RagKind, answers: readonly RagAnswerScores[]): string {
  const measures = RAG_MEASURES[kind];
  return [
    csvRow(['qid', 'system', ...measures]),
    ...answers.map((a) => csvRow([a.topic, a.system, ...measures.map((m) => a.scores[m])])),
  ]
    .map((l) => `${l}\n`)
    .join('');
}
