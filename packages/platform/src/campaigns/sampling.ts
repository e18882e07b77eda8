// Which items an annotation campaign labels, in which order, and who labels each one.
// Pure functions: the use-case reads the pool and label sets, these decide.
import { createRng, type Rng } from '@assay/stats';
import { sampleSize, sampleUnits } from '../analysis/ppi-sample.js';

/** A (topic, document) a campaign may label. */
export interface CampaignCandidate {
  topicId: string;
  docId: string;
}

/** Topic → docno → grade of one label set. */
export type CandidateGrades = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** How a campaign samples its items from the candidates. */
export type CampaignSampling =
  | { mode: 'all' }
  | { mode: 'random'; perTopic: number; seed: number }
  | { mode: 'stratified'; perGrade: number; seed: number; grades: CandidateGrades }
  | { mode: 'disagreement'; sets: readonly CandidateGrades[]; limit?: number }
  | { mode: 'topics'; topics: number; seed: number };

function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.nextInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Groups items by key in first-seen key order. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    let group = groups.get(k);
    if (!group) groups.set(k, (group = []));
    group.push(item);
  }
  return groups;
}

/** Takes one item from each group in turn, so a partial budget covers every group. */
export function interleave<T>(groups: ReadonlyArray<readonly T[]>): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...groups.map((g) => g.length));
  for (let i = 0; i < longest; i++) for (const g of groups) if (i < g.length) out.push(g[i]!);
  return out;
}

/**
 * The items with each topic's items together, topics in the order their first item comes
 * and each topic's items in their order: served so, an annotator judges one topic's items
 * before the next topic's (as TREC assessors do), also when overlap gives them a subset.
 */
export function groupByTopic<T extends CampaignCandidate>(items: readonly T[]): T[] {
  return [...groupBy(items, (i) => i.topicId).values()].flat();
}

/**
 * How far the label sets that grade an item disagree: the spread of their grades
 * (highest − lowest), or −1 when fewer than two of them grade it.
 */
export function disagreement(item: CampaignCandidate, sets: readonly CandidateGrades[]): number {
  const grades: number[] = [];
  for (const set of sets) {
    const g = set.get(item.topicId)?.get(item.docId);
    if (g !== undefined && g >= 0) grades.push(g);
  }
  if (grades.length < 2) return -1;
  return Math.max(...grades) - Math.min(...grades);
}

/**
 * The campaign's items in labelling order. `all` keeps the candidates' order; `random`
 * takes `perTopic` items of each topic with a seeded shuffle; `stratified` takes
 * `perGrade` items of each grade of a label set (items it does not grade form their own
 * stratum); both interleave their groups. `disagreement` puts the items the given label
 * sets disagree on most first (ties keep the candidates' order), optionally only `limit`.
 * `topics` keeps every candidate of a seeded uniform sample of the topics (a count, or a
 * fraction in (0, 1)): the human part of a prediction-powered estimate.
 */
export function sampleCampaignItems(
  candidates: readonly CampaignCandidate[],
  sampling: CampaignSampling,
): CampaignCandidate[] {
  switch (sampling.mode) {
    case 'all':
      return [...candidates];
    case 'random': {
      const rng = createRng(sampling.seed);
      const groups = [...groupBy(candidates, (c) => c.topicId).values()];
      return interleave(groups.map((g) => shuffled(g, rng).slice(0, sampling.perTopic)));
    }
    case 'stratified': {
      const rng = createRng(sampling.seed);
      const groups = groupBy(candidates, (c) => {
        const g = sampling.grades.get(c.topicId)?.get(c.docId);
        return g === undefined ? 'none' : String(g);
      });
      const keys = [...groups.keys()].sort((a, b) =>
        a === 'none' ? 1 : b === 'none' ? -1 : Number(a) - Number(b),
      );
      return interleave(keys.map((k) => shuffled(groups.get(k)!, rng).slice(0, sampling.perGrade)));
    }
    case 'topics': {
      // For estimation (assay ppi): whole topics, chosen as `assay ppi sample --topics` does.
      const topics = [...new Set(candidates.map((c) => c.topicId))];
      const chosen = new Set(
        sampleUnits(topics, sampleSize(sampling.topics, topics.length), sampling.seed),
      );
      return candidates.filter((c) => chosen.has(c.topicId));
    }
    case 'disagreement': {
      const scored = candidates.map((c, index) => ({
        c,
        index,
        d: disagreement(c, sampling.sets),
      }));
      scored.sort((a, b) => b.d - a.d || a.index - b.index);
      const ordered = scored.map((s) => s.c);
      return sampling.limit === undefined ? ordered : ordered.slice(0, sampling.limit);
    }
  }
}

/**
 * The annotators (indexes into the campaign's list of `annotators`) item `index` goes to:
 * `overlap` consecutive annotators starting at index·overlap, wrapping round, so every
 * annotator gets the same number of items (±1) and each item `overlap` different people.
 */
export function assignAnnotators(index: number, annotators: number, overlap: number): number[] {
  if (overlap > annotators)
    throw new RangeError(`overlap ${overlap} needs at least ${overlap} annotators`);
  const start = (index * overlap) % annotators;
  return Array.from({ length: overlap }, (_, j) => (start + j) % annotators);
}
