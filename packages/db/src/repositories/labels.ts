import { sql } from 'kysely';
import type { Queryable } from '../bulk.js';
import type { JsonObject, LabelSetKind, Row } from '../schema.js';
import { whereIdOrName, type IdOrName } from '../id-or-name.js';
import { seek, type Seek } from '../keyset.js';

/** A label set: one source of relevance labels on one grade scale. */
export interface LabelSet {
  id: number;
  collectionId: number;
  name: string;
  kind: LabelSetKind;
  scaleMin: number;
  scaleMax: number;
  /** Judge id, model, prompt hash, campaign settings, source file … */
  config: JsonObject;
  createdAt: Date;
}

/** A label set with how many labels and labelled topics it has. */
export interface LabelSetSummary extends LabelSet {
  labelCount: number;
  topicCount: number;
}

/** Fields of a new label set. */
export interface NewLabelSet {
  collectionId: number;
  name: string;
  kind: LabelSetKind;
  scaleMin: number;
  scaleMax: number;
  config?: JsonObject;
}

/** A label to store. */
export interface LabelInput {
  topicId: string;
  docId: string;
  grade: number;
  /** Who produced it: `user:<id>` for people, the model name for LLM judges. */
  producedBy?: string | null;
  rationale?: string | null;
}

/** A stored label: the current grade of a (topic, document) in a label set. */
export interface Label {
  labelSetId: number;
  topicId: string;
  docId: string;
  grade: number;
  producedBy: string | null;
  rationale: string | null;
  createdAt: Date;
}

/** Topic → docno → grade: the qrels of a label set. */
export type LabelGrades = Map<string, Map<string, number>>;

export function toLabelSet(row: Row<'label_sets'>): LabelSet {
  return {
    id: row.id,
    collectionId: row.collection_id,
    name: row.name,
    kind: row.kind,
    scaleMin: row.scale_min,
    scaleMax: row.scale_max,
    config: row.config,
    createdAt: row.created_at,
  };
}

export function toLabel(row: Row<'labels'>): Label {
  return {
    labelSetId: row.label_set_id,
    topicId: row.topic_id,
    docId: row.doc_id,
    grade: row.grade,
    producedBy: row.produced_by,
    rationale: row.rationale,
    createdAt: row.created_at,
  };
}

/** The `produced_by` value of labels written by a person. */
export function userProducer(userId: number): string {
  return `user:${userId}`;
}

/** Creates a label set; the name is unique within its collection. */
export async function createLabelSet(db: Queryable, input: NewLabelSet): Promise<LabelSet> {
  const row = await db
    .insertInto('label_sets')
    .values({
      collection_id: input.collectionId,
      name: input.name,
      kind: input.kind,
      scale_min: input.scaleMin,
      scale_max: input.scaleMax,
      config: input.config ?? {},
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toLabelSet(row);
}

/**
 * The label sets of a collection with their label and topic counts: stored ones, else
 * (sets written label by label) counted from the labels of those sets only.
 */
function labelSetSummaries(db: Queryable, collectionId: number) {
  return db
    .selectFrom('label_sets as s')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('labels as l')
          .innerJoin('label_sets as owner', 'owner.id', 'l.label_set_id')
          .where('owner.collection_id', '=', collectionId)
          .where('owner.label_count', 'is', null)
          .groupBy('l.label_set_id')
          .select((inner) => [
            'l.label_set_id',
            inner.fn.countAll<number>().as('counted_labels'),
            sql<number>`count(distinct l.topic_id)`.as('counted_topics'),
          ])
          .as('counts'),
      (join) => join.onRef('counts.label_set_id', '=', 's.id'),
    )
    .selectAll('s')
    .select((eb) => [
      eb.fn.coalesce('s.label_count', 'counts.counted_labels').as('label_count'),
      eb.fn.coalesce('s.topic_count', 'counts.counted_topics').as('topic_count'),
    ])
    .where('s.collection_id', '=', collectionId);
}

function toLabelSetSummary(
  row: Row<'label_sets'> & { label_count: number | null; topic_count: number | null },
): LabelSetSummary {
  return {
    ...toLabelSet(row),
    labelCount: Number(row.label_count ?? 0),
    topicCount: Number(row.topic_count ?? 0),
  };
}

/**
 * A collection's label sets by (name, id), with label and topic counts; given a page, those
 * after its key (name, id) and at most limit + 1 of them.
 */
export async function listLabelSets(
  db: Queryable,
  collectionId: number,
  page?: Seek,
): Promise<LabelSetSummary[]> {
  const keys = [sql.ref('s.name'), sql.ref('s.id')];
  const rows = await seek(labelSetSummaries(db, collectionId), keys, page).execute();
  return rows.map(toLabelSetSummary);
}

/**
 * The label set of a collection named by `ref`, in one query: the set whose id is `ref.id`
 * when there is one, else the set called `ref.name`.
 */
export async function findLabelSet(
  db: Queryable,
  collectionId: number,
  ref: IdOrName,
): Promise<LabelSet | undefined> {
  const query = db
    .selectFrom('label_sets as s')
    .selectAll('s')
    .where('s.collection_id', '=', collectionId);
  const row = await whereIdOrName(query, 's', ref).executeTakeFirst();
  return row && toLabelSet(row);
}

/** A label set with its label and topic counts (stored, else counted from its labels). */
export async function getLabelSetSummary(
  db: Queryable,
  id: number,
): Promise<LabelSetSummary | undefined> {
  // coalesce evaluates a count only when the stored one is null.
  const row = await db
    .selectFrom('label_sets as s')
    .selectAll('s')
    .select((eb) => [
      eb.fn
        .coalesce(
          's.label_count',
          eb
            .selectFrom('labels as l')
            .whereRef('l.label_set_id', '=', 's.id')
            .select(eb.fn.countAll<number>().as('n')),
        )
        .as('label_count'),
      eb.fn
        .coalesce(
          's.topic_count',
          eb
            .selectFrom('labels as l')
            .whereRef('l.label_set_id', '=', 's.id')
            .select(sql<number>`count(distinct l.topic_id)`.as('n')),
        )
        .as('topic_count'),
    ])
    .where('s.id', '=', id)
    .executeTakeFirst();
  return row && toLabelSetSummary(row);
}

/** The label set with this id, if any. */
export async function getLabelSet(db: Queryable, id: number): Promise<LabelSet | undefined> {
  const row = await db.selectFrom('label_sets').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toLabelSet(row);
}

/** The label set of a collection with this name, if any. */
export async function findLabelSetByName(
  db: Queryable,
  collectionId: number,
  name: string,
): Promise<LabelSet | undefined> {
  const row = await db
    .selectFrom('label_sets')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('name', '=', name)
    .executeTakeFirst();
  return row && toLabelSet(row);
}

/** Deletes a label set with its labels and revisions; false if absent. */
export async function deleteLabelSet(db: Queryable, id: number): Promise<boolean> {
  const result = await db.deleteFrom('label_sets').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * A label set's labels, topics and docnos in byte order; optionally one topic only. Given a
 * page, those after its key (topic, docno) and at most limit + 1 of them.
 */
export async function listLabels(
  db: Queryable,
  labelSetId: number,
  options: { topicId?: string; page?: Seek } = {},
): Promise<Label[]> {
  let query = db.selectFrom('labels').selectAll().where('label_set_id', '=', labelSetId);
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  const keys = [sql`topic_id collate "C"`, sql`doc_id collate "C"`];
  return (await seek(query, keys, options.page).execute()).map(toLabel);
}

/** A label set as qrels: topic → docno → grade; optionally only some topics. */
export async function getLabelGrades(
  db: Queryable,
  labelSetId: number,
  options: { topicIds?: readonly string[] } = {},
): Promise<LabelGrades> {
  let query = db
    .selectFrom('labels')
    .select(['topic_id', 'doc_id', 'grade'])
    .where('label_set_id', '=', labelSetId);
  if (options.topicIds) {
    query = query.where(sql<boolean>`topic_id = any(${[...options.topicIds]}::text[])`);
  }
  const grades: LabelGrades = new Map();
  for (const row of await query.execute()) {
    let docs = grades.get(row.topic_id);
    if (!docs) grades.set(row.topic_id, (docs = new Map()));
    docs.set(row.doc_id, row.grade);
  }
  return grades;
}
