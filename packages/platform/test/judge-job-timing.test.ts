import { describe, expect, it } from 'vitest';
import { judgeJobPace } from '../src/judging/job-timing.js';

const counts = (pending: number, running: number, labelled: number, failed = 0) => ({
  total: pending + running + labelled + failed,
  pending,
  running,
  labelled,
  failed,
  timedOut: 0,
  costUsd: 0,
});
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + seconds * 1000);

describe('judgeJobPace', () => {
  it('is done once nothing is pending or running, with the last finish time and the whole-job rate', () => {
    // 11 items finished from t=10 s to t=30 s: 10 intervals in 20 s.
    const pace = judgeJobPace('active', counts(0, 0, 10, 1), {
      now: at(100),
      finished: 11,
      firstFinishedAt: at(10),
      lastFinishedAt: at(30),
      recentFinishedAt: [at(30), at(29)],
    });
    expect(pace).toEqual({
      status: 'done',
      finishedAt: at(30),
      itemsPerSecond: 0.5,
      etaSeconds: null,
    });
  });

  it('estimates an active job from its latest items up to now', () => {
    // The 6 latest items finished between t=50 s and t=58 s; now is t=60 s: 5 items in 10 s.
    const recent = [58, 56, 54, 52, 51, 50].map(at);
    const pace = judgeJobPace('active', counts(18, 2, 30), {
      now: at(60),
      finished: 30,
      firstFinishedAt: at(1),
      lastFinishedAt: at(58),
      recentFinishedAt: recent,
    });
    // 20 items left at 0.5 items/s: 40 s.
    expect(pace).toEqual({
      status: 'active',
      finishedAt: null,
      itemsPerSecond: 0.5,
      etaSeconds: 40,
    });
  });

  it('has no rate before five items, and no ETA while paused', () => {
    const few = judgeJobPace('active', counts(10, 0, 4), {
      now: at(10),
      finished: 4,
      firstFinishedAt: at(1),
      lastFinishedAt: at(4),
      recentFinishedAt: [4, 3, 2, 1].map(at),
    });
    expect(few).toMatchObject({ status: 'active', itemsPerSecond: null, etaSeconds: null });
    const paused = judgeJobPace('paused', counts(10, 0, 5), {
      now: at(5),
      finished: 5,
      firstFinishedAt: at(1),
      lastFinishedAt: at(5),
      recentFinishedAt: [5, 4, 3, 2, 1].map(at),
    });
    expect(paused).toEqual({
      status: 'paused',
      finishedAt: null,
      itemsPerSecond: 1,
      etaSeconds: null,
    });
  });
});
