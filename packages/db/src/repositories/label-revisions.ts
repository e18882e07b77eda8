// The one writer of the `label_revisions` table, the append-only history of human labels.
// Every insert is written here, either as a function or as a SQL piece that a larger
// statement of another repository embeds (an annotator's save), so that the columns a
// revision gets have one statement. Revisions are never updated or deleted one by one:
// undo is a new revision, and deleting a label set (or its collection) removes its
// revisions by foreign-key cascade.
import { sql, type RawBuilder } from 'kysely';
import { withTransaction, type Queryable } from '../bulk.js';
import type { Row } from '../schema.js';
import { setLabel } from './label-writer.js';
import { userProducer } from './labels.js';

/** One entry of the append-only history of a human label (grade null = cleared). */
export interface LabelRevision {
  id: number;
  labelSetId: number;
  topicId: string;
  docId: string;
  grade: number | null;
  userId: number;
  rationale: string | null;
  createdAt: Date;
}

/** A human label change to record. */
export interface NewLabelRevision {
  labelSetId: number;
  topicId: string;
  docId: string;
  /** The new grade, or null to clear the label. */
  grade: number | null;
  userId: number;
  rationale?: string | null;
}

function toLabelRevision(row: Row<'label_revisions'>): LabelRevision {
  return {
    id: row.id,
    labelSetId: row.label_set_id,
    topicId: row.topic_id,
    docId: row.doc_id,
    grade: row.grade,
    userId: row.user_id,
    rationale: row.rationale,
    createdAt: row.created_at,
  };
}

/** Inserts one revision, returning its row. */
function insertRevision(db: Queryable, input: NewLabelRevision) {
  return db
    .insertInto('label_revisions')
    .values({
      label_set_id: input.labelSetId,
      topic_id: input.topicId,
      doc_id: input.docId,
      grade: input.grade,
      user_id: input.userId,
      rationale: input.rationale ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Appends a revision of one annotator's label (no derived table touched). */
export async function appendLabelRevision(db: Queryable, input: NewLabelRevision): Promise<void> {
  await insertRevision(db, input);
}

/**
 * The statement that appends one revision per row of the relation `revised` (`label_set_id`,
 * `topic_id`, `doc_id`, `grade`, `user_id`; no rationale) of the enclosing statement,
 * returning 1 per revision. An annotator's save embeds it so the whole save is one statement.
 */
export function insertRevisedLabels(): RawBuilder<unknown> {
  return sql`
    insert into label_revisions (label_set_id, topic_id, doc_id, grade, user_id)
    select r.label_set_id, r.topic_id, r.doc_id, r.grade, r.user_id from revised r
    returning 1`;
}

/**
 * Records a human label change: appends a revision and makes `labels` show it (upsert,
 * or delete when the grade is null), in one transaction. Changes to the same item are
 * serialised, so `labels` always matches the item's latest revision. Undo is recording
 * the earlier grade again.
 */
export async function recordLabelRevision(
  db: Queryable,
  input: NewLabelRevision,
): Promise<LabelRevision> {
  return withTransaction(db, async (trx) => {
    const itemKey = `assay.label:${JSON.stringify([input.labelSetId, input.topicId, input.docId])}`;
    await sql`select pg_advisory_xact_lock(hashtextextended(${itemKey}, 0))`.execute(trx);
    const row = await insertRevision(trx, input);
    await setLabel(trx, {
      labelSetId: input.labelSetId,
      topicId: input.topicId,
      docId: input.docId,
      grade: input.grade,
      producedBy: userProducer(input.userId),
      rationale: input.rationale ?? null,
      createdAt: row.created_at,
    });
    return toLabelRevision(row);
  });
}

/** The revisions of a label set, oldest first; optionally of one topic or one item. */
export async function listLabelRevisions(
  db: Queryable,
  labelSetId: number,
  options: { topicId?: string; docId?: string } = {},
): Promise<LabelRevision[]> {
  let query = db
    .selectFrom('label_revisions')
    .selectAll()
    .where('label_set_id', '=', labelSetId)
    .orderBy('id');
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  if (options.docId !== undefined) query = query.where('doc_id', '=', options.docId);
  return (await query.execute()).map(toLabelRevision);
}
