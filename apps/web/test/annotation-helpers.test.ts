import { beforeEach, describe, expect, it } from 'vitest';
import { fromCompareJson } from '../src/lib/api.js';
import { highlight, queryTerms } from '../src/lib/highlight.js';
import {
  enqueueLabel,
  flushLabels,
  pendingLabels,
  type KeyValueStore,
  type PendingLabel,
} from '../src/lib/outbox.js';

describe('highlight', () => {
  it('marks whole query words in any case, keeping every character of the passage', () => {
    const text = 'Wing flutter: the wings flutter at <b>speed</b>.';
    const segments = highlight(text, 'what is wing flutter');
    expect(segments.map((s) => s.text).join('')).toBe(text);
    expect(segments.filter((s) => s.mark).map((s) => s.text)).toEqual([
      'Wing',
      'flutter',
      'flutter',
    ]);
    // Markup stays plain text in an unmarked segment.
    expect(segments.find((s) => s.text.includes('<b>'))?.mark).toBe(false);
  });

  it('ignores stopwords and one-letter words of the query', () => {
    expect(queryTerms('What is the effect of a shock wave?')).toEqual(['effect', 'shock', 'wave']);
    expect(highlight('no match here', 'zzz')).toEqual([{ text: 'no match here', mark: false }]);
  });
});

describe('outbox', () => {
  beforeEach(() => {
    const store = new Map<string, string>();
    (globalThis as unknown as { localStorage: KeyValueStore }).localStorage = {
      getItem: (k) => store.get(k) ?? null,
      setItem: (k, v) => void store.set(k, v),
      removeItem: (k) => void store.delete(k),
    };
  });

  const label = (item: number, grade: number): PendingLabel => ({
    campaign: 1,
    item,
    grade,
    seconds: 1,
  });

  it('keeps labels until the server confirms them, in order', async () => {
    enqueueLabel(label(1, 2));
    enqueueLabel(label(2, 0));
    enqueueLabel(label(1, 3)); // a newer grade of item 1 replaces the queued one
    expect(pendingLabels(1).map((l) => [l.item, l.grade])).toEqual([
      [2, 0],
      [1, 3],
    ]);
    const offline = new Error('network');
    const sent: number[] = [];
    // The connection drops after the first label: the second stays queued.
    let calls = 0;
    const first = await flushLabels(
      1,
      async (l) => {
        if (calls++ > 0) throw offline;
        sent.push(l.item);
      },
      (e) => e === offline,
    );
    expect(first).toEqual({ sent: 1, left: 1 });
    expect(pendingLabels(1).map((l) => l.item)).toEqual([1]);
    const second = await flushLabels(
      1,
      async (l) => void sent.push(l.item),
      () => true,
    );
    expect(second).toEqual({ sent: 1, left: 0 });
    expect(sent).toEqual([2, 1]);
    expect(pendingLabels(1)).toEqual([]);
  });

  it('drops a label the server refuses for good and reports it', async () => {
    enqueueLabel(label(7, 9));
    const refused: number[] = [];
    const result = await flushLabels(
      1,
      async () => {
        throw new Error('invalid');
      },
      () => false,
      (l) => refused.push(l.item),
    );
    expect(result).toEqual({ sent: 0, left: 0 });
    expect(refused).toEqual([7]);
  });
});

describe('fromCompareJson', () => {
  const settings = { test: 't', correction: 'holm', alpha: 0.05, measures: ['map'] };
  const row = (run: string, map: number) => ({
    run,
    means: { map },
    judgedAt10: 1,
    betterThan: { map: [] },
    differsFrom: { map: [] },
  });

  it('reads one leaderboard (settings and runs at top level)', () => {
    const result = fromCompareJson({
      ...settings,
      qrels: 'human',
      topics: 3,
      runs: [row('a', 0.5)],
    });
    expect(result.leaderboards).toHaveLength(1);
    expect(result.leaderboards[0]).toMatchObject({
      qrels: 'human',
      comparison: { topics: 3, test: 't', measures: ['map'], runs: [{ run: 'a' }] },
    });
    expect(result.rankCorrelation).toBeUndefined();
  });

  it('reads two leaderboards with their rank correlation', () => {
    const result = fromCompareJson({
      ...settings,
      leaderboards: [
        { qrels: 'human', topics: 3, runs: [row('a', 0.5), row('b', 0.4)] },
        { qrels: 'llm', topics: 3, runs: [row('b', 0.6), row('a', 0.2)] },
      ],
      rankCorrelation: { map: { kendallTauB: -1, tauAP: -1 } },
    });
    expect(result.leaderboards.map((l) => l.comparison.runs.map((r) => r.run))).toEqual([
      ['a', 'b'],
      ['b', 'a'],
    ]);
    expect(result.rankCorrelation?.map?.kendallTauB).toBe(-1);
  });
});
