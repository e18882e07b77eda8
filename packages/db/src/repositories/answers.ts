import { sql } from 'kysely';
import { bulkInsert, withTransaction, type Queryable } from '../bulk.js';
import type { ScoreSetMode } from '../answers-schema.js';
import type { JsonObject, JsonValue, Row } from '../schema.js';
import { seek, type Seek } from '../keyset.js';

/** A stored response set with its counts. */
export interface ResponseSet {
  id: number;
  name: string;
  provenance: JsonObject;
  createdBy: number | null;
  createdAt: Date;
  /** Stored answers, distinct topics and distinct systems. */
  responses: number;
  topics: number;
  systems: number;
}

/** A sentence of an answer with the passage ids it cites, in order. */
export interface StoredSentence {
  text: string;
  citations: string[];
}

/** A system's stored answer to a topic. */
export interface StoredResponse {
  topicId: string;
  system: string;
  query: string | null;
  answer: string;
  references: string[] | null;
  /** The answer as sentences with citations, when it was given so. */
  sentences: StoredSentence[] | null;
}

/** A new answer of a response set. */
export interface NewResponse {
  topicId: string;
  system: string;
  answer: string;
  query?: string | null;
  references?: string[] | null;
  sentences?: StoredSentence[] | null;
}

/** Fields of a new response set. */
export interface NewResponseSet {
  name: string;
  provenance?: JsonObject;
  createdBy?: number | null;
}

/** A stored score set with its counts. */
export interface ScoreSet {
  id: number;
  responseSetId: number;
  name: string;
  judgeId: string;
  mode: ScoreSetMode;
  criteria: string[];
  settings: JsonObject;
  createdBy: number | null;
  createdAt: Date;
  /** Rows scored and rows failed. */
  scored: number;
  failed: number;
}

/** Fields of a new score set. */
export interface NewScoreSet {
  responseSetId: number;
  name: string;
  judgeId: string;
  mode: ScoreSetMode;
  criteria: string[];
  settings?: JsonObject;
  createdBy?: number | null;
}

/** One (topic, system, trial) of a score set: scores, or the reason it failed. */
export interface AnswerScoreRow {
  topicId: string;
  system: string;
  trial: number;
  scores: Record<string, number> | null;
  justification: string | null;
  label: string | null;
  error: string | null;
  raw: string | null;
}

function jsonb<T extends JsonValue>(value: T) {
  return sql<T>`cast(cast(${JSON.stringify(value)} as text) as jsonb)`;
}

/** Creates an empty response set; its name is unique (a unique violation otherwise). */
export async function createResponseSet(db: Queryable, input: NewResponseSet): Promise<number> {
  const row = await db
    .insertInto('response_sets')
    .values({
      name: input.name,
      provenance: jsonb(input.provenance ?? {}),
      created_by: input.createdBy ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Adds answers to a response set (in batches, inside one transaction). */
export async function insertResponses(
  db: Queryable,
  responseSetId: number,
  responses: readonly NewResponse[],
): Promise<number> {
  return withTransaction(db, (trx) =>
    bulkInsert(trx, {
      table: 'responses',
      constant: { response_set_id: responseSetId },
      columns: [
        { name: 'topic_id', type: 'text', value: (r: NewResponse) => r.topicId },
        { name: 'system', type: 'text', value: (r) => r.system },
        { name: 'query', type: 'text', value: (r) => r.query ?? null },
        { name: 'answer', type: 'text', value: (r) => r.answer },
        {
          name: 'reference_list',
          type: 'jsonb',
          value: (r) => r.references ?? null,
        },
        { name: 'sentences', type: 'jsonb', value: (r) => r.sentences ?? null },
      ],
      rows: responses,
    }),
  );
}

function responseSetQuery(db: Queryable) {
  return db
    .selectFrom('response_sets as s')
    .selectAll('s')
    .select((eb) => [
      eb
        .selectFrom('responses as r')
        .whereRef('r.response_set_id', '=', 's.id')
        .select((e) => e.fn.countAll<string | number>().as('n'))
        .as('responses'),
      eb
        .selectFrom('responses as r')
        .whereRef('r.response_set_id', '=', 's.id')
        .select(sql<string | number>`count(distinct r.topic_id)`.as('n'))
        .as('topics'),
      eb
        .selectFrom('responses as r')
        .whereRef('r.response_set_id', '=', 's.id')
        .select(sql<string | number>`count(distinct r.system)`.as('n'))
        .as('systems'),
    ]);
}

type ResponseSetRow = Row<'response_sets'> & {
  responses: string | number | null;
  topics: string | number | null;
  systems: string | number | null;
};

function toResponseSet(row: ResponseSetRow): ResponseSet {
  return {
    id: row.id,
    name: row.name,
    provenance: row.provenance,
    createdBy: row.created_by,
    createdAt: row.created_at,
    responses: Number(row.responses ?? 0),
    topics: Number(row.topics ?? 0),
    systems: Number(row.systems ?? 0),
  };
}

/**
 * Every response set, newest first (id descending), with counts; given a page, those after
 * its key (id) and at most limit + 1 of them.
 */
export async function listResponseSets(db: Queryable, page?: Seek): Promise<ResponseSet[]> {
  const rows = await seek(responseSetQuery(db), [sql.ref('s.id')], page, 'desc').execute();
  return rows.map((r) => toResponseSet(r as ResponseSetRow));
}

/** A response set by id, or undefined. */
export async function getResponseSet(db: Queryable, id: number): Promise<ResponseSet | undefined> {
  const row = await responseSetQuery(db).where('s.id', '=', id).executeTakeFirst();
  return row && toResponseSet(row as ResponseSetRow);
}

/** A response set by name, or undefined. */
export async function findResponseSetByName(
  db: Queryable,
  name: string,
): Promise<ResponseSet | undefined> {
  const row = await responseSetQuery(db).where('s.name', '=', name).executeTakeFirst();
  return row && toResponseSet(row as ResponseSetRow);
}

/** The answers of a response set, by topic then system; optionally one topic's only. */
export async function listResponses(
  db: Queryable,
  responseSetId: number,
  options: { topicId?: string } = {},
): Promise<StoredResponse[]> {
  let query = db.selectFrom('responses').selectAll().where('response_set_id', '=', responseSetId);
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  const rows = await query.orderBy('topic_id').orderBy('system').execute();
  return rows.map((r) => ({
    topicId: r.topic_id,
    system: r.system,
    query: r.query,
    answer: r.answer,
    references: (r.reference_list as string[] | null) ?? null,
    sentences: (r.sentences as StoredSentence[] | null) ?? null,
  }));
}

/** Deletes a response set with its answers and score sets; false when there was none. */
export async function deleteResponseSet(db: Queryable, id: number): Promise<boolean> {
  const result = await db.deleteFrom('response_sets').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Creates an empty score set of a response set; (response set, name) is unique. */
export async function createScoreSet(db: Queryable, input: NewScoreSet): Promise<number> {
  const row = await db
    .insertInto('score_sets')
    .values({
      response_set_id: input.responseSetId,
      name: input.name,
      judge_id: input.judgeId,
      mode: input.mode,
      criteria: jsonb(input.criteria),
      settings: jsonb(input.settings ?? {}),
      created_by: input.createdBy ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Adds rows to a score set (in batches, inside one transaction). */
export async function insertAnswerScores(
  db: Queryable,
  scoreSetId: number,
  rows: readonly AnswerScoreRow[],
): Promise<number> {
  return withTransaction(db, (trx) =>
    bulkInsert(trx, {
      table: 'answer_scores',
      constant: { score_set_id: scoreSetId },
      columns: [
        { name: 'topic_id', type: 'text', value: (r: AnswerScoreRow) => r.topicId },
        { name: 'system', type: 'text', value: (r) => r.system },
        { name: 'trial', type: 'int4', value: (r) => r.trial },
        {
          name: 'scores',
          type: 'jsonb',
          value: (r) => r.scores,
        },
        { name: 'justification', type: 'text', value: (r) => r.justification },
        { name: 'label', type: 'text', value: (r) => r.label },
        { name: 'error', type: 'text', value: (r) => r.error },
        { name: 'raw', type: 'text', value: (r) => r.raw },
      ],
      rows,
    }),
  );
}

function scoreSetQuery(db: Queryable) {
  return db
    .selectFrom('score_sets as s')
    .selectAll('s')
    .select((eb) => [
      eb
        .selectFrom('answer_scores as a')
        .whereRef('a.score_set_id', '=', 's.id')
        .where('a.scores', 'is not', null)
        .select((e) => e.fn.countAll<string | number>().as('n'))
        .as('scored'),
      eb
        .selectFrom('answer_scores as a')
        .whereRef('a.score_set_id', '=', 's.id')
        .where('a.scores', 'is', null)
        .select((e) => e.fn.countAll<string | number>().as('n'))
        .as('failed'),
    ]);
}

type ScoreSetRow = Row<'score_sets'> & {
  scored: string | number | null;
  failed: string | number | null;
};

function toScoreSet(row: ScoreSetRow): ScoreSet {
  return {
    id: row.id,
    responseSetId: row.response_set_id,
    name: row.name,
    judgeId: row.judge_id,
    mode: row.mode,
    criteria: row.criteria as string[],
    settings: row.settings,
    createdBy: row.created_by,
    createdAt: row.created_at,
    scored: Number(row.scored ?? 0),
    failed: Number(row.failed ?? 0),
  };
}

/** The score sets of a response set, oldest first, with counts. */
export async function listScoreSets(db: Queryable, responseSetId: number): Promise<ScoreSet[]> {
  const rows = await scoreSetQuery(db)
    .where('s.response_set_id', '=', responseSetId)
    .orderBy('s.id')
    .execute();
  return rows.map((r) => toScoreSet(r as ScoreSetRow));
}

/** A score set by id, or undefined. */
export async function getScoreSet(db: Queryable, id: number): Promise<ScoreSet | undefined> {
  const row = await scoreSetQuery(db).where('s.id', '=', id).executeTakeFirst();
  return row && toScoreSet(row as ScoreSetRow);
}

/** The rows of a score set by topic, system and trial; optionally one topic's only. */
export async function listAnswerScores(
  db: Queryable,
  scoreSetId: number,
  options: { topicId?: string } = {},
): Promise<AnswerScoreRow[]> {
  let query = db.selectFrom('answer_scores').selectAll().where('score_set_id', '=', scoreSetId);
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  const rows = await query.orderBy('topic_id').orderBy('system').orderBy('trial').execute();
  return rows.map((r) => ({
    topicId: r.topic_id,
    system: r.system,
    trial: r.trial,
    scores: r.scores as Record<string, number> | null,
    justification: r.justification,
    label: r.label,
    error: r.error,
    raw: r.raw,
  }));
}

/** Deletes a score set with its rows; false when there was none. */
export async function deleteScoreSet(db: Queryable, id: number): Promise<boolean> {
  const result = await db.deleteFrom('score_sets').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A grade a person gave one criterion of an answer (table `hand_scores`). */
export interface HandScore {
  topicId: string;
  system: string;
  criterion: string;
  grade: number;
  updatedAt: Date;
}

/** Which person scores which response set with which judge template's criteria. */
export interface HandScorer {
  responseSetId: number;
  userId: number;
  judgeId: string;
}

/** Stores a person's grade of one criterion of an answer (a newer grade replaces the older). */
export async function saveHandScore(
  db: Queryable,
  scorer: HandScorer,
  score: { topicId: string; system: string; criterion: string; grade: number },
): Promise<HandScore> {
  const row = await db
    .insertInto('hand_scores')
    .values({
      response_set_id: scorer.responseSetId,
      user_id: scorer.userId,
      judge_id: scorer.judgeId,
      topic_id: score.topicId,
      system: score.system,
      criterion: score.criterion,
      grade: score.grade,
    })
    .onConflict((oc) =>
      oc
        .columns(['response_set_id', 'user_id', 'judge_id', 'topic_id', 'system', 'criterion'])
        .doUpdateSet({ grade: score.grade, updated_at: sql<Date>`now()` }),
    )
    .returning(['topic_id', 'system', 'criterion', 'grade', 'updated_at'])
    .executeTakeFirstOrThrow();
  return toHandScore(row);
}

/** A person's stored grades of a response set under one judge template, by topic, system, criterion. */
export async function listHandScores(
  db: Queryable,
  scorer: HandScorer,
  options: { topicId?: string } = {},
): Promise<HandScore[]> {
  let query = db
    .selectFrom('hand_scores')
    .select(['topic_id', 'system', 'criterion', 'grade', 'updated_at'])
    .where('response_set_id', '=', scorer.responseSetId)
    .where('user_id', '=', scorer.userId)
    .where('judge_id', '=', scorer.judgeId);
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  const rows = await query.orderBy('topic_id').orderBy('system').orderBy('criterion').execute();
  return rows.map(toHandScore);
}

function toHandScore(r: {
  topic_id: string;
  system: string;
  criterion: string;
  grade: number;
  updated_at: Date;
}): HandScore {
  return {
    topicId: r.topic_id,
    system: r.system,
    criterion: r.criterion,
    grade: r.grade,
    updatedAt: new Date(r.updated_at),
  };
}
