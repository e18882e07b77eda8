// What an assessment set judges: its answers, and per answer the items (the bank version's
// nuggets of the topic, the answer's citations, the rubric's criteria of the topic) with
// their current labels; and the same as the files' records (nuggetizer's form for nuggets).
import {
  getAssessmentSet,
  getDocuments,
  getNuggetBank,
  getNuggetBankVersion,
  getRubricSet,
  getTopic,
  listCurrentAssessments,
  listNuggets,
  listResponses,
  listRubricCriteria,
  type AssessmentKind,
  type AssessmentSet,
  type Queryable,
  type StoredAssessment,
  type StoredCriterion,
  type StoredNugget,
  type StoredResponse,
} from '@assay/db';
import {
  NUGGET_ASSIGNMENTS,
  RUBRIC_JUDGMENTS,
  SUPPORT_LABELS,
  type NuggetAssignment,
  type RubricJudgment,
  type SupportLabel,
} from '@assay/stats';
import { PlatformError } from '../core/errors.js';
import { resolveResponseSet } from '../answers/answer-sets.js';
import type { NuggetAssignmentRecord, RubricJudgmentRecord, SupportRecord } from './rag-files.js';

export type { AssessmentSet, StoredAssessment };

/** The labels of each kind, highest first. */
export const ASSESSMENT_LABELS: Readonly<Record<AssessmentKind, readonly string[]>> = {
  nuggets: NUGGET_ASSIGNMENTS,
  support: SUPPORT_LABELS,
  rubric: RUBRIC_JUDGMENTS,
};

/** One thing of an answer to judge. */
export interface AssessmentItem {
  /** The item's key: a nugget id, `sentence/citation` (zero-based), or a criterion id. */
  item: string;
  /** The nugget, the citing sentence, or the criterion. */
  text: string;
  importance?: 'vital' | 'okay';
  weight?: number;
  axis?: string | null;
  /** Support: the sentence's and citation's positions, the cited passage id and its text. */
  sentence?: number;
  citation?: number;
  docid?: string;
  passage?: string | null;
}

/** Everything an assessment set judges, loaded once. */
export interface AssessmentContext {
  set: AssessmentSet;
  answers: StoredResponse[];
  nuggets: Map<string, StoredNugget[]>;
  criteria: Map<string, StoredCriterion[]>;
  /** Support: the cited passages' texts (null when the collection lacks the passage). */
  passages: Map<string, string | null>;
  /** Topic id → the collection topic's query, for answers without their request. */
  queries: Map<string, string>;
}

/** An assessment set by id; not_found otherwise. */
export async function resolveAssessmentSet(db: Queryable, id: number): Promise<AssessmentSet> {
  const set = await getAssessmentSet(db, id);
  if (!set) throw new PlatformError('not_found', `no assessment set ${id}`);
  return set;
}

function grouped<T extends { topicId: string }>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.topicId);
    if (list) list.push(r);
    else out.set(r.topicId, [r]);
  }
  return out;
}

/**
 * Loads what a set judges: answers, nuggets or criteria, cited passages, topic queries;
 * with `topicId`, one topic's only (what a screen or a saved label needs).
 */
export async function loadAssessmentContext(
  db: Queryable,
  set: AssessmentSet,
  options: { topicId?: string } = {},
): Promise<AssessmentContext> {
  const only = options.topicId === undefined ? {} : { topicId: options.topicId };
  const answers = await listResponses(db, set.responseSetId, only);
  const nuggets =
    set.nuggetVersionId === null
      ? new Map()
      : grouped(await listNuggets(db, set.nuggetVersionId, only));
  const criteria =
    set.rubricSetId === null
      ? new Map()
      : grouped(await listRubricCriteria(db, set.rubricSetId, only));
  const passages = new Map<string, string | null>();
  if (set.kind === 'support') {
    const ids = answers.flatMap((a) => (a.sentences ?? []).flatMap((s) => s.citations));
    const found = await getDocuments(db, set.collectionId, ids);
    for (const id of ids) {
      const doc = found.get(id);
      passages.set(id, doc ? (doc.title ? `${doc.title}\n${doc.text}` : doc.text) : null);
    }
  }
  const queries = new Map<string, string>();
  for (const topic of new Set(answers.filter((a) => a.query === null).map((a) => a.topicId))) {
    const t = await getTopic(db, set.collectionId, topic);
    if (t) queries.set(topic, t.query);
  }
  return { set, answers, nuggets, criteria, passages, queries };
}

/** The request an answer responds to: its own, else the collection topic's, else undefined. */
export function requestOf(context: AssessmentContext, answer: StoredResponse): string | undefined {
  return answer.query ?? context.queries.get(answer.topicId);
}

/** The items of one answer, in order. */
export function itemsOf(context: AssessmentContext, answer: StoredResponse): AssessmentItem[] {
  switch (context.set.kind) {
    case 'nuggets':
      return (context.nuggets.get(answer.topicId) ?? []).map((n) => ({
        item: String(n.id),
        text: n.text,
        importance: n.importance,
      }));
    case 'rubric':
      return (context.criteria.get(answer.topicId) ?? []).map((c) => ({
        item: String(c.id),
        text: c.criterion,
        weight: c.weight,
        axis: c.axis,
      }));
    case 'support':
      return (answer.sentences ?? []).flatMap((s, i) =>
        s.citations.map((docid, k) => ({
          item: `${i}/${k}`,
          text: s.text,
          sentence: i,
          citation: k,
          docid,
          passage: context.passages.get(docid) ?? null,
        })),
      );
  }
}

/** Whether an answer is judged at all by a set of its kind (has a topic in the bank, sentences …). */
export function isAssessable(context: AssessmentContext, answer: StoredResponse): boolean {
  switch (context.set.kind) {
    case 'nuggets':
      return context.nuggets.has(answer.topicId);
    case 'rubric':
      return context.criteria.has(answer.topicId);
    case 'support':
      return answer.sentences !== null;
  }
}

/** The current judgments of a set, by answer then item. */
export async function currentLabels(
  db: Queryable,
  setId: number,
  options: { topicId?: string } = {},
): Promise<Map<string, Map<string, StoredAssessment>>> {
  const out = new Map<string, Map<string, StoredAssessment>>();
  for (const row of await listCurrentAssessments(db, setId, options)) {
    const key = answerKey(row.topicId, row.system);
    let items = out.get(key);
    if (!items) out.set(key, (items = new Map()));
    items.set(row.item, row);
  }
  return out;
}

/** The key of an answer in maps: topic and system. */
export function answerKey(topic: string, system: string): string {
  return JSON.stringify([topic, system]);
}

/** A set's judgments as the files' records, with the answers that are not fully judged. */
export interface AssessmentRecords {
  nuggets?: NuggetAssignmentRecord[];
  support?: SupportRecord[];
  rubric?: RubricJudgmentRecord[];
  /** Answers with items not judged (or failed): not scored. */
  incomplete: Array<{ topic: string; system: string; missing: number }>;
  /**
   * Topics whose every answer is fully judged (at least one), in answer order: the topics
   * a leaderboard is taken over.
   */
  topics: string[];
}

/**
 * A set's current judgments as records of its kind (nuggetizer's form for nuggets): one per
 * answer whose every item is judged; answers with unjudged or failed items are listed as
 * incomplete instead, and never scored (their topics are left out of leaderboards).
 */
export async function assessmentRecords(
  db: Queryable,
  setId: number,
): Promise<AssessmentRecords & { set: AssessmentSet }> {
  const set = await resolveAssessmentSet(db, setId);
  const context = await loadAssessmentContext(db, set);
  const labels = await currentLabels(db, set.id);
  const out: AssessmentRecords = { incomplete: [], topics: [] };
  const nuggets: NuggetAssignmentRecord[] = [];
  const support: SupportRecord[] = [];
  const rubric: RubricJudgmentRecord[] = [];
  const topics = new Set<string>();
  for (const answer of context.answers) {
    if (!isAssessable(context, answer)) {
      // An answer in plain text cites nothing: one sentence without citations, which
      // scores 0 like every answer without citations (never left off the leaderboard).
      if (set.kind === 'support') {
        topics.add(answer.topicId);
        support.push({
          qid: answer.topicId,
          system: answer.system,
          sentences: [{ text: answer.answer, citations: [] }],
        });
      }
      continue;
    }
    const items = itemsOf(context, answer);
    const judged = labels.get(answerKey(answer.topicId, answer.system)) ?? new Map();
    const label = (item: string) => judged.get(item)?.label ?? undefined;
    const missing = items.filter((i) => label(i.item) === undefined).length;
    if (missing > 0) {
      out.incomplete.push({ topic: answer.topicId, system: answer.system, missing });
      continue;
    }
    topics.add(answer.topicId);
    const qid = answer.topicId;
    const system = answer.system;
    if (set.kind === 'nuggets')
      nuggets.push({
        qid,
        system,
        nuggets: items.map((i) => ({
          text: i.text,
          importance: i.importance!,
          assignment: label(i.item) as NuggetAssignment,
        })),
      });
    else if (set.kind === 'rubric')
      rubric.push({
        qid,
        system,
        criteria: items.map((i) => ({
          criterion: i.text,
          weight: i.weight!,
          ...(i.axis ? { axis: i.axis } : {}),
          judgment: label(i.item) as RubricJudgment,
        })),
      });
    else
      support.push({
        qid,
        system,
        sentences: (answer.sentences ?? []).map((s, si) => ({
          text: s.text,
          citations: s.citations.map((docid, k) => ({
            docid,
            support: label(`${si}/${k}`) as SupportLabel,
          })),
        })),
      });
  }
  // Topics with an incompletely judged answer are left out of leaderboards.
  for (const i of out.incomplete) topics.delete(i.topic);
  out.topics = [...topics];
  if (set.kind === 'nuggets') out.nuggets = nuggets;
  if (set.kind === 'rubric') out.rubric = rubric;
  if (set.kind === 'support') out.support = support;
  return { ...out, set };
}

/** Names of a set's response set, bank version or rubric set, for provenance and pages. */
export async function describeAssessmentSet(db: Queryable, set: AssessmentSet) {
  const responseSet = await resolveResponseSet(db, set.responseSetId);
  const version =
    set.nuggetVersionId === null ? undefined : await getNuggetBankVersion(db, set.nuggetVersionId);
  const bank = version && (await getNuggetBank(db, version.bankId));
  const rubricSet = set.rubricSetId === null ? undefined : await getRubricSet(db, set.rubricSetId);
  return {
    responseSet: { id: responseSet.id, name: responseSet.name },
    ...(version && bank
      ? {
          nuggetBank: {
            id: bank.id,
            name: bank.name,
            versionId: version.id,
            version: version.version,
          },
        }
      : {}),
    ...(rubricSet ? { rubricSet: { id: rubricSet.id, name: rubricSet.name } } : {}),
  };
}
