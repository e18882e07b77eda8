// Whether a campaign takes labels: closed campaigns (settings.closedAt) take none, and an
// annotator removed from a campaign (settings.removedAnnotators) labels no more in it.
// Kept in the campaign's JSON settings: closing or removing someone never touches a label.
import type { Campaign } from '@assay/db';
import { PlatformError } from '../core/errors.js';

/** When and by whom a campaign was closed, or null while it is open. */
export function campaignClosed(campaign: Campaign): { at: string; by: number | null } | null {
  const at = campaign.settings.closedAt;
  if (typeof at !== 'string') return null;
  const by = campaign.settings.closedBy;
  return { at, by: typeof by === 'number' ? by : null };
}

/** The ids of the users removed from a campaign (their labels stay). */
export function removedAnnotatorIds(campaign: Campaign): number[] {
  const ids = campaign.settings.removedAnnotators;
  return Array.isArray(ids) ? ids.filter((v): v is number => typeof v === 'number') : [];
}

/** The message of the 409 an annotator gets from a closed campaign. */
export const CAMPAIGN_CLOSED =
  'campaign closed: the admin has closed this campaign, so it takes no more labels (the labels given are kept)';

/** The message of the 409 an annotator removed from a campaign gets. */
export const ANNOTATOR_REMOVED =
  'you were removed from this campaign: it takes no more labels from you (the labels you gave are kept)';

/** conflict when the campaign takes no labels from this user (closed, or they were removed). */
export function requireLabelling(campaign: Campaign, userId: number): void {
  if (campaignClosed(campaign))
    throw new PlatformError('conflict', CAMPAIGN_CLOSED, { closed: true });
  if (removedAnnotatorIds(campaign).includes(userId))
    throw new PlatformError('conflict', ANNOTATOR_REMOVED, { removed: true });
}
