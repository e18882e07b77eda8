// Agreement of a campaign: between its annotators, and between its labels and the label
// sets it is compared with. Built on the `assay agree` analysis and @assay/stats.
import {
  getLabelGrades,
  getLabelSet,
  listAnnotatorGrades,
  listUsers,
  type Queryable,
} from '@assay/db';
import { fleissKappaFromLabels, krippendorffAlpha } from '@assay/stats';
import {
  agreementSteps,
  type AgreementReport,
  type GradeScale,
  type Grades,
} from '../analysis/agreement.js';
import { inSlices } from '../core/work-slices.js';
import { compareWithIds, requireCampaign } from './campaigns.js';

/**
 * Below this many items a topic's coefficient is too noisy to read as a figure: pages say
 * "too few items for a figure" instead (the value stays in the report, with `tooFew`).
 */
export const MIN_TOPIC_ITEMS = 10;

/** Agreement within one topic. */
export interface TopicAgreement {
  topic: string;
  n: number;
  /** n < MIN_TOPIC_ITEMS: too few items for a figure. */
  tooFew: boolean;
  exactAgreement: number;
  cohenKappa: number;
  krippendorffAlpha: number;
}

/** The agreement report of a campaign (GET /api/campaigns/{id}/agreement). */
export interface CampaignAgreement {
  campaign: { id: number; name: string; labelSet: string };
  scale: GradeScale;
  annotators: {
    people: Array<{ id: number; name: string; labels: number }>;
    /**
     * Each pair of annotators over the items both labelled, as `assay agree --format json`;
     * a pair with no item in common has `n` 0, `report` null and the `reason`.
     */
    pairwise: Array<{ a: string; b: string } & PairAgreement>;
    /** Over every annotator: Fleiss' kappa on items with `overlap` labels, alpha on all. */
    overall: {
      items: number;
      fleissKappa: { items: number; value: number };
      krippendorffAlpha: { nominal: number; ordinal: number; interval: number };
    };
    /** Ordinal alpha among annotators, topic by topic. */
    perTopic: Array<{
      topic: string;
      items: number;
      /** items < MIN_TOPIC_ITEMS: too few items for a figure. */
      tooFew: boolean;
      krippendorffAlpha: number;
    }>;
  };
  /** The campaign's labels against each compared label set. */
  compareWith: Array<
    {
      labelSet: { id: number; name: string };
      perTopic: TopicAgreement[];
    } & PairAgreement
  >;
}

/**
 * The agreement of two sources over the items both labelled: `n` of them and the report,
 * or, with no item in common, `n` 0, `report` null and why.
 */
export type PairAgreement =
  | { n: number; report: AgreementReport; reason?: undefined }
  | { n: 0; report: null; reason: string };

/** How many (topic, document) pairs both sources grade. */
function shared(a: Grades, b: Grades): number {
  let n = 0;
  for (const [topic, docs] of a) {
    const other = b.get(topic);
    if (other) for (const doc of docs.keys()) if (other.has(doc)) n++;
  }
  return n;
}

/**
 * The agreement of `a` and `b`, or the reason there is none (nothing labelled by both).
 * Computed a slice at a time: a server keeps answering others meanwhile.
 */
async function pairAgreement(
  a: Grades,
  b: Grades,
  scale: GradeScale,
  reason: string,
): Promise<PairAgreement> {
  if (shared(a, b) === 0) return { n: 0, report: null, reason };
  const report = await inSlices(agreementSteps(a, b, scale));
  return { n: report.n, report };
}

type MutableGrades = Map<string, Map<string, number>>;

function put(grades: MutableGrades, topic: string, doc: string, grade: number) {
  let docs = grades.get(topic);
  if (!docs) grades.set(topic, (docs = new Map()));
  docs.set(doc, grade);
}

/** Only the grades inside the scale (negative qrels grades mean pooled, not judged). */
function inScale(grades: Grades, scale: GradeScale): MutableGrades {
  const out: MutableGrades = new Map();
  for (const [topic, docs] of grades)
    for (const [doc, g] of docs) if (g >= scale.min && g <= scale.max) put(out, topic, doc, g);
  return out;
}

function only(grades: Grades, topic: string): Grades {
  const docs = grades.get(topic);
  return docs ? new Map([[topic, docs]]) : new Map();
}

type CampaignRow = Awaited<ReturnType<typeof requireCampaign>>;
type AnnotatorItem = { topic: string; grades: Map<number, number> };

/** Every annotator's grades, and every item's grades by annotator. */
function gradesByAnnotator(rows: Awaited<ReturnType<typeof listAnnotatorGrades>>) {
  const byUser = new Map<number, MutableGrades>();
  const byItem = new Map<number, AnnotatorItem>();
  for (const r of rows) {
    let g = byUser.get(r.userId);
    if (!g) byUser.set(r.userId, (g = new Map()));
    put(g, r.topicId, r.docId, r.grade);
    let item = byItem.get(r.itemId);
    if (!item) byItem.set(r.itemId, (item = { topic: r.topicId, grades: new Map() }));
    item.grades.set(r.userId, r.grade);
  }
  return { byUser, items: [...byItem.values()] };
}

/** Each pair of annotators over the items both labelled. */
async function annotatorPairs(
  users: readonly number[],
  names: readonly string[],
  byUser: ReadonlyMap<number, MutableGrades>,
  scale: GradeScale,
) {
  const pairwise = [];
  for (let i = 0; i < users.length; i++) {
    for (let j = i + 1; j < users.length; j++) {
      const a = names[i]!;
      const b = names[j]!;
      pairwise.push({
        a,
        b,
        ...(await pairAgreement(
          byUser.get(users[i]!)!,
          byUser.get(users[j]!)!,
          scale,
          `${a} and ${b} have labelled no item in common`,
        )),
      });
    }
  }
  return pairwise;
}

/** All annotators at once (Fleiss' kappa over full items, Krippendorff's alpha), overall and per topic. */
function annotatorsTogether(
  campaign: CampaignRow,
  users: readonly number[],
  items: readonly AnnotatorItem[],
) {
  const alphaOver = (
    subset: readonly AnnotatorItem[],
    level: 'nominal' | 'ordinal' | 'interval',
  ) =>
    users.length === 0 || subset.length === 0
      ? Number.NaN
      : krippendorffAlpha(
          users.map((u) => subset.map((it) => it.grades.get(u) ?? null)),
          level,
        );
  const full = items.filter((it) => it.grades.size === campaign.overlap && campaign.overlap >= 2);
  const labels = campaign.grades.map((g) => g.grade);
  const slots = Array.from({ length: campaign.overlap }, (_, k) =>
    full.map((it) => [...it.grades.values()][k]!),
  );
  const fleiss = full.length > 0 ? fleissKappaFromLabels(slots, labels) : Number.NaN;
  const topics = [...new Set(items.map((it) => it.topic))].sort();
  const perTopic = topics.map((topic) => {
    const subset = items.filter((it) => it.topic === topic && it.grades.size >= 2);
    return {
      topic,
      items: subset.length,
      tooFew: subset.length < MIN_TOPIC_ITEMS,
      krippendorffAlpha: alphaOver(subset, 'ordinal'),
    };
  });
  const overall = {
    items: items.filter((it) => it.grades.size >= 2).length,
    fleissKappa: { items: full.length, value: fleiss },
    krippendorffAlpha: {
      nominal: alphaOver(items, 'nominal'),
      ordinal: alphaOver(items, 'ordinal'),
      interval: alphaOver(items, 'interval'),
    },
  };
  return { overall, perTopic };
}

/** The campaign's labels against another label set, topic by topic (one topic: nothing to resample). */
async function topicAgreements(campaignGrades: Grades, otherGrades: Grades, scale: GradeScale) {
  const rows: TopicAgreement[] = [];
  for (const topic of [...campaignGrades.keys()].sort()) {
    if (shared(only(campaignGrades, topic), only(otherGrades, topic)) === 0) continue;
    const r = await inSlices(
      agreementSteps(only(campaignGrades, topic), only(otherGrades, topic), scale, undefined, {
        samples: 0,
      }),
    );
    rows.push({
      topic,
      n: r.n,
      tooFew: r.n < MIN_TOPIC_ITEMS,
      exactAgreement: r.exactAgreement,
      cohenKappa: r.cohenKappa.unweighted,
      krippendorffAlpha: r.krippendorffAlpha.ordinal,
    });
  }
  return rows;
}

/** The campaign's labels against each label set it is compared with. */
async function comparedWith(db: Queryable, campaign: CampaignRow, scale: GradeScale) {
  const campaignGrades = await getLabelGrades(db, campaign.labelSetId);
  const compareWith = [];
  for (const setId of compareWithIds(campaign)) {
    const other = await getLabelSet(db, setId);
    if (!other) continue;
    const otherGrades = inScale(await getLabelGrades(db, setId), scale);
    const overall = await pairAgreement(
      campaignGrades,
      otherGrades,
      scale,
      shared(campaignGrades, campaignGrades) === 0
        ? 'the campaign has no labels yet'
        : `"${other.name}" grades none of the items the campaign has labelled`,
    );
    compareWith.push({
      labelSet: { id: other.id, name: other.name },
      ...overall,
      perTopic: await topicAgreements(campaignGrades, otherGrades, scale),
    });
  }
  return compareWith;
}

/** The campaign's agreement report. */
export async function campaignAgreement(db: Queryable, id: number): Promise<CampaignAgreement> {
  const campaign = await requireCampaign(db, id);
  const set = await getLabelSet(db, campaign.labelSetId);
  const scale: GradeScale = { min: set?.scaleMin ?? 0, max: set?.scaleMax ?? 1 };
  if (scale.min === scale.max) scale.max = scale.min + 1;
  const names = new Map((await listUsers(db)).map((u) => [u.id, u.name]));
  const { byUser, items } = gradesByAnnotator(await listAnnotatorGrades(db, campaign.id));
  const users = [...byUser.keys()].sort((a, b) => a - b);
  const people = users.map((u) => ({
    id: u,
    name: names.get(u) ?? String(u),
    labels: [...byUser.get(u)!.values()].reduce((s, d) => s + d.size, 0),
  }));
  const pairwise = await annotatorPairs(
    users,
    people.map((p) => p.name),
    byUser,
    scale,
  );
  const together = annotatorsTogether(campaign, users, items);
  return {
    campaign: { id: campaign.id, name: campaign.name, labelSet: set?.name ?? campaign.name },
    scale,
    annotators: { people, pairwise, overall: together.overall, perTopic: together.perTopic },
    compareWith: await comparedWith(db, campaign, scale),
  };
}
