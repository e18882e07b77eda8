// Campaigns as objects an admin manages: close and reopen, add and remove annotators,
// delete. Closing and removing keep every label; state lives in the campaign's settings
// (see campaign-state.ts).
import {
  addCampaignAssignments,
  blindnessConflicts,
  campaignsUsingLabelSet,
  countCampaignLabels,
  deleteLabelSet,
  deleteUnlabelledAssignments,
  getCampaign,
  getLabelSet,
  listCampaignItems,
  lockName,
  patchCampaignSettings,
  type Campaign,
  type Queryable,
  type User,
  type withTransaction,
} from '@assay/db';
import { campaignSummary, requireCampaign, type CampaignSummary } from './campaigns.js';
import { campaignClosed, removedAnnotatorIds } from './state.js';
import { writeInCollection } from '../catalog/collection-writes.js';
import { PlatformError } from '../core/errors.js';
import { campaignsLockName, labelSetLockName } from '../core/name-locks.js';
import { resolveUser } from '../people/users.js';

type Trx = Parameters<Parameters<typeof withTransaction>[1]>[0];

/** Runs a change of one campaign in a transaction that holds its collection and its campaigns' lock. */
async function changingCampaign<T>(
  db: Queryable,
  id: number,
  change: (trx: Trx, campaign: Campaign) => Promise<T>,
): Promise<T> {
  const found = await requireCampaign(db, id);
  return writeInCollection(
    db,
    { id: found.collectionId, name: String(found.collectionId) },
    async (trx) => {
      await lockName(trx, campaignsLockName(found.collectionId));
      const campaign = await getCampaign(trx, id);
      if (!campaign) throw new PlatformError('not_found', `no campaign ${id}`);
      return change(trx, campaign);
    },
  );
}

function annotatorIds(campaign: Campaign): number[] {
  const ids = campaign.settings.annotators;
  return Array.isArray(ids) ? ids.filter((v): v is number => typeof v === 'number') : [];
}

/**
 * Closes a campaign: annotators can no longer label, undo or skip in it (409 "campaign
 * closed"); every label is kept and the admin can still adjudicate. Closing a closed
 * campaign changes nothing.
 */
export async function closeCampaign(
  db: Queryable,
  id: number,
  admin: User,
): Promise<CampaignSummary> {
  await changingCampaign(db, id, async (trx, campaign) => {
    if (campaignClosed(campaign)) return;
    await patchCampaignSettings(trx, id, {
      set: { closedAt: new Date().toISOString(), closedBy: admin.id },
    });
  });
  return campaignSummary(db, id);
}

/** Reopens a closed campaign: its annotators label again where they stopped. */
export async function reopenCampaign(db: Queryable, id: number): Promise<CampaignSummary> {
  await changingCampaign(db, id, (trx) =>
    patchCampaignSettings(trx, id, { remove: ['closedAt', 'closedBy'] }),
  );
  return campaignSummary(db, id);
}

/** What adding annotators did: the items each was given. */
export interface AddedAnnotators {
  added: Array<{ userId: number; name: string; items: number }>;
  campaign: CampaignSummary;
}

/**
 * Adds annotators to a campaign (or brings back removed ones). Each gets the items that
 * have fewer than `overlap` annotators (those left by someone removed), or, with
 * `allItems`, every item they do not have yet. An annotator who would then be in a blind
 * and a non-blind campaign over the same pairs is a conflict (nothing is changed).
 */
export async function addCampaignAnnotators(
  db: Queryable,
  id: number,
  input: { annotators: Array<string | number>; allItems?: boolean },
): Promise<AddedAnnotators> {
  if (input.annotators.length === 0)
    throw new PlatformError('invalid_input', 'name at least one person to add to the campaign');
  const users: User[] = [];
  for (const ref of input.annotators) users.push(await resolveUser(db, ref));
  if (new Set(users.map((u) => u.id)).size !== users.length)
    throw new PlatformError('invalid_input', 'a person is listed twice');
  const added = await changingCampaign(db, id, async (trx, campaign) => {
    const out = [];
    for (const user of users) {
      const items = await addCampaignAssignments(trx, id, user.id, {
        overlap: campaign.overlap,
        all: input.allItems ?? false,
      });
      out.push({ userId: user.id, name: user.name, items });
    }
    const ids = new Set(users.map((u) => u.id));
    await patchCampaignSettings(trx, id, {
      set: {
        annotators: [...new Set([...annotatorIds(campaign), ...ids])],
        removedAnnotators: removedAnnotatorIds(campaign).filter((u) => !ids.has(u)),
      },
    });
    const conflicts = await blindnessConflicts(trx, id);
    if (conflicts.length > 0)
      throw new PlatformError(
        'conflict',
        `this campaign is ${campaign.blind ? 'blind' : 'not blind'} and shares items with a campaign that is ${campaign.blind ? 'not blind' : 'blind'}, where ${conflicts.map((c) => `${c.userName} (campaign "${c.campaignName}")`).join(', ')} already label: a non-blind campaign would show them other label sets' grades of items they label blind, so they are not added`,
        { annotators: conflicts.map((c) => ({ user: c.userName, campaign: c.campaignName })) },
      );
    return out;
  });
  return { added, campaign: await campaignSummary(db, id) };
}

/** What removing an annotator did. */
export interface RemovedAnnotator {
  userId: number;
  name: string;
  /** Their labels, kept in the campaign. */
  kept: number;
  /** Their unlabelled items, taken back. */
  released: number;
  message: string;
  campaign: CampaignSummary;
}

/**
 * Removes an annotator from a campaign: their unlabelled items are taken back (add someone
 * to give them out again) and they can no longer label in it; the labels they gave stay,
 * and count in the campaign's labels and agreement.
 */
export async function removeCampaignAnnotator(
  db: Queryable,
  id: number,
  userRef: string | number,
): Promise<RemovedAnnotator> {
  const user = await resolveUser(db, userRef);
  const result = await changingCampaign(db, id, async (trx, campaign) => {
    const known =
      annotatorIds(campaign).includes(user.id) || removedAnnotatorIds(campaign).includes(user.id);
    const released = await deleteUnlabelledAssignments(trx, id, user.id);
    const kept = await countCampaignLabels(trx, id, user.id);
    if (!known && released === 0 && kept === 0)
      throw new PlatformError('not_found', `${user.name} is not an annotator of this campaign`);
    await patchCampaignSettings(trx, id, {
      set: {
        annotators: annotatorIds(campaign).filter((u) => u !== user.id),
        removedAnnotators: [...new Set([...removedAnnotatorIds(campaign), user.id])],
      },
    });
    return { kept, released };
  });
  return {
    userId: user.id,
    name: user.name,
    ...result,
    message: `${user.name} was removed: the ${result.kept} label${result.kept === 1 ? '' : 's'} ${user.name} gave ${result.kept === 1 ? 'is' : 'are'} kept; ${result.released} unlabelled item${result.released === 1 ? ' was' : 's were'} taken back`,
    campaign: await campaignSummary(db, id),
  };
}

/** What deleting a campaign deletes (or deleted). */
export interface CampaignDeletion {
  id: number;
  name: string;
  items: number;
  /** The annotators' labels (one per person and item). */
  labels: number;
  labelSet: { id: number; name: string };
  /** Other campaigns that compare with or sampled by its label set. */
  usedBy: Array<{ id: number; name: string }>;
  message: string;
}

async function deletionOf(db: Queryable, campaign: Campaign): Promise<CampaignDeletion> {
  const set = await getLabelSet(db, campaign.labelSetId);
  const items = (await listCampaignItems(db, campaign.id)).length;
  const labels = await countCampaignLabels(db, campaign.id);
  const usedBy = (await campaignsUsingLabelSet(db, campaign.labelSetId))
    .filter((c) => c.id !== campaign.id)
    .map((c) => ({ id: c.id, name: c.name }));
  const setName = set?.name ?? campaign.name;
  return {
    id: campaign.id,
    name: campaign.name,
    items,
    labels,
    labelSet: { id: campaign.labelSetId, name: setName },
    usedBy,
    message: `campaign "${campaign.name}": ${items} item${items === 1 ? '' : 's'}, ${labels} label${labels === 1 ? '' : 's'} and the label set "${setName}"`,
  };
}

/** What {@link deleteCampaign} would delete, to confirm first. */
export async function campaignDeletionPreview(
  db: Queryable,
  id: number,
): Promise<CampaignDeletion> {
  return deletionOf(db, await requireCampaign(db, id));
}

/**
 * Deletes a campaign with its items, its annotators' labels and its label set, and says
 * what went. When another campaign compares with its label set or sampled by it, the
 * campaign is kept (conflict naming them) unless `force` is set, as for label sets.
 */
export async function deleteCampaign(
  db: Queryable,
  id: number,
  options: { force?: boolean } = {},
): Promise<CampaignDeletion> {
  const found = await requireCampaign(db, id);
  const set = await getLabelSet(db, found.labelSetId);
  return writeInCollection(
    db,
    { id: found.collectionId, name: String(found.collectionId) },
    async (trx) => {
      if (set) await lockName(trx, labelSetLockName(found.collectionId, set.name));
      await lockName(trx, campaignsLockName(found.collectionId));
      const campaign = await getCampaign(trx, id);
      if (!campaign) throw new PlatformError('not_found', `no campaign ${id}`);
      const deletion = await deletionOf(trx, campaign);
      if (deletion.usedBy.length > 0 && !options.force)
        throw new PlatformError(
          'conflict',
          `the label set "${deletion.labelSet.name}" of campaign "${campaign.name}" is used by ${deletion.usedBy.map((c) => `campaign "${c.name}"`).join(', ')} (compared with or sampled by); delete with force to delete it anyway`,
          { campaigns: deletion.usedBy },
        );
      // The campaign, its items and assignments go with its label set.
      await deleteLabelSet(trx, campaign.labelSetId);
      return { ...deletion, message: `deleted ${deletion.message}` };
    },
  );
}
