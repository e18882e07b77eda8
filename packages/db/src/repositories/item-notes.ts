import { sql } from 'kysely';
import type { Queryable } from '../bulk.js';
import type { ItemFlag } from '../schema.js';

/** An annotator's note and/or flag on one campaign item. */
export interface ItemNote {
  campaignId: number;
  itemId: number;
  userId: number;
  flag: ItemFlag | null;
  note: string;
  updatedAt: Date;
}

/** A note with who wrote it and which (topic, document) it is about, for the admin. */
export interface CampaignItemNote extends ItemNote {
  userName: string;
  topicId: string;
  docId: string;
}

/**
 * Stores an annotator's note and flag on an item (replacing theirs); with no flag and an
 * empty note, removes it. The caller checks the item is theirs.
 */
export async function setItemNote(
  db: Queryable,
  input: {
    campaignId: number;
    itemId: number;
    userId: number;
    flag: ItemFlag | null;
    note: string;
  },
): Promise<ItemNote | undefined> {
  if (input.flag === null && input.note === '') {
    await db
      .deleteFrom('item_notes')
      .where('item_id', '=', input.itemId)
      .where('user_id', '=', input.userId)
      .execute();
    return undefined;
  }
  const row = await db
    .insertInto('item_notes')
    .values({
      campaign_id: input.campaignId,
      item_id: input.itemId,
      user_id: input.userId,
      flag: input.flag,
      note: input.note,
    })
    .onConflict((oc) =>
      oc.columns(['item_id', 'user_id']).doUpdateSet({
        flag: input.flag,
        note: input.note,
        updated_at: sql<Date>`now()`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  return {
    campaignId: row.campaign_id,
    itemId: row.item_id,
    userId: row.user_id,
    flag: row.flag,
    note: row.note,
    updatedAt: row.updated_at,
  };
}

/** One annotator's note on an item, if any. */
export async function getItemNote(
  db: Queryable,
  itemId: number,
  userId: number,
): Promise<ItemNote | undefined> {
  const row = await db
    .selectFrom('item_notes')
    .selectAll()
    .where('item_id', '=', itemId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return (
    row && {
      campaignId: row.campaign_id,
      itemId: row.item_id,
      userId: row.user_id,
      flag: row.flag,
      note: row.note,
      updatedAt: row.updated_at,
    }
  );
}

/** Every note of a campaign, newest first, with its author's name and the item's pair. */
export async function listCampaignItemNotes(
  db: Queryable,
  campaignId: number,
): Promise<CampaignItemNote[]> {
  const rows = await db
    .selectFrom('item_notes as n')
    .innerJoin('campaign_items as i', 'i.id', 'n.item_id')
    .innerJoin('users as u', 'u.id', 'n.user_id')
    .select([
      'n.campaign_id',
      'n.item_id',
      'n.user_id',
      'n.flag',
      'n.note',
      'n.updated_at',
      'u.name',
      'i.topic_id',
      'i.doc_id',
    ])
    .where('n.campaign_id', '=', campaignId)
    .orderBy('n.updated_at', 'desc')
    .orderBy('n.item_id', 'desc')
    .orderBy('n.user_id')
    .execute();
  return rows.map((r) => ({
    campaignId: r.campaign_id,
    itemId: r.item_id,
    userId: r.user_id,
    flag: r.flag,
    note: r.note,
    updatedAt: r.updated_at,
    userName: r.name,
    topicId: r.topic_id,
    docId: r.doc_id,
  }));
}
