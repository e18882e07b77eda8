// The one writer of the `labels` table. Every insert, update and delete of a label is
// written here, either as a function or as a SQL piece that a larger statement of another
// repository embeds (a judge task's completion, an annotator's save), so that the columns
// a label gets, its producer and the campaign majority rule each have one statement.
// Deleting a label set (or its collection) removes its labels by foreign-key cascade.
import { sql, type RawBuilder } from 'kysely';
import { bulkInsert, withTransaction, type Queryable } from '../bulk.js';
import type { LabelInput } from './labels.js';

/**
 * Bulk-inserts labels in one transaction (or in `db` if it is one). A grade outside the
 * set's scale or, unless `replace` is set, an already labelled (topic, docno) fails the
 * whole call. With `replace`, existing labels take the new grade, producer and rationale.
 * The set's label and topic counts are stored afterwards (counted once per write, through
 * the set's index, never on a read).
 */
export async function insertLabels(
  db: Queryable,
  labelSetId: number,
  labels: readonly LabelInput[],
  options: { replace?: boolean; batchSize?: number } = {},
): Promise<number> {
  const { replace = false, ...batching } = options;
  return withTransaction(db, async (trx) => {
    const written = await bulkInsert(trx, {
      table: 'labels',
      constant: { label_set_id: labelSetId },
      columns: [
        { name: 'topic_id', type: 'text', value: (l: LabelInput) => l.topicId },
        { name: 'doc_id', type: 'text', value: (l) => l.docId },
        { name: 'grade', type: 'int4', value: (l) => l.grade },
        { name: 'produced_by', type: 'text', value: (l) => l.producedBy ?? null },
        { name: 'rationale', type: 'text', value: (l) => l.rationale ?? null },
      ],
      rows: labels,
      ...(replace
        ? {
            suffix:
              'on conflict (label_set_id, topic_id, doc_id) do update set grade = excluded.grade, ' +
              'produced_by = excluded.produced_by, rationale = excluded.rationale, ' +
              'created_at = excluded.created_at',
          }
        : {}),
      ...batching,
    });
    await sql`
      update label_sets set
        label_count = (select count(*) from labels where label_set_id = ${labelSetId}),
        topic_count = (select count(distinct topic_id) from labels where label_set_id = ${labelSetId})
      where id = ${labelSetId}`.execute(trx);
    return written;
  });
}

/**
 * Makes a label set's counts "counted on read" before one of its labels is set or cleared
 * by itself. Sets written label by label (campaigns, judge jobs) never store counts, so for
 * them this matches no row and locks nothing; a set written whole and edited afterwards is
 * counted on read from then on.
 */
export async function forgetLabelSetCounts(db: Queryable, labelSetId: number): Promise<void> {
  await db
    .updateTable('label_sets')
    .set({ label_count: null, topic_count: null })
    .where('id', '=', labelSetId)
    .where('label_count', 'is not', null)
    .execute();
}

/** One label to set (a grade) or remove (null). */
export interface LabelChange {
  labelSetId: number;
  topicId: string;
  docId: string;
  grade: number | null;
  producedBy: string | null;
  /** Set with the label (also on an existing one); left as it was when undefined. */
  rationale?: string | null;
  /** When the label was made (default: the transaction's time). */
  createdAt?: Date;
}

/**
 * Sets (or, with a null grade, removes) the label of one item in a label set, after making
 * the set's counts "counted on read" ({@link forgetLabelSetCounts}).
 */
export async function setLabel(db: Queryable, change: LabelChange): Promise<void> {
  const { labelSetId, topicId, docId } = change;
  await forgetLabelSetCounts(db, labelSetId);
  if (change.grade === null) {
    await db
      .deleteFrom('labels')
      .where('label_set_id', '=', labelSetId)
      .where('topic_id', '=', topicId)
      .where('doc_id', '=', docId)
      .execute();
    return;
  }
  const values = {
    grade: change.grade,
    produced_by: change.producedBy,
    ...(change.rationale === undefined ? {} : { rationale: change.rationale }),
    created_at: change.createdAt ?? sql<Date>`now()`,
  };
  await db
    .insertInto('labels')
    .values({ label_set_id: labelSetId, topic_id: topicId, doc_id: docId, ...values })
    .onConflict((oc) => oc.columns(['label_set_id', 'topic_id', 'doc_id']).doUpdateSet(values))
    .execute();
}

/**
 * The statement that stores judged labels: each row of `rows` (columns job_id, topic_id,
 * doc_id, grade, produced_by, rationale) becomes a label of its judge job's label set. A
 * judge job's label set never stores its counts (counted on read, see migration 0009), so
 * the label set's row is not touched. Run it alone or embed it in a larger statement.
 */
export function insertJudgedLabels(rows: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    insert into labels (label_set_id, topic_id, doc_id, grade, produced_by, rationale)
    select j.label_set_id, r.topic_id, r.doc_id, r.grade, r.produced_by, r.rationale
      from (${rows}) as r
      join judge_jobs j on j.id = r.job_id`;
}

/**
 * The campaign majority rule, as a query over the relation `ballot` of the enclosing
 * statement (one row per annotator of an item, column `grade`, null when they have not
 * labelled it): the most frequent grade, ties to the lower grade, with the number of
 * annotators who labelled it. No row when nobody has.
 */
const MAJORITY = sql`
  select b.grade, (select count(grade) from ballot)::int as voters from ballot b
  where b.grade is not null
  group by b.grade
  order by count(*) desc, b.grade asc
  limit 1`;

/**
 * The campaign label of an item, as a query over the relations `item` (one row: columns
 * label_set_id, topic_id, doc_id, adjudicated_grade, adjudicated_by) and `ballot` (see
 * {@link MAJORITY}) of the enclosing statement: the adjudicated grade (produced by
 * `user:<admin>`), else the majority grade (produced by `annotator` when one person labelled
 * the item, else `majority`). No row when the item is neither adjudicated nor labelled.
 */
const CAMPAIGN_LABEL = sql`
  select item.label_set_id, item.topic_id, item.doc_id,
         coalesce(item.adjudicated_grade, majority.grade) as grade,
         case
           when item.adjudicated_grade is not null then 'user:' || coalesce(item.adjudicated_by, 0)
           when majority.voters = 1 then 'annotator'
           else 'majority'
         end as produced_by
  from item left join (${MAJORITY}) as majority on true
  where coalesce(item.adjudicated_grade, majority.grade) is not null`;

/**
 * The statement that upserts an item's campaign label (see {@link CAMPAIGN_LABEL}) from the
 * relations `item` and `ballot` of the enclosing statement, returning the grade stored;
 * only when `when` (a condition of the enclosing statement) holds, if given. An
 * annotator's save embeds it so the whole save is one statement.
 */
export function upsertCampaignLabel(when: RawBuilder<unknown> = sql`true`): RawBuilder<unknown> {
  return sql`
    insert into labels (label_set_id, topic_id, doc_id, grade, produced_by, created_at)
    select l.label_set_id, l.topic_id, l.doc_id, l.grade, l.produced_by, now()
    from (${CAMPAIGN_LABEL}) as l
    where ${when}
    on conflict (label_set_id, topic_id, doc_id) do update
      set grade = excluded.grade, produced_by = excluded.produced_by, created_at = now()
    returning grade`;
}

/**
 * Recomputes a campaign item's label from what is stored now (its adjudication and every
 * annotator's grade; see {@link CAMPAIGN_LABEL}): upserts it, or removes it when the item
 * is neither adjudicated nor labelled. Returns the label's grade (null when removed). Call
 * it in the transaction that changed the item or an assignment of it, holding the item's
 * row lock as every writer of an item does.
 */
export async function refreshCampaignLabel(
  db: Queryable,
  input: { labelSetId: number; itemId: number },
): Promise<number | null> {
  await forgetLabelSetCounts(db, input.labelSetId);
  const result = await sql<{ grade: number | null }>`
    with item as (
      select ${input.labelSetId}::int8 as label_set_id, i.topic_id, i.doc_id,
             i.adjudicated_grade, i.adjudicated_by
      from campaign_items i where i.id = ${input.itemId}::int8
    ),
    ballot as (
      select a.grade from campaign_assignments a where a.item_id = ${input.itemId}::int8
    ),
    written as (${upsertCampaignLabel()}),
    removed as (
      delete from labels l using item
      where l.label_set_id = item.label_set_id and l.topic_id = item.topic_id
        and l.doc_id = item.doc_id
        and not exists (${CAMPAIGN_LABEL})
    )
    select (select grade from written) as grade`.execute(db);
  const grade = result.rows[0]?.grade;
  return grade === undefined || grade === null ? null : Number(grade);
}
