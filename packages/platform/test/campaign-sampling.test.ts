import { describe, expect, it } from 'vitest';
import {
  assignAnnotators,
  disagreement,
  groupByTopic,
  interleave,
  sampleCampaignItems,
  type CampaignCandidate,
} from '../src/campaigns/sampling.js';

const items = (spec: string): CampaignCandidate[] =>
  spec.split(' ').map((pair) => {
    const [topicId, docId] = pair.split('/') as [string, string];
    return { topicId, docId };
  });
const keys = (list: CampaignCandidate[]) => list.map((c) => `${c.topicId}/${c.docId}`);
const grades = (spec: Record<string, number>) => {
  const map = new Map<string, Map<string, number>>();
  for (const [key, g] of Object.entries(spec)) {
    const [t, d] = key.split('/') as [string, string];
    if (!map.has(t)) map.set(t, new Map());
    map.get(t)!.set(d, g);
  }
  return map;
};

describe('groupByTopic', () => {
  it('puts each topic’s items together, topics in first-seen order, items in their order', () => {
    expect(keys(groupByTopic(items('2/a 1/b 2/c 3/d 1/e 2/f')))).toEqual([
      '2/a',
      '2/c',
      '2/f',
      '1/b',
      '1/e',
      '3/d',
    ]);
  });
});

describe('assignAnnotators', () => {
  it('gives each item `overlap` consecutive annotators, round robin', () => {
    // 3 annotators, overlap 2: items start at 0, 2, 4 mod 3 = 0, 2, 1.
    expect([0, 1, 2, 3].map((i) => assignAnnotators(i, 3, 2))).toEqual([
      [0, 1],
      [2, 0],
      [1, 2],
      [0, 1],
    ]);
    // Every annotator gets the same number of items over a full cycle.
    const counts = [0, 0, 0];
    for (let i = 0; i < 9; i++) for (const a of assignAnnotators(i, 3, 2)) counts[a]!++;
    expect(counts).toEqual([6, 6, 6]);
  });

  it('refuses an overlap larger than the panel', () => {
    expect(() => assignAnnotators(0, 2, 3)).toThrow(/at least 3 annotators/);
  });
});

describe('sampleCampaignItems', () => {
  const pool = items('1/a 2/x 1/b 2/y 1/c 2/z 3/m');

  it('keeps every item in order with `all`', () => {
    expect(keys(sampleCampaignItems(pool, { mode: 'all' }))).toEqual(keys(pool));
  });

  it('takes n per topic with a seed: the same seed gives the same sample', () => {
    const a = sampleCampaignItems(pool, { mode: 'random', perTopic: 2, seed: 5 });
    const b = sampleCampaignItems(pool, { mode: 'random', perTopic: 2, seed: 5 });
    expect(keys(a)).toEqual(keys(b));
    // Topics 1 and 2 give two items each, topic 3 its only one; topics interleave.
    expect(a.map((c) => c.topicId)).toEqual(['1', '2', '3', '1', '2']);
    expect(new Set(keys(a)).size).toBe(5);
    for (const c of a) expect(keys(pool)).toContain(`${c.topicId}/${c.docId}`);
  });

  it('stratifies by the grades of a label set, ungraded items last', () => {
    const g = grades({ '1/a': 0, '1/b': 1, '2/x': 1, '2/y': 0, '1/c': 2 });
    const out = sampleCampaignItems(pool, { mode: 'stratified', perGrade: 1, seed: 1, grades: g });
    // One item of grade 0, one of grade 1, the only grade-2 item, one ungraded.
    expect(out).toHaveLength(4);
    const gradeOf = (c: CampaignCandidate) => g.get(c.topicId)?.get(c.docId);
    expect(out.map(gradeOf)).toEqual([0, 1, 2, undefined]);
  });

  it('puts the items two label sets disagree on most first', () => {
    const a = grades({ '1/a': 0, '1/b': 3, '2/x': 2, '2/y': 1 });
    const b = grades({ '1/a': 0, '1/b': 0, '2/x': 3, '2/y': 1, '1/c': 2 });
    // Spreads: 1/b 3, 2/x 1, then 1/a and 2/y 0, then items graded by fewer than two sets.
    expect(disagreement({ topicId: '1', docId: 'b' }, [a, b])).toBe(3);
    expect(disagreement({ topicId: '1', docId: 'c' }, [a, b])).toBe(-1);
    expect(keys(sampleCampaignItems(pool, { mode: 'disagreement', sets: [a, b] }))).toEqual([
      '1/b',
      '2/x',
      '1/a',
      '2/y',
      '1/c',
      '2/z',
      '3/m',
    ]);
    expect(
      sampleCampaignItems(pool, { mode: 'disagreement', sets: [a, b], limit: 2 }),
    ).toHaveLength(2);
  });

  it('interleaves groups of different lengths', () => {
    expect(interleave([[1, 2, 3], [4], [5, 6]])).toEqual([1, 4, 5, 2, 6, 3]);
  });
});

describe('sampling whole topics for an estimate', () => {
  it('keeps every item of the topics `assay ppi sample` would choose', async () => {
    const { sampleUnits } = await import('../src/analysis/ppi-sample.js');
    const pool = items('1/a 1/b 2/a 3/a 3/b 3/c 4/a 5/a 5/b');
    const chosen = sampleCampaignItems(pool, { mode: 'topics', topics: 2, seed: 7 });
    const topics = sampleUnits(['1', '2', '3', '4', '5'], 2, 7);
    expect(topics).toHaveLength(2);
    expect(keys(chosen)).toEqual(keys(pool.filter((c) => topics.includes(c.topicId))));
    // A fraction of the topics: 0.4 of 5 is 2, the same choice.
    expect(sampleCampaignItems(pool, { mode: 'topics', topics: 0.4, seed: 7 })).toEqual(chosen);
  });
});
