import { describe, expect, it } from 'vitest';
import { consensusLabels, type GradeMap } from '@assay/stats';

/** Builds a label set from `topic doc grade` triples. */
function set(...triples: Array<[string, string, number]>): GradeMap {
  const out = new Map<string, Map<string, number>>();
  for (const [t, d, g] of triples) {
    if (!out.has(t)) out.set(t, new Map());
    out.get(t)!.set(d, g);
  }
  return out;
}

const grade = (r: { labels: Map<string, Map<string, number>> }, t: string, d: string) =>
  r.labels.get(t)?.get(d);

// Three judges on five items of topic 1 (and one of topic 2 only judge C has):
//        a  b  c  d  e
//   A    0  1  3  2  1
//   B    0  2  3  0  -1 (pooled, unjudged)
//   C    0  2  1  3  2        and 2/x = 3
const A = set(['1', 'a', 0], ['1', 'b', 1], ['1', 'c', 3], ['1', 'd', 2], ['1', 'e', 1]);
const B = set(['1', 'a', 0], ['1', 'b', 2], ['1', 'c', 3], ['1', 'd', 0], ['1', 'e', -1]);
const C = set(
  ['1', 'a', 0],
  ['1', 'b', 2],
  ['1', 'c', 1],
  ['1', 'd', 3],
  ['1', 'e', 2],
  ['2', 'x', 3],
);

describe('consensusLabels', () => {
  it('majority: the most frequent grade, ties to the lower grade by default', () => {
    const r = consensusLabels([A, B, C], { method: 'majority' });
    expect(grade(r, '1', 'a')).toBe(0); // 0,0,0
    expect(grade(r, '1', 'b')).toBe(2); // 1,2,2
    expect(grade(r, '1', 'c')).toBe(3); // 3,3,1
    expect(grade(r, '1', 'd')).toBe(0); // 2,0,3: three-way tie → lowest
    expect(grade(r, '1', 'e')).toBe(1); // 1,2 (B's -1 is no vote): tie → lower
    expect(grade(r, '2', 'x')).toBe(3);
    expect(r).toMatchObject({ items: 6, tooFewVotes: 0, disputed: 4, tieBroken: 2 });
    const high = consensusLabels([A, B, C], { method: 'majority', tie: 'high' });
    expect(grade(high, '1', 'd')).toBe(3);
    expect(grade(high, '1', 'e')).toBe(2);
  });

  it('mean: rounded to the nearest grade, halfway by the tie rule', () => {
    const r = consensusLabels([A, B, C], { method: 'mean' });
    expect(grade(r, '1', 'b')).toBe(2); // 5/3 = 1.67
    expect(grade(r, '1', 'c')).toBe(2); // 7/3 = 2.33
    expect(grade(r, '1', 'd')).toBe(2); // 5/3
    expect(grade(r, '1', 'e')).toBe(1); // 3/2 = 1.5 → down
    expect(r.tieBroken).toBe(1);
    expect(grade(consensusLabels([A, B, C], { method: 'mean', tie: 'high' }), '1', 'e')).toBe(2);
  });

  it('median: the middle vote; an even count takes the lower or upper median', () => {
    const r = consensusLabels([A, B, C], { method: 'median' });
    expect(grade(r, '1', 'b')).toBe(2); // 1,2,2
    expect(grade(r, '1', 'c')).toBe(3); // 1,3,3
    expect(grade(r, '1', 'd')).toBe(2); // 0,2,3
    expect(grade(r, '1', 'e')).toBe(1); // 1,2 → lower median
    expect(grade(consensusLabels([A, B, C], { method: 'median', tie: 'high' }), '1', 'e')).toBe(2);
  });

  it('leaves out items with fewer than minVotes votes', () => {
    const r = consensusLabels([A, B, C], { method: 'majority', minVotes: 3 });
    expect(r.items).toBe(4);
    expect(r.tooFewVotes).toBe(2); // 1/e has two votes, 2/x one
    expect(grade(r, '1', 'e')).toBeUndefined();
    expect(grade(r, '2', 'x')).toBeUndefined();
  });

  it('an item with only unjudged marks gets no label', () => {
    const r = consensusLabels([set(['1', 'a', -1]), set(['1', 'a', -1])], { method: 'mean' });
    expect(r.items).toBe(0);
    expect(r.tooFewVotes).toBe(1);
  });

  it('refuses no sets, a bad minVotes and non-integer grades', () => {
    expect(() => consensusLabels([], { method: 'mean' })).toThrow(/at least one/);
    expect(() => consensusLabels([A], { method: 'mean', minVotes: 0 })).toThrow(/minVotes/);
    expect(() => consensusLabels([set(['1', 'a', 1.5])], { method: 'mean' })).toThrow(/integer/);
  });
});
