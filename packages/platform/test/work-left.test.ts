// What a judge worker out of work leaves behind, as its summary counts it: items other
// workers hold in the jobs it takes, and the pending items of the jobs it does not take,
// each with the reason.
import { claimJudgeTasks, setJudgeJobEndpoint, setJudgeJobStatus } from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { ensureJudgeJob, judgeWorkLeft } from '../src/index.js';
import { items, job, template } from './judge-worker-fixtures.js';

const HERE = 'http://here:8000/v1';
const THERE = 'http://there:8000/v1';

forEachDatabase('what a judge worker leaves', (t) => {
  it('counts the items other workers hold and names why each other job is not taken', async () => {
    const db = t.db;
    const taken = (await job(db, 'taken', items(4))).job.id;
    const elsewhere = (await job(db, 'elsewhere', items(2))).job.id;
    const paused = (await job(db, 'paused', items(3))).job.id;
    const kept = (
      await ensureJudgeJob(db, {
        collection: 'files',
        labelSet: 'kept',
        template,
        settings: { model: 'gpt-4o-mini' },
        items: items(1),
        access: 'reserved',
      })
    ).job.id;
    const otherModel = (
      await ensureJudgeJob(db, {
        collection: 'files',
        labelSet: 'other-model',
        template,
        settings: { model: 'gpt-4.1' },
        items: items(5),
      })
    ).job.id;
    await setJudgeJobEndpoint(db, taken, HERE);
    await setJudgeJobEndpoint(db, elsewhere, THERE);
    await setJudgeJobStatus(db, paused, 'paused');
    // Of the 4 items of the job this worker takes, it holds one itself, a live worker two
    // for 5 minutes, and a dead worker one whose lease has ended.
    const scope = { endpoint: HERE, models: ['gpt-4o-mini'] };
    const claim = (owner: string, limit: number, leaseMs: number) =>
      claimJudgeTasks(db, { ...scope, jobIds: [taken], owner, limit, leaseMs });
    // This worker's own lease is not someone else's.
    expect(await claim('me', 1, 300_000)).toHaveLength(1);
    expect(await claim('live', 2, 300_000)).toHaveLength(2);
    expect(await claim('dead', 1, -1_000)).toHaveLength(1);

    const left = await judgeWorkLeft(db, scope, 'me');
    expect(left.pending).toBe(0);
    expect(left.held).toMatchObject({ items: 3, jobs: [taken], leaseEnded: 1 });
    expect(left.held.lastLeaseEndsInSeconds).toBeGreaterThan(290);
    expect(left.held.lastLeaseEndsInSeconds).toBeLessThanOrEqual(300);
    expect(left.notTaken).toEqual([
      { jobId: elsewhere, pending: 2, why: { reason: 'endpoint', endpoint: THERE } },
      { jobId: paused, pending: 3, why: { reason: 'paused' } },
      { jobId: kept, pending: 1, why: { reason: 'kept' } },
      { jobId: otherModel, pending: 5, why: { reason: 'model', model: 'gpt-4.1' } },
    ]);

    // A worker naming its jobs does not take the others, kept or open.
    const named = await judgeWorkLeft(db, { endpoint: HERE, jobIds: [taken, kept] }, 'me');
    expect(named.pending).toBe(1);
    expect(named.notTaken.map((j) => [j.jobId, j.why.reason])).toEqual([
      [elsewhere, 'not-named'],
      [paused, 'paused'],
      [otherModel, 'not-named'],
    ]);
  });
});
