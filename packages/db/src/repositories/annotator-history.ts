import { sql } from 'kysely';
import type { Queryable } from '../bulk.js';
import { seek, type Seek } from '../keyset.js';
import type { ItemFlag } from '../schema.js';

/** One item an annotator has labelled, as their history lists it. */
export interface LabelledItem {
  itemId: number;
  topicId: string;
  query: string;
  docId: string;
  grade: number;
  seconds: number;
  labelledAt: Date;
  /** The sort key of the row (its time to the microsecond, as text), for paging. */
  key: string;
  flag: ItemFlag | null;
  note: string | null;
}

/** When an assignment last changed, to the microsecond, as text that sorts as time does. */
const changedAt = sql<string>`to_char(a.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

/**
 * The items one annotator has labelled in a campaign, most recently changed first; given
 * a page, those after its key (time, item id) and at most limit + 1 of them. Only their own
 * grade is read: no other person's or label set's.
 */
export async function listLabelledItems(
  db: Queryable,
  campaignId: number,
  userId: number,
  page?: Seek,
): Promise<LabelledItem[]> {
  const query = db
    .selectFrom('campaign_assignments as a')
    .innerJoin('campaign_items as i', 'i.id', 'a.item_id')
    .innerJoin('campaigns as c', 'c.id', 'a.campaign_id')
    .leftJoin('topics as t', (join) =>
      join.onRef('t.collection_id', '=', 'c.collection_id').onRef('t.topic_id', '=', 'i.topic_id'),
    )
    .leftJoin('item_notes as n', (join) =>
      join.onRef('n.item_id', '=', 'a.item_id').onRef('n.user_id', '=', 'a.user_id'),
    )
    .select([
      'a.item_id',
      'i.topic_id',
      't.query',
      'i.doc_id',
      'a.grade',
      'a.seconds',
      'a.updated_at',
      changedAt.as('key'),
      'n.flag',
      'n.note',
    ])
    .where('a.campaign_id', '=', campaignId)
    .where('a.user_id', '=', userId)
    .where('a.grade', 'is not', null);
  const rows = await seek(query, [changedAt, sql.ref('a.item_id')], page, 'desc').execute();
  return rows.map((r) => ({
    itemId: r.item_id,
    topicId: r.topic_id,
    query: r.query ?? '',
    docId: r.doc_id,
    grade: r.grade as number,
    seconds: Number(r.seconds),
    labelledAt: r.updated_at,
    key: r.key,
    flag: r.flag ?? null,
    note: r.note ?? null,
  }));
}
