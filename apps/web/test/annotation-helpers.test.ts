import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError, failureOf, fromCompareJson } from '../src/lib/api.js';
import { highlight, queryTerms } from '../src/lib/highlight.js';
import {
  handScoreOutbox,
  labelOutbox,
  refusedJson,
  refusedLabelsCsv,
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
  const offline = new ApiError('network', 'the server cannot be reached', 0);
  const revoked = new ApiError('unauthorized', 'unknown or revoked token', 401);
  const gone = new ApiError('not_found', 'no item 7 of yours in campaign 1', 404);

  it('keeps labels until the server confirms them, in order', async () => {
    const outbox = labelOutbox(1);
    outbox.enqueue(label(1, 2));
    outbox.enqueue(label(2, 0));
    outbox.enqueue(label(1, 3)); // a newer grade of item 1 replaces the queued one
    expect(outbox.pending().map((l) => [l.item, l.grade])).toEqual([
      [2, 0],
      [1, 3],
    ]);
    const sent: number[] = [];
    // The connection drops after the first label: the second stays queued.
    let calls = 0;
    const first = await outbox.flush(async (l) => {
      if (calls++ > 0) throw offline;
      sent.push(l.item);
    }, failureOf);
    expect(first).toEqual({ sent: 1, left: 1, refused: 0, stopped: 'offline' });
    expect(
      labelOutbox(1)
        .pending()
        .map((l) => l.item),
    ).toEqual([1]);
    const second = await outbox.flush(async (l) => void sent.push(l.item), failureOf);
    expect(second).toEqual({ sent: 1, left: 0, refused: 0, stopped: null });
    expect(sent).toEqual([2, 1]);
    expect(outbox.pending()).toEqual([]);
  });

  it('keeps every label while the token is refused (401), and sends them after a new sign-in', async () => {
    const outbox = labelOutbox(1);
    for (const [item, grade] of [
      [1, 0],
      [2, 1],
      [3, 2],
    ] as const)
      outbox.enqueue(label(item, grade));
    const result = await outbox.flush(async () => {
      throw revoked;
    }, failureOf);
    expect(result).toEqual({ sent: 0, left: 3, refused: 0, stopped: 'signed-out' });
    // A reload reads the same queue from storage.
    expect(
      labelOutbox(1)
        .pending()
        .map((l) => l.item),
    ).toEqual([1, 2, 3]);
    expect(outbox.refused()).toEqual([]);
    const sent: number[] = [];
    expect(await outbox.flush(async (l) => void sent.push(l.item), failureOf)).toMatchObject({
      sent: 3,
      left: 0,
    });
    expect(sent).toEqual([1, 2, 3]);
  });

  it('sets a label refused for good apart with the reason, sends the rest, and exports it', async () => {
    const outbox = labelOutbox(1);
    outbox.enqueue(label(7, 2));
    outbox.enqueue(label(8, 1));
    const sent: number[] = [];
    const result = await outbox.flush(async (l) => {
      if (l.item === 7) throw gone;
      sent.push(l.item);
    }, failureOf);
    expect(result).toEqual({ sent: 1, left: 0, refused: 1, stopped: null });
    expect(sent).toEqual([8]);
    const refused = labelOutbox(1).refused();
    expect(refused.map((r) => [r.entry.item, r.reason])).toEqual([
      [7, { status: 404, code: 'not_found', message: 'no item 7 of yours in campaign 1' }],
    ]);
    const csv = refusedLabelsCsv(refused).split('\n');
    expect(csv[0]).toBe('campaign,item,grade,seconds,status,code,reason,refused_at');
    expect(csv[1]).toBe(`1,7,2,1,404,not_found,no item 7 of yours in campaign 1,${refused[0]!.at}`);
    expect(JSON.parse(refusedJson(refused))).toEqual(refused);
    outbox.discardRefused();
    expect(outbox.refused()).toEqual([]);
  });

  it('retries what may succeed later: 5xx, 409, 429 and a lost connection', () => {
    for (const status of [500, 503, 409, 429])
      expect(failureOf(new ApiError('x', 'x', status))).toEqual({ kind: 'offline' });
    expect(failureOf(offline)).toEqual({ kind: 'offline' });
    expect(failureOf(revoked)).toEqual({ kind: 'signed-out' });
    expect(failureOf(new ApiError('forbidden', 'admins only', 403))).toEqual({
      kind: 'refused',
      reason: { status: 403, code: 'forbidden', message: 'admins only' },
    });
    // A closed campaign is a 409 that retrying does not cure: shown with its reason.
    const closed = 'campaign closed: the admin has closed this campaign';
    expect(failureOf(new ApiError('conflict', closed, 409))).toEqual({
      kind: 'refused',
      reason: { status: 409, code: 'conflict', message: closed },
    });
  });

  it('keeps hand scores per criterion of an answer, a newer grade replacing the queued one', () => {
    const outbox = handScoreOutbox();
    const score = { responseSet: 'rs', judge: 'answer-quality', topic: 'q1', system: 'a' };
    outbox.enqueue({ ...score, criterion: 'novelty', grade: 1 });
    outbox.enqueue({ ...score, criterion: 'completeness', grade: 2 });
    outbox.enqueue({ ...score, criterion: 'novelty', grade: 4 });
    outbox.enqueue({ ...score, system: 'b', criterion: 'novelty', grade: 0 });
    expect(
      handScoreOutbox()
        .pending()
        .map((s) => [s.system, s.criterion, s.grade]),
    ).toEqual([
      ['a', 'completeness', 2],
      ['a', 'novelty', 4],
      ['b', 'novelty', 0],
    ]);
  });
});

describe('fromCompareJson', () => {
  // As `assay compare --format json` writes the settings of a leaderboard.
  const settings = {
    topicHandling: 'every qrels topic counts',
    test: 't' as const,
    correction: 'holm' as const,
    correctionFamily: 'per measure: all comparisons on that measure',
    alpha: 0.05,
    seed: 42,
    bootstrap: { samples: 10000, level: 0.95, seed: 42 },
    measures: ['map'],
  };
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
        { qrels: 'human', topics: 3, runs: [row('a', 0.5), row('b', 0.4)], pairs: [] },
        { qrels: 'llm', topics: 3, runs: [row('b', 0.6), row('a', 0.2)], pairs: [] },
      ],
      rankCorrelation: { map: { kendallTauB: -1, tauAP: -1, spearman: -1, rbo: 0.5 } },
    });
    expect(result.leaderboards.map((l) => l.comparison.runs.map((r) => r.run))).toEqual([
      ['a', 'b'],
      ['b', 'a'],
    ]);
    expect(result.rankCorrelation?.map?.kendallTauB).toBe(-1);
  });
});
