// The annotator's side of a campaign: the next item, saving, undoing and skipping labels,
// and an admin's adjudication. Every change is a new label revision; the campaign's label
// of an item (majority, ties low, or the adjudicated grade) is updated in the same
// transaction, by the one rule of @assay/db's label writer.
import {
  adjudicateCampaignItem,
  appendLabelRevision,
  campaignProgress,
  getCampaignAssignment,
  getCampaignItem,
  getDocument,
  getLabelGrades,
  getLabelSet,
  getTopic,
  hasBlindAssignmentOn,
  listAnnotatorCampaigns,
  listUserItemRevisions,
  nextCampaignItem,
  nextCampaignItems,
  saveAssignmentGrade,
  refreshCampaignLabel,
  updateCampaignAssignment,
  withTransaction,
  type Campaign,
  type CampaignGrade,
  type CampaignItem,
  type Queryable,
  type TopicContext,
  type User,
} from '@assay/db';
import { campaignInputLockMs, compareWithIds, requireCampaign } from './campaigns.js';
import { campaignClosed, removedAnnotatorIds, requireLabelling } from './state.js';
import { PlatformError } from '../core/errors.js';
import { pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';

/** The rationale that marks a revision as an undo of the annotator's previous change. */
export const UNDO_REVISION = 'undo';

/** What an annotator sees of one item. */
export interface AnnotationItem {
  /**
   * The campaign as annotators see it: its title, never its name, and how long keys are
   * ignored after a new item appears (ms, 0: never).
   */
  campaign: { id: number; title: string; inputLockMs: number };
  item: {
    id: number;
    topic: {
      id: string;
      query: string;
      description?: string;
      narrative?: string;
      context?: TopicContext;
    };
    document: { id: string; title?: string; text: string };
  };
  scale: { min: number; max: number; grades: CampaignGrade[] };
  rubric: string;
  progress: { done: number; total: number };
  /**
   * Other label sets' grades: only in campaigns that are not blind, and never for a pair
   * the annotator also has in a blind campaign (then `referenceHidden` says so).
   */
  reference?: Array<{ labelSet: string; grade: number | null }>;
  referenceHidden?: string;
}

/** An annotator's label as it now stands, with their progress. */
export interface SavedLabel {
  item: number;
  grade: number | null;
  progress: { done: number; total: number };
}

/** A campaign as its annotator sees it (its title: the name stays with the admins). */
export interface AnnotatorCampaign {
  id: number;
  title: string;
  blind: boolean;
  progress: { done: number; total: number };
  /** The campaign is closed: it takes no more labels. */
  closed: boolean;
  /** The caller was removed from the campaign: it takes no more labels from them. */
  removed: boolean;
}

async function progressOf(db: Queryable, campaignId: number, userId: number) {
  const [mine] = await campaignProgress(db, campaignId, userId);
  return { done: mine?.done ?? 0, total: mine?.total ?? 0 };
}

/**
 * A page of the campaigns a user has items in, newest first (by id, descending), with their
 * own progress.
 */
export async function listMyCampaignsPage(
  db: Queryable,
  user: User,
  options: PageOptions = {},
): Promise<Page<AnnotatorCampaign>> {
  const page = seekPage(options, SMALL_PAGE, ['int']);
  const rows = await listAnnotatorCampaigns(db, user.id, page);
  const { items, next } = pageOf(
    rows,
    page,
    (c) => [c.id],
    (c) => c,
  );
  return { items: await withProgress(db, user, items), next };
}

async function withProgress(
  db: Queryable,
  user: User,
  campaigns: readonly Campaign[],
): Promise<AnnotatorCampaign[]> {
  const out = [];
  for (const c of campaigns)
    out.push({
      id: c.id,
      title: campaignTitle(c),
      blind: c.blind,
      progress: await progressOf(db, c.id, user.id),
      closed: campaignClosed(c) !== null,
      removed: removedAnnotatorIds(c).includes(user.id),
    });
  return out;
}

/** The campaign and the annotator's progress in it; not_found if none of its items is theirs. */
async function campaignOfAnnotator(
  db: Queryable,
  id: number,
  user: User,
): Promise<{ campaign: Campaign; progress: { done: number; total: number } }> {
  const [campaign, [mine]] = await Promise.all([
    requireCampaign(db, id),
    campaignProgress(db, id, user.id),
  ]);
  // Someone without items in the campaign learns nothing about it.
  if (!mine) throw new PlatformError('not_found', `no campaign ${id}`);
  return { campaign, progress: { done: mine.done, total: mine.total } };
}

async function itemOfAnnotator(
  db: Queryable,
  campaign: Campaign,
  itemId: number,
  user: User,
  forUpdate = false,
): Promise<CampaignItem> {
  const item = await getCampaignItem(db, campaign.id, itemId, { forUpdate });
  const assigned = item && (await getCampaignAssignment(db, item.id, user.id));
  if (!item || !assigned)
    throw new PlatformError('not_found', `no item ${itemId} of yours in campaign ${campaign.id}`);
  return item;
}

/** The annotator's next item, or undefined when they have labelled everything. */
export async function nextAnnotationItem(
  db: Queryable,
  campaignId: number,
  user: User,
): Promise<AnnotationItem | undefined> {
  // The next item is looked up alongside the campaign; when campaignOfAnnotator refuses
  // (no such campaign, or none of its items are the caller's), nothing is shown.
  const [{ campaign, progress }, item] = await Promise.all([
    campaignOfAnnotator(db, campaignId, user),
    nextCampaignItem(db, campaignId, user.id),
  ]);
  // A closed campaign (or one the caller was removed from) serves no item: the page says why.
  requireLabelling(campaign, user.id);
  if (!item) return undefined;
  return presentItem(db, campaign, item, progress, user);
}

/** The most items one look-ahead returns. */
export const MAX_NEXT_ITEMS = 20;

/** The annotator's next items, in the order they are served, and their progress. */
export interface NextAnnotationItems {
  items: AnnotationItem[];
  progress: { done: number; total: number };
}

/**
 * The annotator's next `count` items (1 to 20) in the order they are served, so the
 * labelling screen can show the next one from memory; empty when everything is labelled.
 */
export async function nextAnnotationItems(
  db: Queryable,
  campaignId: number,
  user: User,
  count: number,
): Promise<NextAnnotationItems> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_NEXT_ITEMS)
    throw new PlatformError(
      'invalid_input',
      `count must be a whole number from 1 to ${MAX_NEXT_ITEMS}; got ${count}`,
    );
  const [{ campaign, progress }, rows] = await Promise.all([
    campaignOfAnnotator(db, campaignId, user),
    nextCampaignItems(db, campaignId, user.id, count),
  ]);
  // As for one item: a closed campaign, or one the caller was removed from, serves none.
  requireLabelling(campaign, user.id);
  const items = [];
  for (const item of rows) items.push(await presentItem(db, campaign, item, progress, user));
  return { items, progress };
}

/** One of the annotator's items (to look at again, e.g. after an undo). */
export async function annotationItem(
  db: Queryable,
  campaignId: number,
  itemId: number,
  user: User,
): Promise<AnnotationItem & { grade: number | null }> {
  const { campaign, progress } = await campaignOfAnnotator(db, campaignId, user);
  const item = await itemOfAnnotator(db, campaign, itemId, user);
  const assignment = await getCampaignAssignment(db, item.id, user.id);
  return {
    ...(await presentItem(db, campaign, item, progress, user)),
    grade: assignment?.grade ?? null,
  };
}

async function presentItem(
  db: Queryable,
  campaign: Campaign,
  item: CampaignItem,
  progress: { done: number; total: number },
  user: User,
): Promise<AnnotationItem> {
  const [topic, doc, set] = await Promise.all([
    getTopic(db, campaign.collectionId, item.topicId),
    getDocument(db, campaign.collectionId, item.docId),
    getLabelSet(db, campaign.labelSetId),
  ]);
  const out: AnnotationItem = {
    campaign: {
      id: campaign.id,
      title: campaignTitle(campaign),
      inputLockMs: campaignInputLockMs(campaign),
    },
    item: {
      id: item.id,
      topic: {
        id: item.topicId,
        query: topic?.query ?? '',
        ...(topic?.description ? { description: topic.description } : {}),
        ...(topic?.narrative ? { narrative: topic.narrative } : {}),
        ...(topic?.context ? { context: topic.context } : {}),
      },
      document: {
        id: item.docId,
        ...(doc?.title ? { title: doc.title } : {}),
        text: doc?.text ?? '',
      },
    },
    scale: { min: set?.scaleMin ?? 0, max: set?.scaleMax ?? 0, grades: campaign.grades },
    rubric: campaign.rubric,
    progress,
  };
  if (
    !campaign.blind &&
    (await hasBlindAssignmentOn(db, user.id, campaign.collectionId, item.topicId, item.docId))
  ) {
    // Another campaign has her label this pair blind: no other grade of it reaches her.
    out.referenceHidden =
      'you also label this item in a blind campaign, so other label sets’ grades stay hidden';
  } else if (!campaign.blind) {
    out.reference = [];
    for (const setId of compareWithIds(campaign)) {
      const other = await getLabelSet(db, setId);
      if (!other) continue;
      const grades = await getLabelGrades(db, setId, { topicIds: [item.topicId] });
      out.reference.push({
        labelSet: other.name,
        grade: grades.get(item.topicId)?.get(item.docId) ?? null,
      });
    }
  }
  return out;
}

/** What annotators see of a campaign: the title the admin gave, else its name. */
function campaignTitle(campaign: Campaign): string {
  return campaign.title ?? campaign.name;
}

/**
 * Saves an annotator's grade of one of their items (a new revision). One database
 * statement does the whole save; only when it writes nothing is the reason looked up.
 */
export async function saveAnnotationLabel(
  db: Queryable,
  campaignId: number,
  user: User,
  input: { item: number; grade: number; seconds?: number },
): Promise<SavedLabel> {
  const saved = await saveAssignmentGrade(db, {
    campaignId,
    itemId: input.item,
    userId: user.id,
    grade: input.grade,
    seconds: Math.max(0, Math.min(input.seconds ?? 0, 86_400)),
  });
  if (saved)
    return {
      item: saved.itemId,
      grade: input.grade,
      progress: { done: saved.done, total: saved.total },
    };
  const campaign = await requireCampaign(db, campaignId);
  await itemOfAnnotator(db, campaign, input.item, user);
  requireLabelling(campaign, user.id);
  if (!campaign.grades.some((g) => g.grade === input.grade))
    throw new PlatformError(
      'invalid_input',
      `grade ${input.grade} is not on this campaign's scale (${campaign.grades.map((g) => g.grade).join(', ')})`,
    );
  // Campaign, grade and item all check out now: something changed between the two looks.
  throw new PlatformError('conflict', `item ${input.item} changed while saving: save it again`);
}

/**
 * Undoes the annotator's latest change to an item: records a revision restoring the grade
 * they had before it (none: the item is unlabelled and comes back in their queue).
 * Repeated undos walk further back; a label that was never changed cannot be undone.
 */
export async function undoAnnotationLabel(
  db: Queryable,
  campaignId: number,
  user: User,
  itemId: number,
): Promise<SavedLabel> {
  const campaign = await requireCampaign(db, campaignId);
  requireLabelling(campaign, user.id);
  return withTransaction(db, async (trx) => {
    const item = await itemOfAnnotator(trx, campaign, itemId, user, true);
    const revisions = await listUserItemRevisions(trx, {
      labelSetId: campaign.labelSetId,
      topicId: item.topicId,
      docId: item.docId,
      userId: user.id,
    });
    // Replay: a change pushes its grade, an undo pops the latest one.
    const stack: Array<number | null> = [];
    for (const r of revisions) {
      if (r.rationale === UNDO_REVISION) stack.pop();
      else stack.push(r.grade);
    }
    if (stack.length === 0)
      throw new PlatformError('conflict', `item ${itemId} has no label of yours to undo`);
    stack.pop();
    const restored = stack.length > 0 ? stack[stack.length - 1]! : null;
    await appendLabelRevision(trx, {
      labelSetId: campaign.labelSetId,
      topicId: item.topicId,
      docId: item.docId,
      grade: restored,
      userId: user.id,
      rationale: UNDO_REVISION,
    });
    await updateCampaignAssignment(trx, item.id, user.id, { grade: restored, skipped: false });
    await refreshCampaignLabel(trx, { labelSetId: campaign.labelSetId, itemId: item.id });
    return {
      item: item.id,
      grade: restored,
      progress: await progressOf(trx, campaign.id, user.id),
    };
  });
}

/** Puts an unlabelled item at the back of the annotator's queue. */
export async function skipAnnotationItem(
  db: Queryable,
  campaignId: number,
  user: User,
  itemId: number,
): Promise<SavedLabel> {
  const campaign = await requireCampaign(db, campaignId);
  requireLabelling(campaign, user.id);
  const item = await itemOfAnnotator(db, campaign, itemId, user);
  const assignment = await getCampaignAssignment(db, item.id, user.id);
  if (assignment?.grade !== null)
    throw new PlatformError('conflict', `item ${itemId} is labelled: undo it instead of skipping`);
  await updateCampaignAssignment(db, item.id, user.id, { skipped: true });
  return { item: item.id, grade: null, progress: await progressOf(db, campaign.id, user.id) };
}

/** An admin decides an item's campaign label (null hands it back to the majority). */
export async function adjudicateItem(
  db: Queryable,
  campaignId: number,
  admin: User,
  input: { item: number; grade: number | null },
): Promise<{ item: number; grade: number | null }> {
  const campaign = await requireCampaign(db, campaignId);
  if (input.grade !== null && !campaign.grades.some((g) => g.grade === input.grade))
    throw new PlatformError(
      'invalid_input',
      `grade ${input.grade} is not on this campaign's scale`,
    );
  return withTransaction(db, async (trx) => {
    const item = await getCampaignItem(trx, campaign.id, input.item, { forUpdate: true });
    if (!item)
      throw new PlatformError('not_found', `no item ${input.item} in campaign ${campaignId}`);
    await adjudicateCampaignItem(trx, item.id, input.grade, admin.id);
    const grade = await refreshCampaignLabel(trx, {
      labelSetId: campaign.labelSetId,
      itemId: item.id,
    });
    return { item: item.id, grade };
  });
}
