// The parts a judge worker run is made of, each on its own: waking the loop, stopping,
// watching the database, counting an endpoint out of reach, and the run's counters.
import type { LlmCallRecord } from '@assay/llm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EndpointGuard } from '../src/judging/endpoint-guard.js';
import type { JudgeTaskResult } from '../src/judging/task.js';
import { Changes, DatabaseWatch, WorkerStop } from '../src/judging/worker-stop.js';
import { WorkerTally } from '../src/judging/worker-tally.js';

/** A paid call of `cost` USD (undefined: no price) with 100 + 10 tokens. */
function call(cost?: number): LlmCallRecord {
  const record: LlmCallRecord = {
    hash: 'a'.repeat(64),
    model: 'm',
    request: { model: 'm', messages: [] },
    response: '{}',
    promptTokens: 100,
    completionTokens: 10,
    latencyMs: 1,
    createdAt: '2024-01-01T00:00:00.000Z',
  };
  if (cost !== undefined) record.costUsd = cost;
  return record;
}

const unreachable = (paidCalls: LlmCallRecord[] = []): JudgeTaskResult => ({
  kind: 'release',
  why: 'endpoint',
  error: 'connection failed: cannot reach http://x/v1 (ECONNREFUSED)',
  paidCalls,
});
const labelled = (paidCalls: LlmCallRecord[] = [call(0.01)]): JudgeTaskResult => ({
  kind: 'label',
  label: { grade: 1, producedBy: 'm' },
  cached: false,
  paidCalls,
});
const stopped: JudgeTaskResult = { kind: 'release', why: 'stopped', paidCalls: [] };

describe('Changes', () => {
  it('settles the promise handed out before a change, and only that one', async () => {
    const changes = new Changes();
    const before = changes.next;
    let settled = false;
    void before.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    changes.notify();
    await before;
    expect(settled).toBe(true);
    // Taken after the change: waits for the next one.
    const after = changes.next;
    expect(after).not.toBe(before);
    let settledAfter = false;
    void after.then(() => (settledAfter = true));
    await Promise.resolve();
    expect(settledAfter).toBe(false);
    changes.notify();
    await after;
    expect(settledAfter).toBe(true);
  });
});

describe('WorkerStop', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('keeps the first reason, and is done when never stopped', () => {
    let told = 0;
    const stop = new WorkerStop({ onStop: () => told++ });
    expect(stop.stoppedBy).toBe('done');
    expect(stop.stop.aborted).toBe(false);
    stop.request('endpoint');
    stop.request('signal');
    stop.ended('budget');
    expect(stop.stoppedBy).toBe('endpoint');
    expect(stop.stop.aborted).toBe(true);
    // Told once: the second request finds it stopping already.
    expect(told).toBe(1);
    // Not a stop by signal: nothing in flight is ever cut off.
    vi.advanceTimersByTime(60_000);
    expect(stop.cancel.aborted).toBe(false);
    expect(stop.abandon.aborted).toBe(false);
  });

  it('after a stop by signal, cuts off what is in flight cancelAfterMs later', () => {
    const stop = new WorkerStop({ cancelAfterMs: 5_000 });
    const outside = new AbortController();
    const unfollow = stop.follow(outside.signal);
    outside.abort();
    expect(stop.stoppedBy).toBe('signal');
    vi.advanceTimersByTime(4_999);
    expect(stop.cancel.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(stop.cancel.aborted).toBe(true);
    expect(stop.abandon.aborted).toBe(true);
    unfollow();
    stop.dispose();
  });

  it('stops at once for a signal that is already aborted; the first failure wins', () => {
    const stop = new WorkerStop();
    stop.follow(AbortSignal.abort());
    expect(stop.stoppedBy).toBe('signal');
    expect(stop.fatal).toBeUndefined();
    const first = new Error('first');
    stop.fail(first);
    stop.fail(new Error('second'));
    expect(stop.fatal).toEqual({ error: first });
  });

  it('ends for the budget only when not stopped', () => {
    const stop = new WorkerStop();
    stop.ended('budget');
    expect(stop.stoppedBy).toBe('budget');
    expect(stop.stop.aborted).toBe(false);
  });
});

describe('DatabaseWatch', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('says once that the database is out of reach and gives up after giveUpMs in a row', () => {
    const notices: string[] = [];
    const gaveUp: unknown[] = [];
    const watch = new DatabaseWatch({
      giveUpMs: 10_000,
      onNotice: (m) => notices.push(m),
      onGiveUp: (error) => gaveUp.push(error),
    });
    watch.outOfReach(new Error('down 1'), 'claiming waits');
    vi.advanceTimersByTime(6_000);
    // Still out of reach: the count runs from the first failure, the notice is not repeated.
    watch.outOfReach(new Error('down 2'), 'results wait');
    vi.advanceTimersByTime(3_999);
    expect(gaveUp).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(gaveUp).toEqual([new Error('down 2')]);
    expect(notices).toEqual(['claiming waits']);
  });

  it('starts the count again once the database was reached, and never gives up without a limit', () => {
    const gaveUp: unknown[] = [];
    const watch = new DatabaseWatch({ giveUpMs: 10_000, onGiveUp: (e) => gaveUp.push(e) });
    watch.outOfReach(new Error('down'), 'waits');
    vi.advanceTimersByTime(9_000);
    watch.reached();
    watch.outOfReach(new Error('down again'), 'waits');
    vi.advanceTimersByTime(9_000);
    expect(gaveUp).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(gaveUp).toEqual([new Error('down again')]);

    const patient = new DatabaseWatch({ onGiveUp: (e) => gaveUp.push(e) });
    patient.outOfReach(new Error('down'), 'waits');
    vi.advanceTimersByTime(24 * 3_600_000);
    expect(gaveUp).toHaveLength(1);
  });
});

describe('EndpointGuard', () => {
  it('stops a run at the third item in a row that found no endpoint', () => {
    const guard = new EndpointGuard({ limit: 3, follow: false, firstPauseMs: 30_000 });
    expect(guard.judged(unreachable(), false)).toEqual({ action: 'go' });
    expect(guard.judged(unreachable(), false)).toEqual({ action: 'go' });
    expect(guard.judged(unreachable(), false)).toEqual({
      action: 'stop',
      why: 'connection failed: cannot reach http://x/v1 (ECONNREFUSED) (3 items in a row; the items went back to pending)',
    });
  });

  it('counts items whose calls timed out as it counts those that found no endpoint', () => {
    const timedOut = (): JudgeTaskResult => ({
      kind: 'release',
      why: 'timeout',
      error: 'timed out: Request timed out. (http://x/v1)',
      paidCalls: [],
    });
    const guard = new EndpointGuard({ limit: 3, follow: false, firstPauseMs: 30_000 });
    expect(guard.judged(timedOut(), false)).toEqual({ action: 'go' });
    expect(guard.judged(unreachable(), false)).toEqual({ action: 'go' });
    expect(guard.judged(timedOut(), false)).toEqual({
      action: 'stop',
      why: 'timed out: Request timed out. (http://x/v1) (3 items in a row timed out; the items went back to pending)',
      timedOut: true,
    });
  });

  it('breaks the row on an answer, but not on an item put back because the run stops', () => {
    const guard = new EndpointGuard({ limit: 3, follow: false, firstPauseMs: 30_000 });
    guard.judged(unreachable(), false);
    guard.judged(unreachable(), false);
    // An item answered: the row starts over.
    guard.judged(labelled(), false);
    guard.judged(unreachable(), false);
    guard.judged(unreachable(), false);
    // Put back unanswered because the run stops: the row goes on (2 + 0) …
    guard.judged(stopped, false);
    // … and the next one is the third.
    expect(guard.judged(unreachable(), false).action).toBe('stop');
    // A run that is stopping already is not stopped again.
    const other = new EndpointGuard({ limit: 1, follow: false, firstPauseMs: 30_000 });
    expect(other.judged(unreachable(), true)).toEqual({ action: 'go' });
  });

  it('pauses a following worker, doubling the pause up to 10 min, and starts over after an answer', () => {
    let now = 1_000_000;
    const guard = new EndpointGuard({
      limit: 1,
      follow: true,
      firstPauseMs: 30_000,
      now: () => now,
    });
    const why =
      'connection failed: cannot reach http://x/v1 (ECONNREFUSED) (1 items in a row; the items went back to pending)';
    expect(guard.judged(unreachable(), false)).toEqual({
      action: 'pause',
      notice: `${why}; trying again in 30 s`,
      resumesAt: 1_030_000,
    });
    expect(guard.paused).toBe(true);
    // While paused, further items change nothing.
    expect(guard.judged(unreachable(), false)).toEqual({ action: 'go' });
    now = 1_030_000;
    expect(guard.paused).toBe(false);
    // 30 s, 60 s, 120 s, 240 s, 480 s, then 600 s at most.
    const pauses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const verdict = guard.judged(unreachable(), false);
      if (verdict.action !== 'pause') throw new Error(`expected a pause, got ${verdict.action}`);
      pauses.push(verdict.resumesAt - now);
      now = verdict.resumesAt;
    }
    expect(pauses).toEqual([60_000, 120_000, 240_000, 480_000, 600_000, 600_000]);
    // An item that got an answer: the next pause is the first again.
    guard.judged(labelled(), false);
    const verdict = guard.judged(unreachable(), false);
    expect(verdict).toMatchObject({ action: 'pause', resumesAt: now + 30_000 });
  });
});

describe('WorkerTally', () => {
  it('counts tokens and cost of the paid calls, unknown costs apart, and what each write did', () => {
    const tally = new WorkerTally();
    tally.paid(labelled([call(0.01), call(0.03)]));
    tally.paid(labelled([call()]));
    tally.paid({
      kind: 'label',
      label: { grade: 2, producedBy: 'm' },
      cached: true,
      paidCalls: [],
    });
    expect(tally.progress).toMatchObject({
      paidCalls: 3,
      unpricedCalls: 1,
      cachedAnswers: 1,
      promptTokens: 300,
      completionTokens: 30,
    });
    expect(tally.progress.costUsd).toBeCloseTo(0.04, 12);
    // Average of the priced and unpriced paid calls: 0.04 / 3; two more in flight.
    expect(tally.expectedCost(2)).toBeCloseTo(0.04 + (2 * 0.04) / 3, 12);

    const key = { jobId: 1, topicId: 'q', docId: 'd' };
    tally.wrote(key, labelled(), 'written');
    tally.wrote(key, labelled(), 'lost');
    tally.wrote(key, labelled(), 'unwritten');
    tally.wrote(key, stopped, 'written');
    tally.wrote(key, labelled(), 'failed');
    tally.wrote(key, { kind: 'fail', failure: { error: 'unreadable' }, paidCalls: [] }, 'written');
    expect(tally.progress).toMatchObject({ labelled: 1, lostLeases: 1, putBack: 2, failed: 2 });
    expect(tally.failures).toEqual([
      { ...key, reason: 'the answer could not be stored' },
      { ...key, reason: 'unreadable' },
    ]);
  });
});
