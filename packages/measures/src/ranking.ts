import { rankEntries, type RunEntry } from '@assay/trec';

/** Relevance value trec_eval gives a retrieved document that is not in the qrels. */
export const REL_NONPOOL = -1;
/** Relevance value of a document that is in the qrels with a negative grade (pooled, unjudged). */
export const REL_UNJUDGED = -2;

/** Judgment statistics of one topic, computed once per qrels and shared by every run. */
export interface TopicJudgments {
  /** docno → grade as written in the qrels (negative = in the pool but not judged). */
  grades: Map<string, number>;
  /** The grades ≥ 0 some document has, ascending, each with its number of documents. */
  levels: readonly GradeLevel[];
  /** Highest non-empty grade + 1 (0 when no document has a grade ≥ 0). */
  numLevels: number;
}

/** A grade and how many documents of a topic were judged with it. */
export interface GradeLevel {
  grade: number;
  count: number;
}

/** Builds the per-topic judgment statistics trec_eval derives from a qrels topic. */
export function summarizeJudgments(grades: Map<string, number>): TopicJudgments {
  return { grades, ...summarizeGrades(grades.values()) };
}

/**
 * Counts per grade and the number of grade levels, from a topic's grades. trec_eval keeps
 * one counter per grade from 0 to the highest; only the grades that occur are kept here, so
 * a grade such as 2000000000 costs one entry, not two billion.
 */
export function summarizeGrades(grades: Iterable<number>): {
  levels: GradeLevel[];
  numLevels: number;
} {
  const counts = new Map<number, number>();
  for (const grade of grades) {
    if (grade < 0) continue;
    counts.set(grade, (counts.get(grade) ?? 0) + 1);
  }
  const levels = [...counts].map(([grade, count]) => ({ grade, count }));
  levels.sort((a, b) => a.grade - b.grade);
  const numLevels = levels.length === 0 ? 0 : levels[levels.length - 1]!.grade + 1;
  return { levels, numLevels };
}

/** Options that change how a run's topic is turned into a ranked relevance list. */
export interface RankingOptions {
  /** Minimum grade that counts as relevant (trec_eval `-l`, default 1). */
  relevanceLevel: number;
  /** Keep only judged documents (trec_eval `-J`). */
  judgedOnly: boolean;
  /** Evaluate at most this many documents per topic (trec_eval `-M`). */
  maxDocs: number;
}

/** A topic's retrieved documents after trec_eval ranking, as relevance values by rank. */
export interface RankedTopic {
  /** Relevance value at rank i+1: a grade ≥ 0, REL_NONPOOL or REL_UNJUDGED. */
  rels: Float64Array;
  numRet: number;
  /** Number of judged documents with grade ≥ relevanceLevel. */
  numRel: number;
  /** Number of retrieved documents with grade ≥ relevanceLevel. */
  numRelRet: number;
  numNonpool: number;
  numUnjudgedInPool: number;
  /** Judged documents per grade ≥ 0, ascending (from the qrels, not the run). */
  levels: readonly GradeLevel[];
  numLevels: number;
  relevanceLevel: number;
}

/**
 * Orders entries the way trec_eval does: score descending, ties by docno descending
 * (byte order); the rank column is ignored. Returns a new array.
 */
export function trecOrder(entries: readonly RunEntry[]): RunEntry[] {
  return rankEntries(entries);
}

/** Ranks one topic of a run against its judgments, exactly as trec_eval 10.0 does. */
export function rankTopic(
  entries: readonly RunEntry[],
  judgments: TopicJudgments,
  options: RankingOptions,
): RankedTopic {
  let ordered = trecOrder(entries);
  if (ordered.length > options.maxDocs) ordered = ordered.slice(0, Math.max(0, options.maxDocs));
  const { grades } = judgments;
  let rels = new Float64Array(ordered.length);
  let kept = 0;
  for (let i = 0; i < ordered.length; i++) {
    const g = grades.get(ordered[i]!.docno);
    const rel = g === undefined ? REL_NONPOOL : g < 0 ? REL_UNJUDGED : g;
    if (options.judgedOnly && rel < 0) continue;
    rels[kept++] = rel;
  }
  if (kept < rels.length) rels = rels.slice(0, kept);
  return rankRelevances(rels, judgments, options.relevanceLevel);
}

/**
 * The RankedTopic of relevance values already in rank order (after `-M` and `-J`): the
 * counts every measure reads, for relevance level `level`.
 */
export function rankRelevances(
  rels: Float64Array,
  judgments: TopicJudgments,
  level: number,
): RankedTopic {
  let numRelRet = 0;
  let numNonpool = 0;
  let numUnjudgedInPool = 0;
  for (let i = 0; i < rels.length; i++) {
    const r = rels[i]!;
    if (r === REL_NONPOOL) numNonpool++;
    else if (r === REL_UNJUDGED) numUnjudgedInPool++;
    else if (r >= level) numRelRet++;
  }
  return {
    rels,
    numRet: rels.length,
    numRel: countRelevant(judgments, level),
    numRelRet,
    numNonpool,
    numUnjudgedInPool,
    levels: judgments.levels,
    numLevels: judgments.numLevels,
    relevanceLevel: level,
  };
}

/** Number of judged documents with grade ≥ level. */
export function countRelevant(judgments: TopicJudgments, level: number): number {
  let n = 0;
  for (const { grade, count } of judgments.levels) if (grade >= level) n += count;
  return n;
}
