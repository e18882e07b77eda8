// The annotator's history and item notes, and the admin's list of them: calls of
// /api/campaigns/{id}/history, /items/{item}/note and /notes.
import { exchange } from './api';

/** What an annotator can flag an item as. */
export type ItemFlag = 'broken' | 'unsure';

/** The words the app uses for each flag. */
export const FLAG_TEXT: Record<ItemFlag, string> = {
  broken: 'passage broken',
  unsure: 'unsure',
};

/** One item of my history (GET /campaigns/{id}/history). */
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

/** My note and flag on an item. */
export interface ItemNote {
  item: number;
  flag: ItemFlag | null;
  note: string;
  updatedAt: string | null;
}

/** A note as the admin sees it. */
export interface CampaignNote extends ItemNote {
  user: { id: number; name: string };
  topic: string;
  docno: string;
}

/** A call through the app's one request function, with the next page's cursor. */
async function call<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ body: T; next: string | null }> {
  const answer = await exchange<T>(method, path, body);
  return { body: answer.body, next: answer.headers.get('x-next-cursor') };
}

/** A page of my labelled items, most recently changed first, and the next page's cursor. */
export async function history(
  campaign: number,
  after?: string | null,
  limit = 50,
): Promise<{ items: HistoryItem[]; next: string | null }> {
  const query = `?limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
  const { body, next } = await call<HistoryItem[]>('GET', `/campaigns/${campaign}/history${query}`);
  return { items: body, next };
}

/** My note on one of my items. */
export async function itemNote(campaign: number, item: number): Promise<ItemNote> {
  return (await call<ItemNote>('GET', `/campaigns/${campaign}/items/${item}/note`)).body;
}

/** Sets my note and flag on one of my items (no flag and no text: removes it). */
export async function saveItemNote(
  campaign: number,
  item: number,
  flag: ItemFlag | null,
  note: string,
): Promise<ItemNote> {
  return (await call<ItemNote>('PUT', `/campaigns/${campaign}/items/${item}/note`, { flag, note }))
    .body;
}

/** Every annotator's notes and flags in a campaign (admins). */
export async function campaignNotes(campaign: number): Promise<CampaignNote[]> {
  return (await call<CampaignNote[]>('GET', `/campaigns/${campaign}/notes`)).body;
}
