/**
 * Evaluates runs against qrels with trec_eval 10.0's topic handling: topics come from the
 * qrels in byte order; run topics without judgments are ignored; `-c` scores a qrels topic
 * the run lacks as a one-document non-relevant ranking (so nearly every measure is 0),
 * and without `-c` such a topic is an error, as in trec_eval 10.0. The relevance
 * information may also be judgment-group qrels or preferences (trec_eval's `-R`).
 */
import {
  docnoAt,
  type Qrels,
  type Run,
  type RunColumns,
  type RunEntry,
  type TopicColumns,
} from '@assay/trec';
import type { PreparedJudgmentGroups } from './judgment-groups.js';
import { formPreferenceCounts, type PreferenceCounts, type PreparedPreferences } from './prefs.js';
import { type MeasureDefinition } from './registry.js';
import { columnRelevances, judgmentIndexOf } from './rank-columns.js';
import {
  rankRelevances,
  rankTopic,
  summarizeJudgments,
  type RankedTopic,
  type TopicJudgments,
} from './ranking.js';
import { checkRelevanceFormat, type ResolvedMeasure } from './resolve.js';

/** Options with trec_eval's flags in brackets. */
export interface EvaluationOptions {
  /** Minimum grade counted as relevant [-l], default 1. */
  relevanceLevel?: number;
  /** Only judged documents are kept in rankings [-J]. */
  judgedOnly?: boolean;
  /** At most this many documents per topic are evaluated [-M]. */
  maxDocs?: number;
  /** Average over every qrels topic; missing ones score as empty rankings [-c]. */
  completeTopics?: boolean;
  /** Number of documents in the collection, for `utility`'s fourth coefficient [-N]. */
  numDocsInCollection?: number;
  /** Per-topic means and standard deviations: report z-scores instead of raw values [-Z]. */
  zscores?: ZScoreTable;
}

/** Means and standard deviations per topic and measure output name. */
export type ZScoreTable = Map<string, Map<string, { mean: number; stddev: number }>>;

/** trec_eval's value for a z-score it cannot compute. */
export const MISSING_ZSCORE = -1000000;

/** Qrels prepared once and shared by every run evaluated against them. */
export interface PreparedQrels {
  /** Absent or 'qrels' (set by prepareQrels); tells PreparedRelevance kinds apart. */
  format?: 'qrels';
  /** Topic ids in byte order, as trec_eval visits them. */
  topics: string[];
  judgments: Map<string, TopicJudgments>;
}

/**
 * Relevance information of any kind evaluateRun accepts: qrels (prepareQrels),
 * judgment-group qrels (prepareJudgmentGroups) or preferences (preparePreferences).
 */
export type PreparedRelevance = PreparedQrels | PreparedJudgmentGroups | PreparedPreferences;

/** The kind of relevance information (`qrels`, `qrels_jg` or `prefs`). */
export function relevanceFormatOf(relevance: PreparedRelevance): 'qrels' | 'qrels_jg' | 'prefs' {
  return relevance.format ?? 'qrels';
}

/** One output column: a measure value name and how to show it. */
export interface EvaluationColumn {
  name: string;
  output: MeasureDefinition['output'];
  aggregate: MeasureDefinition['aggregate'];
  perQuery: boolean;
}

/** Values of one run: per topic and the summary, column by column. */
export interface RunEvaluation {
  runid: string;
  columns: EvaluationColumn[];
  topics: Array<{ qid: string; values: Array<number | string> }>;
  /** Summary value per column; null where trec_eval prints no summary (relstring). */
  summary: Array<number | string | null>;
  numQueries: number;
}

/** A qrels topic the run has no results for, without `-c` (trec_eval exits with code 4). */
export class MissingTopicError extends Error {
  constructor(
    readonly qid: string,
    readonly runid: string,
  ) {
    super(
      `topic ${qid} has judgments but no results in run '${runid}'; ` +
        'use -c to average over every qrels topic (missing topics score 0)',
    );
    this.name = 'MissingTopicError';
  }
}

/** Byte-order comparison of two strings (C strcmp order for ASCII ids). */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Prepares qrels for evaluation: sorted topics and per-topic grade statistics. */
export function prepareQrels(qrels: Qrels): PreparedQrels {
  const topics = [...qrels.keys()].sort(compareIds);
  const judgments = new Map<string, TopicJudgments>();
  for (const qid of topics) judgments.set(qid, summarizeJudgments(qrels.get(qid)!));
  return { format: 'qrels', topics, judgments };
}

const MISSING_TOPIC_RANKING: RunEntry[] = [{ docno: 'ceci_nest_pas_un_docno', rank: 1, score: 1 }];
const MIN_GEO_MEAN = 0.00001;

/** What runid and num_q are computed from when there is no qrels ranking (they read none). */
const NO_RANKING: RankedTopic = {
  rels: new Float64Array(0),
  numRet: 0,
  numRel: 0,
  numRelRet: 0,
  numNonpool: 0,
  numUnjudgedInPool: 0,
  levels: [],
  numLevels: 0,
  relevanceLevel: 1,
};

/** A topic held as columns, as run entries (ranks numbered in file order). */
function columnsToEntries(topic: TopicColumns): RunEntry[] {
  return Array.from({ length: topic.length }, (_, i) => ({
    docno: docnoAt(topic, i),
    rank: i + 1,
    score: topic.scores[i]!,
  }));
}

/**
 * Evaluates one run, parsed as entries (parseRun) or as columns (RunColumnsParser, faster
 * and smaller for large runs); throws MissingTopicError per trec_eval 10.0 when `-c` is
 * off, and MeasureSpecError when a measure needs another kind of relevance information.
 */
export function evaluateRun(
  qrels: PreparedRelevance,
  run: Run | RunColumns,
  measures: readonly ResolvedMeasure[],
  options: EvaluationOptions = {},
): RunEvaluation {
  const format = relevanceFormatOf(qrels);
  checkRelevanceFormat(measures, format);
  const level = options.relevanceLevel ?? 1;
  const ranking = {
    judgedOnly: options.judgedOnly ?? false,
    maxDocs: options.maxDocs ?? Number.MAX_SAFE_INTEGER,
  };
  const ctx = { numDocsInCollection: options.numDocsInCollection ?? 0 };
  const columns: EvaluationColumn[] = [];
  for (const rm of measures) {
    for (const name of rm.names) {
      const d = rm.definition;
      columns.push({ name, output: d.output, aggregate: d.aggregate, perQuery: d.perQuery });
    }
  }
  const topics: RunEvaluation['topics'] = [];
  const asColumns = 'kind' in run && run.kind === 'columns';
  for (const qid of qrels.topics) {
    const found = run.topics.get(qid);
    let held: TopicColumns | undefined;
    let entries: RunEntry[] | undefined;
    if (found === undefined) {
      if (!options.completeTopics) throw new MissingTopicError(qid, run.name);
      entries = MISSING_TOPIC_RANKING;
    } else if (asColumns) {
      held = found as TopicColumns;
      // Only judgment groups and preferences need the entries themselves.
      if (qrels.format === 'qrels_jg' || qrels.format === 'prefs') entries = columnsToEntries(held);
    } else entries = found as RunEntry[];
    const missing = found === undefined;
    const byLevel = new Map<number, RankedTopic>();
    let columnRels: Float64Array | undefined;
    const ranked = (lvl: number): RankedTopic => {
      if (qrels.format === 'qrels_jg' || qrels.format === 'prefs') return NO_RANKING;
      let t = byLevel.get(lvl);
      if (!t) {
        const judgments = qrels.judgments.get(qid)!;
        if (held) {
          columnRels ??= columnRelevances(held, judgmentIndexOf(judgments), ranking);
          t = rankRelevances(columnRels, judgments, lvl);
        } else t = rankTopic(entries!, judgments, { ...ranking, relevanceLevel: lvl });
        byLevel.set(lvl, t);
      }
      return t;
    };
    const groupsByLevel = new Map<number, RankedTopic[]>();
    const rankedGroups = (lvl: number): RankedTopic[] => {
      if (qrels.format !== 'qrels_jg') return [];
      let groups = groupsByLevel.get(lvl);
      if (!groups) {
        const options = { ...ranking, relevanceLevel: lvl };
        groups = qrels.groups.get(qid)!.map((j) => rankTopic(entries!, j, options));
        groupsByLevel.set(lvl, groups);
      }
      return groups;
    };
    let preferences: PreferenceCounts | undefined;
    const preferenceCounts = (): PreferenceCounts => {
      if (qrels.format !== 'prefs') throw new Error('no preference judgments');
      preferences ??= formPreferenceCounts(
        qid,
        entries!,
        qrels.judgments.get(qid)!,
        ranking.maxDocs,
      );
      return preferences;
    };
    const values: Array<number | string> = [];
    for (const rm of measures) {
      const d = rm.definition;
      const lvl = rm.relevanceLevel ?? level;
      let out: number[] | string;
      if (d.relevance === 'qrels_jg') out = d.computeGroups!(rankedGroups(lvl), rm.params, ctx);
      else if (d.relevance === 'prefs') out = d.computePrefs!(preferenceCounts(), rm.params, ctx);
      else out = d.compute(ranked(lvl), rm.params, ctx);
      if (typeof out === 'string') values.push(out);
      else for (const v of out) values.push(v);
    }
    if (missing) clearMissingTopicLeftovers(columns, values);
    if (options.zscores) toZScores(options.zscores, qid, columns, values);
    topics.push({ qid, values });
  }
  const numQueries = topics.length;
  const summary = columns.map((col, i) => summarize(col, i, topics, numQueries, run.name));
  return { runid: run.name, columns, topics, summary, numQueries };
}

// trec_eval resets these values for a topic scored with the stand-in ranking; the names
// are matched exactly as it matches them.
function clearMissingTopicLeftovers(
  columns: EvaluationColumn[],
  values: Array<number | string>,
): void {
  columns.forEach((col, i) => {
    if (
      col.name === 'num_ret' ||
      col.name === 'utility' ||
      col.name === 'rbp_resid' ||
      col.name.startsWith('unj')
    ) {
      values[i] = 0;
    } else if (col.name === 'relstring') values[i] = '';
    // assay's Judged@k: a topic the run does not cover has nothing judged.
    else if (col.name.startsWith('Judged@')) values[i] = 0;
  });
}

function toZScores(
  table: ZScoreTable,
  qid: string,
  columns: EvaluationColumn[],
  values: Array<number | string>,
): void {
  const forTopic = table.get(qid);
  columns.forEach((col, i) => {
    if (col.aggregate === 'runid' || col.aggregate === 'count' || col.output === 'string') return;
    const z = forTopic?.get(col.name);
    const v = values[i] as number;
    if (!z) values[i] = MISSING_ZSCORE;
    else if (z.stddev) values[i] = (v - z.mean) / z.stddev;
    else values[i] = v === z.mean ? 0 : MISSING_ZSCORE;
  });
}

function summarize(
  col: EvaluationColumn,
  index: number,
  topics: RunEvaluation['topics'],
  numQueries: number,
  runid: string,
): number | string | null {
  switch (col.aggregate) {
    case 'runid':
      return runid;
    case 'count':
      return numQueries;
    case 'none':
      return null;
    case 'sum': {
      let sum = 0;
      for (const t of topics) sum += t.values[index] as number;
      return sum;
    }
    case 'mean': {
      let sum = 0;
      for (const t of topics) sum += t.values[index] as number;
      return numQueries ? sum / numQueries : 0;
    }
    case 'geometric': {
      let sum = 0;
      for (const t of topics) sum += Math.log(Math.max(t.values[index] as number, MIN_GEO_MEAN));
      return numQueries ? Math.exp(sum / numQueries) : 0;
    }
  }
}
