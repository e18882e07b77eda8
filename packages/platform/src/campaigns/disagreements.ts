// The adjudication queue of a campaign: the items whose annotators gave different grades,
// each with every annotator's grade, the campaign's label as it stands and, only when the
// admin asks for them, the grades of the label sets the campaign is compared with.
import {
  getDocument,
  getLabelGrades,
  getLabelSet,
  getTopic,
  listAnnotatorGrades,
  listCampaignItems,
  listUsers,
  type Queryable,
} from '@assay/db';
import { compareWithIds, requireCampaign } from './campaigns.js';
import { PlatformError } from '../core/errors.js';

/** One item the annotators disagree on. */
export interface Disagreement {
  item: number;
  topicId: string;
  query: string;
  docId: string;
  /** Every annotator's current grade, by name. */
  grades: Array<{ annotator: string; grade: number }>;
  /** The campaign's label now: the adjudicated grade, else the majority (ties low). */
  label: number | null;
  /** The admin's decision, if any. */
  adjudicated: number | null;
  /**
   * How the label stands: `tie` when the most given grades are given equally often (two
   * annotators, one grade each: a 1-vs-1 tie; the label takes the lower grade until the
   * admin decides), `majority` when one grade is given most, `adjudicated` once decided.
   */
  status: 'tie' | 'majority' | 'adjudicated';
  /** The compared label sets' grades (only with `withLabelSets`). */
  labelSets?: Array<{ labelSet: string; grade: number | null }>;
}

/**
 * The items of a campaign on which at least two annotators gave different grades, in the
 * campaign's order (adjudicated ones included, so a decision can be revisited).
 */
export async function listCampaignDisagreements(
  db: Queryable,
  campaignId: number,
  options: { withLabelSets?: boolean } = {},
): Promise<Disagreement[]> {
  const campaign = await requireCampaign(db, campaignId);
  const names = new Map((await listUsers(db)).map((u) => [u.id, u.name]));
  const byItem = new Map<number, Array<{ annotator: string; grade: number }>>();
  for (const g of await listAnnotatorGrades(db, campaignId)) {
    let list = byItem.get(g.itemId);
    if (!list) byItem.set(g.itemId, (list = []));
    list.push({ annotator: names.get(g.userId) ?? `user ${g.userId}`, grade: g.grade });
  }
  const items = (await listCampaignItems(db, campaignId)).filter((item) => {
    const grades = byItem.get(item.id) ?? [];
    return new Set(grades.map((g) => g.grade)).size > 1;
  });
  if (items.length === 0) return [];
  const topicIds = [...new Set(items.map((i) => i.topicId))];
  const labels = await getLabelGrades(db, campaign.labelSetId, { topicIds });
  const compared: Array<{ name: string; grades: Map<string, Map<string, number>> }> = [];
  if (options.withLabelSets)
    for (const setId of compareWithIds(campaign)) {
      const set = await getLabelSet(db, setId);
      if (set)
        compared.push({ name: set.name, grades: await getLabelGrades(db, setId, { topicIds }) });
    }
  const queries = new Map<string, string>();
  for (const topicId of topicIds)
    queries.set(topicId, (await getTopic(db, campaign.collectionId, topicId))?.query ?? '');
  return items.map((item) => ({
    item: item.id,
    topicId: item.topicId,
    query: queries.get(item.topicId) ?? '',
    docId: item.docId,
    grades: byItem.get(item.id)!,
    label: labels.get(item.topicId)?.get(item.docId) ?? null,
    adjudicated: item.adjudicatedGrade,
    status: item.adjudicatedGrade !== null ? 'adjudicated' : ballotStatus(byItem.get(item.id)!),
    ...(options.withLabelSets
      ? {
          labelSets: compared.map((s) => ({
            labelSet: s.name,
            grade: s.grades.get(item.topicId)?.get(item.docId) ?? null,
          })),
        }
      : {}),
  }));
}

/** `tie` when two or more grades share the highest count, else `majority`. */
export function ballotStatus(grades: ReadonlyArray<{ grade: number }>): 'tie' | 'majority' {
  const counts = new Map<number, number>();
  for (const g of grades) counts.set(g.grade, (counts.get(g.grade) ?? 0) + 1);
  const top = Math.max(...counts.values());
  return [...counts.values()].filter((n) => n === top).length > 1 ? 'tie' : 'majority';
}

/** One item of a campaign as the adjudicator reads it: query, passage and every grade. */
export interface AdjudicationItem extends Omit<Disagreement, 'status'> {
  status: Disagreement['status'] | 'agreed' | 'unlabelled';
  topic: { id: string; query: string; description?: string; narrative?: string };
  document: { id: string; title?: string; text: string };
}

/**
 * One item of a campaign with its topic (query, description, narrative), its passage and
 * every annotator's grade, for the adjudicator's document view; not_found if the item is
 * not the campaign's. The compared label sets' grades only with `withLabelSets`.
 */
export async function adjudicationItem(
  db: Queryable,
  campaignId: number,
  itemId: number,
  options: { withLabelSets?: boolean } = {},
): Promise<AdjudicationItem> {
  const campaign = await requireCampaign(db, campaignId);
  const item = (await listCampaignItems(db, campaignId)).find((i) => i.id === itemId);
  if (!item) throw new PlatformError('not_found', `no item ${itemId} in campaign ${campaignId}`);
  const names = new Map((await listUsers(db)).map((u) => [u.id, u.name]));
  const grades = (await listAnnotatorGrades(db, campaignId))
    .filter((g) => g.itemId === itemId)
    .map((g) => ({ annotator: names.get(g.userId) ?? `user ${g.userId}`, grade: g.grade }));
  const [topic, doc, labels] = await Promise.all([
    getTopic(db, campaign.collectionId, item.topicId),
    getDocument(db, campaign.collectionId, item.docId),
    getLabelGrades(db, campaign.labelSetId, { topicIds: [item.topicId] }),
  ]);
  const labelSets = [];
  if (options.withLabelSets)
    for (const setId of compareWithIds(campaign)) {
      const set = await getLabelSet(db, setId);
      if (!set) continue;
      const other = await getLabelGrades(db, setId, { topicIds: [item.topicId] });
      labelSets.push({
        labelSet: set.name,
        grade: other.get(item.topicId)?.get(item.docId) ?? null,
      });
    }
  const distinct = new Set(grades.map((g) => g.grade)).size;
  return {
    item: item.id,
    topicId: item.topicId,
    query: topic?.query ?? '',
    docId: item.docId,
    grades,
    label: labels.get(item.topicId)?.get(item.docId) ?? null,
    adjudicated: item.adjudicatedGrade,
    status:
      item.adjudicatedGrade !== null
        ? 'adjudicated'
        : grades.length === 0
          ? 'unlabelled'
          : distinct === 1
            ? 'agreed'
            : ballotStatus(grades),
    ...(options.withLabelSets ? { labelSets } : {}),
    topic: {
      id: item.topicId,
      query: topic?.query ?? '',
      ...(topic?.description ? { description: topic.description } : {}),
      ...(topic?.narrative ? { narrative: topic.narrative } : {}),
    },
    document: {
      id: item.docId,
      ...(doc?.title ? { title: doc.title } : {}),
      text: doc?.text ?? '',
    },
  };
}
