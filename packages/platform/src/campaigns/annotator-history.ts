// What an annotator did in a campaign, to go back to: the items they labelled (newest
// first; any of them opens again through annotationItem and is relabelled by the same
// save as a first label, so each change is a label revision), and their notes and flags
// on items, which the campaign's admins read.
import {
  campaignProgress,
  getCampaignAssignment,
  getCampaignItem,
  getItemNote,
  listCampaignItemNotes,
  listLabelledItems,
  setItemNote,
  type CampaignItem,
  type ItemFlag,
  type Queryable,
  type User,
} from '@assay/db';
import { requireCampaign } from './campaigns.js';
import { PlatformError } from '../core/errors.js';
import { pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';

/** The flags an annotator can put on an item. */
export const ITEM_FLAGS: readonly ItemFlag[] = ['broken', 'unsure'];
/** The longest note, in characters. */
export const MAX_NOTE_LENGTH = 5000;

/** One item of an annotator's history: their own grade of it, and when they gave it. */
export interface HistoryItem {
  item: number;
  topic: { id: string; query: string };
  document: { id: string };
  grade: number;
  seconds: number;
  labelledAt: string;
  flag: ItemFlag | null;
  note: string | null;
}

/** An annotator's note on an item (flag, free text, when last changed). */
export interface ItemNoteView {
  item: number;
  flag: ItemFlag | null;
  note: string;
  updatedAt: string | null;
}

/** A note as the admin sees it: who wrote what about which pair, and when. */
export interface CampaignNote extends ItemNoteView {
  user: { id: number; name: string };
  topic: string;
  docno: string;
}

/** not_found unless the user has items in the campaign (others learn nothing of it). */
async function requireAnnotatorOf(db: Queryable, campaignId: number, user: User) {
  const [campaign, [mine]] = await Promise.all([
    requireCampaign(db, campaignId),
    campaignProgress(db, campaignId, user.id),
  ]);
  if (!mine) throw new PlatformError('not_found', `no campaign ${campaignId}`);
  return campaign;
}

/** The item, if it is in the campaign and assigned to the user; not_found otherwise. */
async function requireItemOf(
  db: Queryable,
  campaignId: number,
  itemId: number,
  user: User,
): Promise<CampaignItem> {
  const item = await getCampaignItem(db, campaignId, itemId);
  const mine = item && (await getCampaignAssignment(db, item.id, user.id));
  if (!item || !mine)
    throw new PlatformError('not_found', `no item ${itemId} of yours in campaign ${campaignId}`);
  return item;
}

/**
 * A page of the items the user labelled in a campaign, the most recently changed first,
 * each with their own grade, time spent and note. Nobody else's grade is in it.
 */
export async function listMyLabelledItemsPage(
  db: Queryable,
  campaignId: number,
  user: User,
  options: PageOptions = {},
): Promise<Page<HistoryItem>> {
  await requireAnnotatorOf(db, campaignId, user);
  const page = seekPage(options, SMALL_PAGE, ['text', 'int']);
  const rows = await listLabelledItems(db, campaignId, user.id, page);
  return pageOf(
    rows,
    page,
    (r) => [r.key, r.itemId],
    (r) => ({
      item: r.itemId,
      topic: { id: r.topicId, query: r.query },
      document: { id: r.docId },
      grade: r.grade,
      seconds: r.seconds,
      labelledAt: r.labelledAt.toISOString(),
      flag: r.flag,
      note: r.note,
    }),
  );
}

/** The user's note on one of their items (an empty one when they wrote none). */
export async function myItemNote(
  db: Queryable,
  campaignId: number,
  itemId: number,
  user: User,
): Promise<ItemNoteView> {
  await requireAnnotatorOf(db, campaignId, user);
  const item = await requireItemOf(db, campaignId, itemId, user);
  const note = await getItemNote(db, item.id, user.id);
  return {
    item: item.id,
    flag: note?.flag ?? null,
    note: note?.note ?? '',
    updatedAt: note ? note.updatedAt.toISOString() : null,
  };
}

/**
 * Sets the user's note and flag on one of their items; no flag and an empty note remove
 * it. invalid_input for an unknown flag or a note over {@link MAX_NOTE_LENGTH} characters.
 */
export async function saveMyItemNote(
  db: Queryable,
  campaignId: number,
  itemId: number,
  user: User,
  input: { flag?: string | null; note?: string },
): Promise<ItemNoteView> {
  const flag = input.flag ?? null;
  if (flag !== null && !ITEM_FLAGS.includes(flag as ItemFlag))
    throw new PlatformError(
      'invalid_input',
      `flag must be one of ${ITEM_FLAGS.join(', ')} (or null), not ${JSON.stringify(flag)}`,
      { field: 'flag' },
    );
  const note = (input.note ?? '').trim();
  if (note.length > MAX_NOTE_LENGTH)
    throw new PlatformError(
      'invalid_input',
      `a note has at most ${MAX_NOTE_LENGTH} characters (this one ${note.length})`,
      { field: 'note' },
    );
  await requireAnnotatorOf(db, campaignId, user);
  const item = await requireItemOf(db, campaignId, itemId, user);
  const saved = await setItemNote(db, {
    campaignId,
    itemId: item.id,
    userId: user.id,
    flag: flag as ItemFlag | null,
    note,
  });
  return {
    item: item.id,
    flag: saved?.flag ?? null,
    note: saved?.note ?? '',
    updatedAt: saved ? saved.updatedAt.toISOString() : null,
  };
}

/** Every annotator's notes and flags in a campaign, newest first (for its admins). */
export async function listCampaignNotes(
  db: Queryable,
  campaignId: number,
): Promise<CampaignNote[]> {
  await requireCampaign(db, campaignId);
  const notes = await listCampaignItemNotes(db, campaignId);
  return notes.map((n) => ({
    item: n.itemId,
    topic: n.topicId,
    docno: n.docId,
    user: { id: n.userId, name: n.userName },
    flag: n.flag,
    note: n.note,
    updatedAt: n.updatedAt.toISOString(),
  }));
}
