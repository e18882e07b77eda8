// Creating annotation campaigns and reading their state (admin side).
import {
  blindnessConflicts,
  campaignProgress,
  createCampaign as insertCampaign,
  lockName,
  createLabelSet,
  getCampaign,
  getLabelGrades,
  getLabelSet,
  getUser,
  listCampaignItems,
  listCampaigns as listStoredCampaigns,
  type AnnotatorProgress,
  type Campaign,
  type CampaignGrade,
  type JsonObject,
  type Queryable,
  type User,
} from '@assay/db';
import {
  assignAnnotators,
  groupByTopic,
  sampleCampaignItems,
  type CampaignCandidate,
} from './sampling.js';
import { campaignClosed, removedAnnotatorIds } from './state.js';
import { writeInCollection } from '../catalog/collection-writes.js';
import { PlatformError, writing } from '../core/errors.js';
import { NOTHING_LEFT_OUT, requireHeldPairs, type LeftOutPairs } from '../catalog/held-pairs.js';
import { campaignsLockName } from '../core/name-locks.js';
import { checkNewName } from '../core/names.js';
import { poolPairs } from '../catalog/pools.js';
import { resolveCollection, resolveLabelSet, type CollectionRef } from '../core/resolve.js';
import { resolveUser } from '../people/users.js';
import { pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';
import { inSlices } from '../core/work-slices.js';
import {
  campaignScale,
  checkCampaignSize,
  checkTitle,
  distinctItems,
  resolveSampling,
  type CreateCampaignInput,
} from './campaign-settings.js';

export {
  MAX_CAMPAIGN_ITEMS,
  type CampaignSamplingSpec,
  type CreateCampaignInput,
} from './campaign-settings.js';

/** A campaign with its items and each annotator's progress. */
export interface CampaignSummary {
  id: number;
  collectionId: number;
  name: string;
  /** What annotators see of the campaign (the name unless the admin set a title). */
  title: string;
  labelSet: { id: number; name: string };
  rubric: string;
  scale: { min: number; max: number };
  grades: CampaignGrade[];
  overlap: number;
  blind: boolean;
  items: number;
  /** Items that have a campaign label (majority or adjudicated). */
  labelled: number;
  /**
   * Pairs of the pool the collection does not hold (no query or no passage), left out when
   * the campaign was made; null for campaigns made before this was recorded.
   */
  leftOut: LeftOutPairs | null;
  compareWith: Array<{ id: number; name: string }>;
  settings: JsonObject;
  annotators: AnnotatorProgress[];
  /** When the campaign was closed (it takes no labels then), or null while open. */
  closed: { at: string; by: number | null } | null;
  /** Annotators removed from the campaign (their labels stay). */
  removedAnnotators: Array<{ id: number; name: string }>;
  createdAt: Date;
}

/** Creates a campaign: its label set, its items (sampled) and everyone's assignments. */
export async function createCampaign(
  db: Queryable,
  input: CreateCampaignInput,
): Promise<CampaignSummary> {
  const collection = await resolveCollection(db, input.collection);
  const name = checkNewName(input.name, 'campaign name');
  if ((input.pool === undefined) === (input.items === undefined))
    throw new PlatformError(
      'invalid_input',
      'a campaign takes its items from a pool of runs or from a list of items: give one of the two',
    );
  const { scale, grades, rubric } = campaignScale(input);
  const overlap = input.overlap ?? 1;
  if (!Number.isInteger(overlap) || overlap < 1)
    throw new PlatformError(
      'invalid_input',
      'overlap (annotators per item) is a whole number of at least 1',
    );
  const annotators: User[] = [];
  for (const ref of input.annotators) annotators.push(await resolveUser(db, ref));
  if (new Set(annotators.map((a) => a.id)).size !== annotators.length)
    throw new PlatformError('invalid_input', 'a person is listed twice among the annotators');
  if (annotators.length < overlap)
    throw new PlatformError(
      'invalid_input',
      `each item goes to ${overlap} annotators (overlap ${overlap}), so a campaign needs at least ${overlap} annotators; ${annotators.length} ${annotators.length === 1 ? 'is' : 'are'} given`,
    );

  const title = input.title === undefined ? null : checkTitle(input.title);
  const inputLockMs = checkInputLockMs(input.inputLockMs ?? DEFAULT_INPUT_LOCK_MS);
  let candidates: CampaignCandidate[];
  let leftOut: LeftOutPairs;
  if (input.pool) {
    ({ pairs: candidates, leftOut } = await poolPairs(db, collection, input.pool, 'held-strict'));
  } else {
    checkCampaignSize(input.items!.length, 'lists');
    candidates = await inSlices(distinctItems(input.items!));
    // An explicit list names exactly what to label: an unknown id is a mistake to fix.
    await requireHeldPairs(db, collection, candidates);
    leftOut = NOTHING_LEFT_OUT;
  }
  const compareWith = [];
  for (const ref of input.compareWith ?? [])
    compareWith.push(await resolveLabelSet(db, collection, ref));
  const sampling = await resolveSampling(db, collection, input.sampling ?? { mode: 'all' });
  const sampled = sampleCampaignItems(candidates, sampling.sampling);
  const items = input.topicByTopic ? groupByTopic(sampled) : sampled;
  if (items.length === 0)
    throw new PlatformError(
      'invalid_input',
      `the campaign has no items${leftOut.message ? `: ${leftOut.message}` : ''}`,
      { leftOut: leftOut as unknown as JsonObject },
    );
  checkCampaignSize(items.length, 'would hold');

  const settings: JsonObject = {
    source: input.pool
      ? { pool: JSON.parse(JSON.stringify(input.pool)) as JsonObject }
      : { items: items.length },
    sampling: sampling.stored,
    judge: input.judge ?? null,
    compareWith: compareWith.map((s) => s.id),
    annotators: annotators.map((a) => a.id),
    leftOut: leftOut as unknown as JsonObject,
    order: input.topicByTopic ? 'topic' : 'sampling',
    inputLockMs,
  };
  const blind = input.blind ?? true;
  const campaign = await writing(
    () =>
      writeInCollection(db, collection, async (trx) => {
        // Campaigns of a collection are made one at a time, so the blindness check below
        // sees every other campaign.
        await lockName(trx, campaignsLockName(collection.id));
        const labelSet = await createLabelSet(trx, {
          collectionId: collection.id,
          name,
          kind: 'campaign',
          scaleMin: scale.min,
          scaleMax: scale.max,
          config: { campaign: true, overlap, blind },
        });
        const created = await insertCampaign(trx, {
          collectionId: collection.id,
          labelSetId: labelSet.id,
          name,
          rubric,
          grades,
          overlap,
          blind,
          title,
          settings,
          items,
          annotators: annotators.map((a) => a.id),
          assign: (i) => assignAnnotators(i, annotators.length, overlap),
        });
        await refuseMixedBlindness(trx, created.id, blind);
        return created;
      }),
    `a label set or campaign named ${JSON.stringify(name)} already exists in "${collection.name}"`,
  );
  return campaignSummary(db, campaign.id);
}

/**
 * conflict (nothing written) when an annotator of the new campaign is also in a campaign
 * of the other blindness over some of the same pairs: the non-blind one would show her the
 * grades of other label sets for items she labels blind.
 */
async function refuseMixedBlindness(
  db: Queryable,
  campaignId: number,
  blind: boolean,
): Promise<void> {
  const conflicts = await blindnessConflicts(db, campaignId);
  if (conflicts.length === 0) return;
  const named = conflicts.map((c) => `${c.userName} (in campaign "${c.campaignName}")`).join(', ');
  throw new PlatformError(
    'conflict',
    `this campaign is ${blind ? 'blind' : 'not blind'} and shares items with a campaign that is ${blind ? 'not blind' : 'blind'}, with the same annotators: ${named}. A non-blind campaign shows other label sets' grades, which would reach an annotator labelling the same items blind; give these people only one of the two, or make both campaigns blind`,
    { annotators: conflicts.map((c) => ({ user: c.userName, campaign: c.campaignName })) },
  );
}

/** The campaign with this id; not_found otherwise. */
export async function requireCampaign(db: Queryable, id: number): Promise<Campaign> {
  const campaign = await getCampaign(db, id);
  if (!campaign) throw new PlatformError('not_found', `no campaign ${id}`);
  return campaign;
}

/** Keys are ignored this long after a new item appears, unless a campaign says otherwise. */
export const DEFAULT_INPUT_LOCK_MS = 250;
/** The longest input lock a campaign may set (a longer one would only slow people down). */
export const MAX_INPUT_LOCK_MS = 5000;

function checkInputLockMs(value: unknown): number {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 0 ||
    value > MAX_INPUT_LOCK_MS
  )
    throw new PlatformError(
      'invalid_input',
      `the input lock must be a whole number of milliseconds from 0 (no lock) to ${MAX_INPUT_LOCK_MS}; got ${JSON.stringify(value)}`,
    );
  return value;
}

/** How long a campaign's labelling screen ignores keys after a new item appears, in ms. */
export function campaignInputLockMs(campaign: Campaign): number {
  const value = campaign.settings.inputLockMs;
  // Campaigns made before the setting existed get the default.
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
    ? Math.min(value, MAX_INPUT_LOCK_MS)
    : DEFAULT_INPUT_LOCK_MS;
}

/** A campaign's settings, item counts and per-annotator progress. */
export async function campaignSummary(db: Queryable, id: number): Promise<CampaignSummary> {
  const campaign = await requireCampaign(db, id);
  const labelSet = await getLabelSet(db, campaign.labelSetId);
  if (!labelSet) throw new PlatformError('not_found', `campaign ${id} has no label set`);
  const items = await listCampaignItems(db, id);
  const labels = await getLabelGrades(db, labelSet.id);
  let labelled = 0;
  for (const docs of labels.values()) labelled += docs.size;
  const compareWith = [];
  for (const setId of compareWithIds(campaign)) {
    const set = await getLabelSet(db, setId);
    if (set) compareWith.push({ id: set.id, name: set.name });
  }
  return {
    id: campaign.id,
    collectionId: campaign.collectionId,
    name: campaign.name,
    title: campaign.title ?? campaign.name,
    labelSet: { id: labelSet.id, name: labelSet.name },
    rubric: campaign.rubric,
    scale: { min: labelSet.scaleMin, max: labelSet.scaleMax },
    grades: campaign.grades,
    overlap: campaign.overlap,
    blind: campaign.blind,
    items: items.length,
    labelled,
    leftOut: storedLeftOut(campaign.settings),
    compareWith,
    settings: campaign.settings,
    annotators: await campaignProgress(db, id),
    closed: campaignClosed(campaign),
    removedAnnotators: await removedAnnotatorsOf(db, campaign),
    createdAt: campaign.createdAt,
  };
}

async function removedAnnotatorsOf(
  db: Queryable,
  campaign: Campaign,
): Promise<Array<{ id: number; name: string }>> {
  const out = [];
  for (const id of removedAnnotatorIds(campaign)) {
    const user = await getUser(db, id);
    if (user) out.push({ id, name: user.name });
  }
  return out;
}

function storedLeftOut(settings: JsonObject): LeftOutPairs | null {
  const v = settings.leftOut;
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as unknown as LeftOutPairs) : null;
}

/** The ids of the label sets a campaign is compared with. */
export function compareWithIds(campaign: Campaign): number[] {
  const ids = campaign.settings.compareWith;
  return Array.isArray(ids) ? ids.filter((v): v is number => typeof v === 'number') : [];
}

/** A page of a collection's campaigns, newest first (by id, descending), with their progress. */
export async function listCollectionCampaignsPage(
  db: Queryable,
  collection: CollectionRef,
  options: PageOptions = {},
): Promise<Page<CampaignSummary>> {
  const page = seekPage(options, SMALL_PAGE, ['int']);
  const id = (await resolveCollection(db, collection)).id;
  const rows = await listStoredCampaigns(db, id, page);
  const { items, next } = pageOf(
    rows,
    page,
    (c) => [c.id],
    (c) => c.id,
  );
  const out = [];
  for (const campaignId of items) out.push(await campaignSummary(db, campaignId));
  return { items: out, next };
}
