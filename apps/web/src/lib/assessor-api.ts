// The annotator's history and item notes, and the admin's list of them: calls of
// /api/campaigns/{id}/history, /items/{item}/note and /notes, on the app's one typed client.
import { client, ok, okWithHeaders } from './api';

/** What an annotator can flag an item as. */
export type ItemFlag = 'broken' | 'unsure';

/** The words the app uses for each flag. */
export const FLAG_TEXT: Record<ItemFlag, string> = {
  broken: 'passage broken',
  unsure: 'unsure',
};

const campaign = client.api.campaigns[':id'];
const note = campaign.items[':item'].note;
const at = (campaign: number) => ({ id: String(campaign) });
const atItem = (campaign: number, item: number) => ({ id: String(campaign), item: String(item) });

/** A page of my labelled items, most recently changed first, and the next page's cursor. */
export async function history(campaignId: number, after?: string | null, limit = 50) {
  const { body, headers } = await okWithHeaders(
    campaign.history.$get({
      param: at(campaignId),
      query: { limit: String(limit), ...(after ? { after } : {}) },
    }),
  );
  return { items: body, next: headers.get('x-next-cursor') };
}

/** One item of my history (GET /campaigns/{id}/history). */
export type HistoryItem = Awaited<ReturnType<typeof history>>['items'][number];

/** My note on one of my items. */
export async function itemNote(campaignId: number, item: number) {
  return ok(note.$get({ param: atItem(campaignId, item) }));
}

/** My note and flag on an item. */
export type ItemNote = Awaited<ReturnType<typeof itemNote>>;

/** Sets my note and flag on one of my items (no flag and no text: removes it). */
export async function saveItemNote(
  campaignId: number,
  item: number,
  flag: ItemFlag | null,
  text: string,
): Promise<ItemNote> {
  return ok(note.$put({ param: atItem(campaignId, item), json: { flag, note: text } }));
}

/** Every annotator's notes and flags in a campaign (admins). */
export async function campaignNotes(campaignId: number) {
  return ok(campaign.notes.$get({ param: at(campaignId) }));
}

/** A note as the admin sees it. */
export type CampaignNote = Awaited<ReturnType<typeof campaignNotes>>[number];
