// What a new campaign is made of, checked before anything is written: its title, its size,
// its grade scale (given, or a judge template's) and how its items are sampled.
import { getLabelGrades, type CampaignGrade, type JsonObject, type Queryable } from '@assay/db';
import { loadJudgeTemplates } from '@assay/judge';
import { gradeScaleProblem } from '@assay/trec';
import type { CampaignCandidate, CampaignSampling } from './sampling.js';
import type { CollectionPoolSpec } from '../catalog/pools.js';
import { PlatformError } from '../core/errors.js';
import { resolveLabelSet, type CollectionRef, type resolveCollection } from '../core/resolve.js';
import { defaultJudgesDir } from '../judging/templates.js';

/** How a campaign picks its items, naming label sets by name or id. */
export type CampaignSamplingSpec =
  | { mode: 'all' }
  | { mode: 'random'; perTopic: number; seed?: number }
  | { mode: 'stratified'; labelSet: string | number; perGrade: number; seed?: number }
  | { mode: 'disagreement'; labelSets: Array<string | number>; limit?: number }
  | { mode: 'topics'; topics: number; seed?: number };

/** What POST /api/collections/{c}/campaigns and the CLI give. */
export interface CreateCampaignInput {
  collection: CollectionRef;
  name: string;
  /** Items from a pool of stored runs … */
  pool?: CollectionPoolSpec;
  /** … or listed explicitly. */
  items?: Array<{ topic: string; docno: string }>;
  /** Judge template whose scale, grade labels and rubric the campaign uses. */
  judge?: string;
  /** Scale and rubric given directly (override the template's). */
  scale?: { min: number; max: number };
  gradeLabels?: Record<string, string>;
  rubric?: string;
  /** Users (id or name) who label. */
  annotators: Array<string | number>;
  /** Each item goes to this many annotators (default 1). */
  overlap?: number;
  sampling?: CampaignSamplingSpec;
  /** Label sets the campaign's labels are compared with. */
  compareWith?: Array<string | number>;
  /** Annotators never see other label sets (default true). */
  blind?: boolean;
  /** What annotators see of the campaign instead of its name (default: the name). */
  title?: string;
  /**
   * Serve each annotator one topic's items before the next topic's (default false: the
   * sampling's order, which may interleave topics). Stored as `settings.order: 'topic'`.
   */
  topicByTopic?: boolean;
  /**
   * How long keys are ignored after a new item appears, in ms (default 250, 0: never), so
   * no grade is given to an item nobody saw.
   */
  inputLockMs?: number;
  /** Where judge templates live (default: the repository's judges/). */
  judgesDir?: string;
}

export const DEFAULT_SEED = 42;

/** A campaign title: what annotators see; not blank, at most 200 characters. */
export function checkTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed === '' || trimmed.length > 200)
    throw new PlatformError('invalid_input', 'a campaign title has 1 to 200 characters', {
      field: 'title',
    });
  return trimmed;
}

/**
 * The most items one campaign holds: more than people label in a season (a TREC track's
 * assessors judge some tens of thousands), and a bound on what creating one costs.
 */
export const MAX_CAMPAIGN_ITEMS = 100_000;

export function checkCampaignSize(items: number, verb: string): void {
  if (items > MAX_CAMPAIGN_ITEMS)
    throw new PlatformError(
      'invalid_input',
      `a campaign holds at most ${MAX_CAMPAIGN_ITEMS} items; this one ${verb} ${items}: sample fewer (random perTopic, stratified perGrade, disagreement limit) or split it into several campaigns`,
      { cap: 'MAX_CAMPAIGN_ITEMS', limit: MAX_CAMPAIGN_ITEMS },
    );
}

/** The listed items as candidates, a step per item; invalid_input for one listed twice. */
export function* distinctItems(
  items: ReadonlyArray<{ topic: string; docno: string }>,
): Generator<void, CampaignCandidate[], void> {
  const seen = new Set<string>();
  const candidates: CampaignCandidate[] = [];
  for (const item of items) {
    const key = JSON.stringify([item.topic, item.docno]);
    if (seen.has(key))
      throw new PlatformError('invalid_input', `item ${item.topic} ${item.docno} is listed twice`);
    seen.add(key);
    candidates.push({ topicId: item.topic, docId: item.docno });
    if (candidates.length % 1024 === 0) yield;
  }
  return candidates;
}

export function campaignScale(input: CreateCampaignInput): {
  scale: { min: number; max: number };
  grades: CampaignGrade[];
  rubric: string;
} {
  let scale = input.scale;
  let labels = input.gradeLabels;
  let rubric = input.rubric;
  if (input.judge !== undefined) {
    const templates = loadJudgeTemplates(input.judgesDir ?? defaultJudgesDir());
    const template = templates.get(input.judge);
    if (!template)
      throw new PlatformError(
        'not_found',
        `no judge "${input.judge}" (known: ${[...templates.keys()].join(', ')})`,
      );
    scale ??= template.scale;
    labels ??= template.labels;
    rubric ??= [
      template.description,
      ...Object.entries(template.labels ?? {}).map(([g, text]) => `${g}: ${text}`),
    ].join('\n');
  }
  if (!scale)
    throw new PlatformError(
      'invalid_input',
      'a campaign needs a grade scale: name a judge template (it has one) or give a scale {min, max}',
    );
  const problem = gradeScaleProblem(scale.min, scale.max);
  if (problem) throw new PlatformError('invalid_input', problem, { field: 'scale' });
  if (scale.max - scale.min > 20)
    throw new PlatformError('invalid_input', 'a campaign scale has at most 21 grades');
  const grades: CampaignGrade[] = [];
  for (let g = scale.min; g <= scale.max; g++)
    grades.push({ grade: g, label: labels?.[String(g)] ?? String(g) });
  return { scale, grades, rubric: rubric ?? '' };
}

export async function resolveSampling(
  db: Queryable,
  collection: Awaited<ReturnType<typeof resolveCollection>>,
  spec: CampaignSamplingSpec,
): Promise<{ sampling: CampaignSampling; stored: JsonObject }> {
  switch (spec.mode) {
    case 'all':
      return { sampling: { mode: 'all' }, stored: { mode: 'all' } };
    case 'random': {
      const seed = spec.seed ?? DEFAULT_SEED;
      return {
        sampling: { mode: 'random', perTopic: spec.perTopic, seed },
        stored: { mode: 'random', perTopic: spec.perTopic, seed },
      };
    }
    case 'stratified': {
      const set = await resolveLabelSet(db, collection, spec.labelSet);
      const seed = spec.seed ?? DEFAULT_SEED;
      return {
        sampling: {
          mode: 'stratified',
          perGrade: spec.perGrade,
          seed,
          grades: await getLabelGrades(db, set.id),
        },
        stored: { mode: 'stratified', labelSet: set.id, perGrade: spec.perGrade, seed },
      };
    }
    case 'topics': {
      const seed = spec.seed ?? DEFAULT_SEED;
      if (!(spec.topics > 0) || (spec.topics >= 1 && !Number.isInteger(spec.topics)))
        throw new PlatformError(
          'invalid_input',
          'topics must be a whole number of topics or a fraction in (0, 1)',
        );
      return {
        sampling: { mode: 'topics', topics: spec.topics, seed },
        stored: { mode: 'topics', topics: spec.topics, seed },
      };
    }
    case 'disagreement': {
      if (spec.labelSets.length < 2)
        throw new PlatformError(
          'invalid_input',
          'disagreement-first sampling needs two label sets to compare',
        );
      const sets = [];
      for (const ref of spec.labelSets) sets.push(await resolveLabelSet(db, collection, ref));
      return {
        sampling: {
          mode: 'disagreement',
          sets: await Promise.all(sets.map((s) => getLabelGrades(db, s.id))),
          ...(spec.limit === undefined ? {} : { limit: spec.limit }),
        },
        stored: {
          mode: 'disagreement',
          labelSets: sets.map((s) => s.id),
          ...(spec.limit === undefined ? {} : { limit: spec.limit }),
        },
      };
    }
  }
}
