// Nugget banks and their versions, rubric sets, and assessment sets with their judgments:
// the one place these tables are written.
import { sql } from 'kysely';
import { bulkInsert, withTransaction, type Queryable } from '../bulk.js';
import type { AssessmentKind, AssessmentMode, Assessor, NuggetOrigin } from '../rag-schema.js';
import type { JsonObject, JsonValue, Row } from '../schema.js';

function jsonb<T extends JsonValue>(value: T) {
  return sql<T>`cast(cast(${JSON.stringify(value)} as text) as jsonb)`;
}

// ------------------------------------------------------------------------- nugget banks

/** A nugget bank with its latest version. */
export interface NuggetBank {
  id: number;
  collectionId: number;
  name: string;
  createdBy: number | null;
  createdAt: Date;
  /** Number of its newest version (0 before the first is written). */
  latestVersion: number;
}

/** One version of a nugget bank with its counts. */
export interface NuggetBankVersion {
  id: number;
  bankId: number;
  version: number;
  provenance: JsonObject;
  /** Per topic, the fields of its line assay does not know. */
  topics: JsonObject;
  /** True once an assessment set uses it: edits then go to a new version. */
  frozen: boolean;
  createdBy: number | null;
  createdAt: Date;
  nuggets: number;
  vital: number;
  okay: number;
  topicCount: number;
}

/** A stored nugget. */
export interface StoredNugget {
  id: number;
  versionId: number;
  topicId: string;
  position: number;
  text: string;
  importance: 'vital' | 'okay';
  origin: NuggetOrigin;
  edited: boolean;
  lineage: number | null;
  extra: JsonObject;
  history: JsonValue[];
}

/** A nugget to store in a version. */
export interface NewNugget {
  topicId: string;
  position: number;
  text: string;
  importance: 'vital' | 'okay';
  origin: NuggetOrigin;
  edited?: boolean;
  lineage?: number | null;
  extra?: JsonObject;
  history?: JsonValue[];
}

function bankQuery(db: Queryable) {
  return db
    .selectFrom('nugget_banks as b')
    .selectAll('b')
    .select((eb) =>
      eb
        .selectFrom('nugget_bank_versions as v')
        .whereRef('v.bank_id', '=', 'b.id')
        .select(sql<number | null>`max(v.version)`.as('m'))
        .as('latest_version'),
    );
}

function toBank(row: Row<'nugget_banks'> & { latest_version: number | null }): NuggetBank {
  return {
    id: row.id,
    collectionId: row.collection_id,
    name: row.name,
    createdBy: row.created_by,
    createdAt: row.created_at,
    latestVersion: Number(row.latest_version ?? 0),
  };
}

/** Creates an empty nugget bank; (collection, name) is unique (a unique violation otherwise). */
export async function createNuggetBank(
  db: Queryable,
  input: { collectionId: number; name: string; createdBy?: number | null },
): Promise<number> {
  const row = await db
    .insertInto('nugget_banks')
    .values({
      collection_id: input.collectionId,
      name: input.name,
      created_by: input.createdBy ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A nugget bank by id, or undefined. */
export async function getNuggetBank(db: Queryable, id: number): Promise<NuggetBank | undefined> {
  const row = await bankQuery(db).where('b.id', '=', id).executeTakeFirst();
  return row && toBank(row);
}

/** A collection's nugget bank by name, or undefined. */
export async function findNuggetBank(
  db: Queryable,
  collectionId: number,
  name: string,
): Promise<NuggetBank | undefined> {
  const row = await bankQuery(db)
    .where('b.collection_id', '=', collectionId)
    .where('b.name', '=', name)
    .executeTakeFirst();
  return row && toBank(row);
}

/** The nugget banks of a collection, by name. */
export async function listNuggetBanks(db: Queryable, collectionId: number): Promise<NuggetBank[]> {
  const rows = await bankQuery(db)
    .where('b.collection_id', '=', collectionId)
    .orderBy('b.name')
    .execute();
  return rows.map(toBank);
}

/** Deletes a nugget bank with its versions and their assessment sets; false when none. */
export async function deleteNuggetBank(db: Queryable, id: number): Promise<boolean> {
  const result = await db.deleteFrom('nugget_banks').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Locks a bank's row until the transaction ends, so edits of one bank take turns. */
export async function lockNuggetBank(db: Queryable, id: number): Promise<void> {
  await db.selectFrom('nugget_banks').select('id').where('id', '=', id).forUpdate().execute();
}

function versionQuery(db: Queryable) {
  return db
    .selectFrom('nugget_bank_versions as v')
    .selectAll('v')
    .select((eb) => [
      eb
        .selectFrom('nuggets as n')
        .whereRef('n.version_id', '=', 'v.id')
        .select(sql<string | number>`count(*)`.as('c'))
        .as('nugget_count'),
      eb
        .selectFrom('nuggets as n')
        .whereRef('n.version_id', '=', 'v.id')
        .where('n.importance', '=', 'vital')
        .select(sql<string | number>`count(*)`.as('c'))
        .as('vital_count'),
      eb
        .selectFrom('nuggets as n')
        .whereRef('n.version_id', '=', 'v.id')
        .select(sql<string | number>`count(distinct n.topic_id)`.as('c'))
        .as('topic_count'),
    ]);
}

type VersionRow = Row<'nugget_bank_versions'> & {
  nugget_count: string | number | null;
  vital_count: string | number | null;
  topic_count: string | number | null;
};

function toVersion(row: VersionRow): NuggetBankVersion {
  const nuggets = Number(row.nugget_count ?? 0);
  const vital = Number(row.vital_count ?? 0);
  return {
    id: row.id,
    bankId: row.bank_id,
    version: row.version,
    provenance: row.provenance,
    topics: row.topics,
    frozen: row.frozen,
    createdBy: row.created_by,
    createdAt: row.created_at,
    nuggets,
    vital,
    okay: nuggets - vital,
    topicCount: Number(row.topic_count ?? 0),
  };
}

/** Adds a version to a bank; (bank, version) is unique. */
export async function createNuggetBankVersion(
  db: Queryable,
  input: {
    bankId: number;
    version: number;
    provenance: JsonObject;
    topics?: JsonObject;
    createdBy?: number | null;
  },
): Promise<number> {
  const row = await db
    .insertInto('nugget_bank_versions')
    .values({
      bank_id: input.bankId,
      version: input.version,
      provenance: jsonb(input.provenance),
      topics: jsonb(input.topics ?? {}),
      created_by: input.createdBy ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A bank version by id, or undefined. */
export async function getNuggetBankVersion(
  db: Queryable,
  id: number,
): Promise<NuggetBankVersion | undefined> {
  const row = await versionQuery(db).where('v.id', '=', id).executeTakeFirst();
  return row && toVersion(row as VersionRow);
}

/** A bank's version by number (the latest when `version` is undefined), or undefined. */
export async function findNuggetBankVersion(
  db: Queryable,
  bankId: number,
  version?: number,
): Promise<NuggetBankVersion | undefined> {
  let query = versionQuery(db).where('v.bank_id', '=', bankId);
  query =
    version === undefined
      ? query.orderBy('v.version', 'desc').limit(1)
      : query.where('v.version', '=', version);
  const row = await query.executeTakeFirst();
  return row && toVersion(row as VersionRow);
}

/** A bank's versions, oldest first. */
export async function listNuggetBankVersions(
  db: Queryable,
  bankId: number,
): Promise<NuggetBankVersion[]> {
  const rows = await versionQuery(db)
    .where('v.bank_id', '=', bankId)
    .orderBy('v.version')
    .execute();
  return rows.map((r) => toVersion(r as VersionRow));
}

/** Marks a version as used by an assessment: edits go to a new version from now on. */
export async function freezeNuggetBankVersion(db: Queryable, id: number): Promise<void> {
  await db.updateTable('nugget_bank_versions').set({ frozen: true }).where('id', '=', id).execute();
}

/** Stores nuggets of a version (in batches, inside one transaction). */
export async function insertNuggets(
  db: Queryable,
  versionId: number,
  nuggets: readonly NewNugget[],
): Promise<number> {
  return withTransaction(db, (trx) =>
    bulkInsert(trx, {
      table: 'nuggets',
      constant: { version_id: versionId },
      columns: [
        { name: 'topic_id', type: 'text', value: (n: NewNugget) => n.topicId },
        { name: 'position', type: 'int4', value: (n) => n.position },
        { name: 'text', type: 'text', value: (n) => n.text },
        { name: 'importance', type: 'text', value: (n) => n.importance },
        { name: 'origin', type: 'text', value: (n) => n.origin },
        { name: 'edited', type: 'bool', value: (n) => n.edited ?? false },
        { name: 'lineage', type: 'int8', value: (n) => n.lineage ?? null },
        { name: 'extra', type: 'jsonb', value: (n) => n.extra ?? {} },
        { name: 'history', type: 'jsonb', value: (n) => n.history ?? [] },
      ],
      rows: nuggets,
    }),
  );
}

function toNugget(row: Row<'nuggets'>): StoredNugget {
  return {
    id: row.id,
    versionId: row.version_id,
    topicId: row.topic_id,
    position: row.position,
    text: row.text,
    importance: row.importance,
    origin: row.origin,
    edited: row.edited,
    lineage: row.lineage === null ? null : Number(row.lineage),
    extra: row.extra,
    history: row.history as JsonValue[],
  };
}

/** The nuggets of a version by topic and position; optionally one topic's only. */
export async function listNuggets(
  db: Queryable,
  versionId: number,
  options: { topicId?: string } = {},
): Promise<StoredNugget[]> {
  let query = db.selectFrom('nuggets').selectAll().where('version_id', '=', versionId);
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  const rows = await query.orderBy('topic_id').orderBy('position').orderBy('id').execute();
  return rows.map(toNugget);
}

/** A nugget by id, or undefined. */
export async function getNugget(db: Queryable, id: number): Promise<StoredNugget | undefined> {
  const row = await db.selectFrom('nuggets').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toNugget(row);
}

/** Changes a nugget's text, importance, flags, position or history. */
export async function updateNugget(
  db: Queryable,
  id: number,
  fields: {
    text?: string;
    importance?: 'vital' | 'okay';
    edited?: boolean;
    position?: number;
    history?: JsonValue[];
  },
): Promise<void> {
  const set: Record<string, unknown> = {};
  if (fields.text !== undefined) set.text = fields.text;
  if (fields.importance !== undefined) set.importance = fields.importance;
  if (fields.edited !== undefined) set.edited = fields.edited;
  if (fields.position !== undefined) set.position = fields.position;
  if (fields.history !== undefined) set.history = jsonb(fields.history);
  if (Object.keys(set).length === 0) return;
  await db.updateTable('nuggets').set(set).where('id', '=', id).execute();
}

/** Deletes nuggets by id. */
export async function deleteNuggets(db: Queryable, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('nuggets')
    .where('id', 'in', [...ids])
    .execute();
}

// -------------------------------------------------------------------------- rubric sets

/** A stored rubric set with its counts. */
export interface RubricSet {
  id: number;
  collectionId: number;
  name: string;
  provenance: JsonObject;
  topics: JsonObject;
  createdBy: number | null;
  createdAt: Date;
  criteria: number;
  topicCount: number;
}

/** A stored rubric criterion. */
export interface StoredCriterion {
  id: number;
  topicId: string;
  position: number;
  criterion: string;
  weight: number;
  axis: string | null;
  extra: JsonObject;
}

/** A criterion to store. */
export interface NewCriterion {
  topicId: string;
  position: number;
  criterion: string;
  weight: number;
  axis: string | null;
  extra: JsonObject;
}

function rubricQuery(db: Queryable) {
  return db
    .selectFrom('rubric_sets as r')
    .selectAll('r')
    .select((eb) => [
      eb
        .selectFrom('rubric_criteria as c')
        .whereRef('c.rubric_set_id', '=', 'r.id')
        .select(sql<string | number>`count(*)`.as('n'))
        .as('criterion_count'),
      eb
        .selectFrom('rubric_criteria as c')
        .whereRef('c.rubric_set_id', '=', 'r.id')
        .select(sql<string | number>`count(distinct c.topic_id)`.as('n'))
        .as('topic_count'),
    ]);
}

function toRubricSet(
  row: Row<'rubric_sets'> & {
    criterion_count: string | number | null;
    topic_count: string | number | null;
  },
): RubricSet {
  return {
    id: row.id,
    collectionId: row.collection_id,
    name: row.name,
    provenance: row.provenance,
    topics: row.topics,
    createdBy: row.created_by,
    createdAt: row.created_at,
    criteria: Number(row.criterion_count ?? 0),
    topicCount: Number(row.topic_count ?? 0),
  };
}

/** Stores a rubric set with its criteria (one transaction); (collection, name) is unique. */
export async function createRubricSet(
  db: Queryable,
  input: {
    collectionId: number;
    name: string;
    provenance: JsonObject;
    topics: JsonObject;
    createdBy?: number | null;
    criteria: readonly NewCriterion[];
  },
): Promise<number> {
  return withTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('rubric_sets')
      .values({
        collection_id: input.collectionId,
        name: input.name,
        provenance: jsonb(input.provenance),
        topics: jsonb(input.topics),
        created_by: input.createdBy ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await bulkInsert(trx, {
      table: 'rubric_criteria',
      constant: { rubric_set_id: row.id },
      columns: [
        { name: 'topic_id', type: 'text', value: (c: NewCriterion) => c.topicId },
        { name: 'position', type: 'int4', value: (c) => c.position },
        { name: 'criterion', type: 'text', value: (c) => c.criterion },
        { name: 'weight', type: 'float8', value: (c) => c.weight },
        { name: 'axis', type: 'text', value: (c) => c.axis },
        { name: 'extra', type: 'jsonb', value: (c) => c.extra },
      ],
      rows: input.criteria,
    });
    return row.id;
  });
}

/** A rubric set by id, or undefined. */
export async function getRubricSet(db: Queryable, id: number): Promise<RubricSet | undefined> {
  const row = await rubricQuery(db).where('r.id', '=', id).executeTakeFirst();
  return row && toRubricSet(row);
}

/** A collection's rubric set by name, or undefined. */
export async function findRubricSet(
  db: Queryable,
  collectionId: number,
  name: string,
): Promise<RubricSet | undefined> {
  const row = await rubricQuery(db)
    .where('r.collection_id', '=', collectionId)
    .where('r.name', '=', name)
    .executeTakeFirst();
  return row && toRubricSet(row);
}

/** The rubric sets of a collection, by name. */
export async function listRubricSets(db: Queryable, collectionId: number): Promise<RubricSet[]> {
  const rows = await rubricQuery(db)
    .where('r.collection_id', '=', collectionId)
    .orderBy('r.name')
    .execute();
  return rows.map(toRubricSet);
}

/** The criteria of a rubric set by topic and position; optionally one topic's only. */
export async function listRubricCriteria(
  db: Queryable,
  rubricSetId: number,
  options: { topicId?: string } = {},
): Promise<StoredCriterion[]> {
  let query = db.selectFrom('rubric_criteria').selectAll().where('rubric_set_id', '=', rubricSetId);
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  const rows = await query.orderBy('topic_id').orderBy('position').execute();
  return rows.map((r) => ({
    id: r.id,
    topicId: r.topic_id,
    position: r.position,
    criterion: r.criterion,
    weight: Number(r.weight),
    axis: r.axis,
    extra: r.extra,
  }));
}

/** Deletes a rubric set with its criteria and assessment sets; false when none. */
export async function deleteRubricSet(db: Queryable, id: number): Promise<boolean> {
  const result = await db.deleteFrom('rubric_sets').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// ---------------------------------------------------------------------- assessment sets

/** A stored assessment set with its counts (of current judgments). */
export interface AssessmentSet {
  id: number;
  collectionId: number;
  kind: AssessmentKind;
  name: string;
  responseSetId: number;
  nuggetVersionId: number | null;
  rubricSetId: number | null;
  assessor: Assessor;
  mode: AssessmentMode | null;
  referenceSetId: number | null;
  settings: JsonObject;
  createdBy: number | null;
  createdAt: Date;
  /** Items with a label, and items the LLM failed on. */
  judged: number;
  failed: number;
}

/** Fields of a new assessment set. */
export interface NewAssessmentSet {
  collectionId: number;
  kind: AssessmentKind;
  name: string;
  responseSetId: number;
  nuggetVersionId?: number | null;
  rubricSetId?: number | null;
  assessor: Assessor;
  mode?: AssessmentMode | null;
  referenceSetId?: number | null;
  settings?: JsonObject;
  createdBy?: number | null;
}

/** A judgment of one item of one answer. */
export interface AssessmentRow {
  topicId: string;
  system: string;
  item: string;
  label: string | null;
  rationale?: string | null;
  error?: string | null;
  raw?: string | null;
  userId?: number | null;
  seconds?: number | null;
}

/** A stored judgment (people's: one revision). */
export interface StoredAssessment extends Required<AssessmentRow> {
  id: number;
  createdAt: Date;
}

function assessmentSetQuery(db: Queryable) {
  return db
    .selectFrom('rag_assessment_sets as s')
    .selectAll('s')
    .select([
      sql<
        string | number
      >`(select count(*) from (select distinct on (a.topic_id, a.system, a.item) a.label from rag_assessments a where a.set_id = s.id order by a.topic_id, a.system, a.item, a.id desc) c where c.label is not null)`.as(
        'judged',
      ),
      sql<
        string | number
      >`(select count(*) from (select distinct on (a.topic_id, a.system, a.item) a.error from rag_assessments a where a.set_id = s.id order by a.topic_id, a.system, a.item, a.id desc) c where c.error is not null)`.as(
        'failed',
      ),
    ]);
}

function toAssessmentSet(
  row: Row<'rag_assessment_sets'> & { judged: string | number; failed: string | number },
): AssessmentSet {
  return {
    id: row.id,
    collectionId: row.collection_id,
    kind: row.kind,
    name: row.name,
    responseSetId: row.response_set_id,
    nuggetVersionId: row.nugget_version_id === null ? null : Number(row.nugget_version_id),
    rubricSetId: row.rubric_set_id === null ? null : Number(row.rubric_set_id),
    assessor: row.assessor,
    mode: row.mode,
    referenceSetId: row.reference_set_id === null ? null : Number(row.reference_set_id),
    settings: row.settings,
    createdBy: row.created_by,
    createdAt: row.created_at,
    judged: Number(row.judged),
    failed: Number(row.failed),
  };
}

/** Creates an empty assessment set; (collection, kind, name) is unique. */
export async function createAssessmentSet(db: Queryable, input: NewAssessmentSet): Promise<number> {
  const row = await db
    .insertInto('rag_assessment_sets')
    .values({
      collection_id: input.collectionId,
      kind: input.kind,
      name: input.name,
      response_set_id: input.responseSetId,
      nugget_version_id: input.nuggetVersionId ?? null,
      rubric_set_id: input.rubricSetId ?? null,
      assessor: input.assessor,
      mode: input.mode ?? null,
      reference_set_id: input.referenceSetId ?? null,
      settings: jsonb(input.settings ?? {}),
      created_by: input.createdBy ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** An assessment set by id, or undefined. */
export async function getAssessmentSet(
  db: Queryable,
  id: number,
): Promise<AssessmentSet | undefined> {
  const row = await assessmentSetQuery(db).where('s.id', '=', id).executeTakeFirst();
  return row && toAssessmentSet(row);
}

/** A collection's assessment set of a kind by name, or undefined. */
export async function findAssessmentSet(
  db: Queryable,
  collectionId: number,
  kind: AssessmentKind,
  name: string,
): Promise<AssessmentSet | undefined> {
  const row = await assessmentSetQuery(db)
    .where('s.collection_id', '=', collectionId)
    .where('s.kind', '=', kind)
    .where('s.name', '=', name)
    .executeTakeFirst();
  return row && toAssessmentSet(row);
}

/** Assessment sets, oldest first: a collection's, optionally of one kind or response set. */
export async function listAssessmentSets(
  db: Queryable,
  filter: { collectionId?: number; kind?: AssessmentKind; nuggetVersionIds?: number[] },
): Promise<AssessmentSet[]> {
  let query = assessmentSetQuery(db);
  if (filter.collectionId !== undefined)
    query = query.where('s.collection_id', '=', filter.collectionId);
  if (filter.kind !== undefined) query = query.where('s.kind', '=', filter.kind);
  if (filter.nuggetVersionIds !== undefined) {
    if (filter.nuggetVersionIds.length === 0) return [];
    query = query.where('s.nugget_version_id', 'in', filter.nuggetVersionIds);
  }
  const rows = await query.orderBy('s.id').execute();
  return rows.map(toAssessmentSet);
}

/** Deletes an assessment set with its judgments; false when none. */
export async function deleteAssessmentSet(db: Queryable, id: number): Promise<boolean> {
  const result = await db.deleteFrom('rag_assessment_sets').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Changes an assessment set's settings (e.g. the calls a rerun paid). */
export async function updateAssessmentSetSettings(
  db: Queryable,
  id: number,
  settings: JsonObject,
): Promise<void> {
  await db
    .updateTable('rag_assessment_sets')
    .set({ settings: jsonb(settings) })
    .where('id', '=', id)
    .execute();
}

const ASSESSMENT_COLUMNS = [
  { name: 'topic_id', type: 'text', value: (r: AssessmentRow) => r.topicId },
  { name: 'system', type: 'text', value: (r: AssessmentRow) => r.system },
  { name: 'item', type: 'text', value: (r: AssessmentRow) => r.item },
  { name: 'label', type: 'text', value: (r: AssessmentRow) => r.label },
  { name: 'rationale', type: 'text', value: (r: AssessmentRow) => r.rationale ?? null },
  { name: 'error', type: 'text', value: (r: AssessmentRow) => r.error ?? null },
  { name: 'raw', type: 'text', value: (r: AssessmentRow) => r.raw ?? null },
  { name: 'user_id', type: 'int8', value: (r: AssessmentRow) => r.userId ?? null },
  { name: 'seconds', type: 'float8', value: (r: AssessmentRow) => r.seconds ?? null },
] as const;

/**
 * Replaces every judgment of a set by `rows` (an LLM or imported set written whole), in
 * one transaction.
 */
export async function replaceAssessments(
  db: Queryable,
  setId: number,
  rows: readonly AssessmentRow[],
): Promise<number> {
  return withTransaction(db, async (trx) => {
    await trx.deleteFrom('rag_assessments').where('set_id', '=', setId).execute();
    return bulkInsert(trx, {
      table: 'rag_assessments',
      constant: { set_id: setId },
      columns: ASSESSMENT_COLUMNS,
      rows,
    });
  });
}

/** Appends one revision of a person's judgment. */
export async function appendAssessment(
  db: Queryable,
  setId: number,
  row: AssessmentRow,
): Promise<StoredAssessment> {
  const stored = await db
    .insertInto('rag_assessments')
    .values({
      set_id: setId,
      topic_id: row.topicId,
      system: row.system,
      item: row.item,
      label: row.label,
      rationale: row.rationale ?? null,
      error: null,
      raw: null,
      user_id: row.userId ?? null,
      seconds: row.seconds ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAssessment(stored);
}

function toAssessment(r: Row<'rag_assessments'>): StoredAssessment {
  return {
    id: r.id,
    topicId: r.topic_id,
    system: r.system,
    item: r.item,
    label: r.label,
    rationale: r.rationale,
    error: r.error,
    raw: r.raw,
    userId: r.user_id === null ? null : Number(r.user_id),
    seconds: r.seconds === null ? null : Number(r.seconds),
    createdAt: r.created_at,
  };
}

/**
 * The current judgment of every item of a set (its latest row), by topic, system and item;
 * items cleared by an undo (no label, no error) are left out. Optionally one topic's only.
 */
export async function listCurrentAssessments(
  db: Queryable,
  setId: number,
  options: { topicId?: string } = {},
): Promise<StoredAssessment[]> {
  let query = db
    .selectFrom('rag_assessments')
    .selectAll()
    .distinctOn(['topic_id', 'system', 'item'])
    .where('set_id', '=', setId);
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  const rows = await query
    .orderBy('topic_id')
    .orderBy('system')
    .orderBy('item')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toAssessment).filter((r) => r.label !== null || r.error !== null);
}

/** Every revision of one item of a set, oldest first. */
export async function listItemRevisions(
  db: Queryable,
  setId: number,
  key: { topicId: string; system: string; item: string },
): Promise<StoredAssessment[]> {
  const rows = await db
    .selectFrom('rag_assessments')
    .selectAll()
    .where('set_id', '=', setId)
    .where('topic_id', '=', key.topicId)
    .where('system', '=', key.system)
    .where('item', '=', key.item)
    .orderBy('id')
    .execute();
  return rows.map(toAssessment);
}

/** Every revision of a set (optionally one topic's), oldest first. */
export async function listAssessmentRevisions(
  db: Queryable,
  setId: number,
  options: { topicId?: string } = {},
): Promise<StoredAssessment[]> {
  let query = db.selectFrom('rag_assessments').selectAll().where('set_id', '=', setId);
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  const rows = await query.orderBy('id').execute();
  return rows.map(toAssessment);
}

/** The items a user's latest revisions in a set are of, newest first (at most `limit`). */
export async function listUserAssessedItems(
  db: Queryable,
  setId: number,
  userId: number,
  limit: number,
): Promise<Array<{ topicId: string; system: string; item: string }>> {
  const rows = await db
    .selectFrom('rag_assessments')
    .select(['topic_id', 'system', 'item'])
    .where('set_id', '=', setId)
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ topicId: r.topic_id, system: r.system, item: r.item }));
}
