// The adjudication queue of a campaign: the items whose annotators gave different grades,
// each with every annotator's grade, the campaign's label as it stands and, only when the
// admin asks for them, the grades of the label sets the campaign is compared with.
import {
  getLabelGrades,
  getLabelSet,
  getTopic,
  listAnnotatorGrades,
  listCampaignItems,
  listUsers,
  type Queryable,
} from '@assay/db';
import { compareWithIds, requireCampaign } from './campaigns.js';

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
