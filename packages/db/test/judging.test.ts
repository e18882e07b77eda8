import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  claimJudgeTasks,
  completeJudgeTask,
  completeJudgeTasks,
  countJudgeTasks,
  createCollection,
  createDb,
  createJudgeJob,
  createLabelSet,
  failJudgeTask,
  findAnsweredLlmCall,
  findAnsweredLlmCalls,
  insertJudgeTasks,
  insertLlmCall,
  insertLlmCalls,
  listJudgeJobs,
  listJudgeLeaseOwners,
  listJudgeTasks,
  listLabels,
  releaseJudgeTasks,
  renewJudgeTaskLeases,
  retryFailedJudgeTasks,
  setJudgeJobStatus,
  type AssayDb,
  type JudgeClaimScope,
  type Queryable,
} from '../src/index.js';
import { forEachDatabase, testDatabaseUrl } from '@assay/test-support/database';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

/** A label set 0..3 with a judge job holding `n` tasks t1/d0 … in priority order. */
async function seedJob(db: Queryable, n: number) {
  const collection = await createCollection(db, { name: 'c' });
  const labelSet = await createLabelSet(db, {
    collectionId: collection.id,
    name: 'llm',
    kind: 'llm_judge',
    scaleMin: 0,
    scaleMax: 3,
  });
  const job = await createJudgeJob(db, {
    labelSetId: labelSet.id,
    judgeId: 'graded-0-3',
    template: { id: 'graded-0-3' },
    templateHash: HASH_A,
    settings: { model: 'm' },
  });
  const tasks = Array.from({ length: n }, (_, i) => ({
    topicId: `t${i % 3}`,
    docId: `d${i}`,
    position: i,
    values: { query: `q${i % 3}`, passage: `passage ${i}` },
  }));
  await insertJudgeTasks(db, job.id, tasks);
  return { job, labelSet, tasks };
}

/** Moves every running lease of `owner` into the past, as if its worker had died. */
async function expireLeases(db: Queryable, owner: string) {
  await sql`update judge_tasks set lease_expires_at = now() - interval '1 second'
            where lease_owner = ${owner}`.execute(db);
}

forEachDatabase('llm_calls', (t) => {
  it('keeps every call and finds the first answered one by hash', async () => {
    const db = t.db;
    const base = {
      model: 'm',
      request: { model: 'm', messages: [] },
      promptTokens: 10,
      completionTokens: 2,
      latencyMs: 12.6,
    };
    await insertLlmCall(db, { ...base, hash: HASH_A, error: 'HTTP 500' });
    expect(await findAnsweredLlmCall(db, HASH_A)).toBeUndefined();
    await insertLlmCall(db, { ...base, hash: HASH_A, response: '{"grade":1}', costUsd: 0.5 });
    await insertLlmCall(db, { ...base, hash: HASH_A, response: '{"grade":2}' });
    const found = await findAnsweredLlmCall(db, HASH_A);
    expect(found).toMatchObject({ response: '{"grade":1}', costUsd: 0.5, latencyMs: 13 });
    const many = await findAnsweredLlmCalls(db, [HASH_A, HASH_B, HASH_A]);
    expect([...many.keys()]).toEqual([HASH_A]);
    // A call with neither an answer nor an error is refused.
    await expect(insertLlmCall(db, { ...base, hash: HASH_B })).rejects.toThrow();
  });
});

forEachDatabase('judge tasks', (t) => {
  it('adds tasks idempotently and claims them in priority order under a lease', async () => {
    const db = t.db;
    const { job, tasks } = await seedJob(db, 5);
    expect(await insertJudgeTasks(db, job.id, tasks)).toBe(0);
    const first = await claimJudgeTasks(db, { owner: 'w1', leaseMs: 60_000, limit: 2 });
    expect(first.map((t) => t.docId)).toEqual(['d0', 'd1']);
    expect(first[0]).toMatchObject({
      jobId: job.id,
      attempts: 1,
      values: { passage: 'passage 0' },
    });
    const second = await claimJudgeTasks(db, { owner: 'w2', leaseMs: 60_000, limit: 10 });
    expect(second.map((t) => t.docId)).toEqual(['d2', 'd3', 'd4']);
    expect(await claimJudgeTasks(db, { owner: 'w3', leaseMs: 60_000, limit: 10 })).toEqual([]);
    expect(await countJudgeTasks(db, job.id)).toMatchObject({ total: 5, running: 5 });
    expect(await listJudgeLeaseOwners(db)).toEqual([
      { owner: 'w1', tasks: 2 },
      { owner: 'w2', tasks: 3 },
    ]);
  });

  it('lets another worker reclaim a task whose lease expired, and fences the old holder', async () => {
    const db = t.db;
    const { job, labelSet } = await seedJob(db, 1);
    const [task] = await claimJudgeTasks(db, { owner: 'dead', leaseMs: 60_000, limit: 1 });
    expect(await claimJudgeTasks(db, { owner: 'w2', leaseMs: 60_000, limit: 1 })).toEqual([]);
    await expireLeases(db, 'dead');
    const [again] = await claimJudgeTasks(db, { owner: 'w2', leaseMs: 60_000, limit: 1 });
    expect(again).toMatchObject({ docId: task!.docId, attempts: 2 });
    // The worker that lost the lease can neither complete, fail nor renew it.
    expect(await completeJudgeTask(db, task!, 'dead', { grade: 3, producedBy: 'm' })).toBe(false);
    expect(await failJudgeTask(db, task!, 'dead', { error: 'x' })).toBe(false);
    expect(await renewJudgeTaskLeases(db, 'dead', 60_000)).toBe(0);
    expect(await listLabels(db, labelSet.id)).toEqual([]);
    // The holder completes it: task and label in one go, once.
    expect(
      await completeJudgeTask(db, again!, 'w2', {
        grade: 2,
        producedBy: 'm',
        rationale: '{"x":1}',
        distribution: { '2': 0.9, '3': 0.1 },
        callHash: HASH_A,
        costUsd: 0.25,
      }),
    ).toBe(true);
    expect(await completeJudgeTask(db, again!, 'w2', { grade: 2, producedBy: 'm' })).toBe(false);
    expect(await listLabels(db, labelSet.id)).toEqual([
      expect.objectContaining({ topicId: 't0', docId: 'd0', grade: 2, producedBy: 'm' }),
    ]);
    const [stored] = await listJudgeTasks(db, job.id);
    expect(stored).toMatchObject({
      status: 'labelled',
      grade: 2,
      leaseOwner: null,
      distribution: { '2': 0.9, '3': 0.1 },
      callHash: HASH_A,
      costUsd: 0.25,
    });
  });

  it('completes many tasks in one statement, skipping those whose lease was lost', async () => {
    const db = t.db;
    const { job, labelSet } = await seedJob(db, 4);
    const mine = await claimJudgeTasks(db, { owner: 'w1', leaseMs: 60_000, limit: 3 });
    const [theirs] = await claimJudgeTasks(db, { owner: 'w2', leaseMs: 60_000, limit: 1 });
    await expireLeases(db, 'w1');
    // w3 takes over one of w1's tasks.
    await sql`update judge_tasks set lease_owner = 'w3', lease_expires_at = now() + interval '1 minute'
              where topic_id = ${mine[1]!.topicId} and doc_id = ${mine[1]!.docId}`.execute(db);
    const written = await completeJudgeTasks(db, 'w1', [
      ...mine.map((task, i) => ({
        key: task,
        label: { grade: i, producedBy: 'm', distribution: { [i]: 1 }, costUsd: 0.5 },
      })),
      { key: theirs!, label: { grade: 3, producedBy: 'm' } },
    ]);
    expect([...written].sort()).toEqual(
      [mine[0]!, mine[2]!].map((k) => `${k.jobId}\t${k.topicId}\t${k.docId}`).sort(),
    );
    expect(
      (await listLabels(db, labelSet.id)).map((l) => [l.docId, l.grade, l.producedBy]),
    ).toEqual([
      ['d0', 0, 'm'],
      ['d2', 2, 'm'],
    ]);
    expect(await countJudgeTasks(db, job.id)).toMatchObject({
      labelled: 2,
      running: 2,
      costUsd: 1,
    });
    expect((await listJudgeTasks(db, job.id))[2]).toMatchObject({ distribution: { '2': 1 } });
    expect(await completeJudgeTasks(db, 'w1', [])).toEqual(new Set());
    expect(
      await insertLlmCalls(db, [
        {
          hash: HASH_A,
          model: 'm',
          request: {},
          response: 'x',
          promptTokens: 1,
          completionTokens: 1,
          latencyMs: 1,
        },
        {
          hash: HASH_B,
          model: 'm',
          request: {},
          error: 'e',
          promptTokens: 0,
          completionTokens: 0,
          latencyMs: 0,
        },
      ]),
    ).toBe(2);
    expect([...(await findAnsweredLlmCalls(db, [HASH_A, HASH_B])).keys()]).toEqual([HASH_A]);
  });

  it('renews, releases, fails and retries', async () => {
    const db = t.db;
    const { job } = await seedJob(db, 3);
    const claimed = await claimJudgeTasks(db, { owner: 'w', leaseMs: 1_000, limit: 3 });
    const before = (await listJudgeTasks(db, job.id))[0]!.leaseExpiresAt!.getTime();
    expect(await renewJudgeTaskLeases(db, 'w', 600_000)).toBe(3);
    const after = (await listJudgeTasks(db, job.id))[0]!.leaseExpiresAt!.getTime();
    expect(after).toBeGreaterThan(before + 500_000);
    expect(await releaseJudgeTasks(db, 'w', [claimed[2]!])).toBe(1);
    expect(await failJudgeTask(db, claimed[0]!, 'w', { error: 'unreadable', raw: 'no idea' })).toBe(
      true,
    );
    expect(await countJudgeTasks(db, job.id)).toMatchObject({
      pending: 1,
      running: 1,
      failed: 1,
    });
    expect(await releaseJudgeTasks(db, 'w')).toBe(1);
    expect(await retryFailedJudgeTasks(db, job.id)).toBe(1);
    expect(await countJudgeTasks(db, job.id)).toMatchObject({ pending: 3 });
    // The retried task counts its retry; the two released ones were never failed.
    expect((await listJudgeTasks(db, job.id)).map((task) => task.retries)).toEqual([1, 0, 0]);
    expect((await listJudgeTasks(db, job.id))[0]).toMatchObject({ error: null, raw: null });
    const again = await claimJudgeTasks(db, { owner: 'w', leaseMs: 1_000, limit: 1 });
    expect(again).toMatchObject([{ docId: 'd0', retries: 1 }]);
    // A second failure and retry: the second retry.
    await failJudgeTask(db, again[0]!, 'w', { error: 'unreadable' });
    expect(await retryFailedJudgeTasks(db, job.id)).toBe(1);
    expect((await listJudgeTasks(db, job.id))[0]!.retries).toBe(2);
  });

  it('claims from the jobs a worker names, else from those open to workers, at its endpoint and of its models', async () => {
    const db = t.db;
    const collection = await createCollection(db, { name: 'c' });
    const A = 'http://a.example:8000/v1';
    const B = 'http://b.example:8000/v1';
    /** A job of one task at `position`, writing label set `name`. */
    const addJob = async (
      name: string,
      position: number,
      job: { endpoint?: string; openToWorkers?: boolean; model?: string },
    ) => {
      const labelSet = await createLabelSet(db, {
        collectionId: collection.id,
        name,
        kind: 'llm_judge',
        scaleMin: 0,
        scaleMax: 3,
      });
      const created = await createJudgeJob(db, {
        labelSetId: labelSet.id,
        judgeId: 'graded-0-3',
        template: { id: 'graded-0-3' },
        templateHash: HASH_A,
        settings: { model: job.model ?? 'm' },
        ...(job.endpoint === undefined ? {} : { endpoint: job.endpoint }),
        ...(job.openToWorkers === undefined ? {} : { openToWorkers: job.openToWorkers }),
      });
      await insertJudgeTasks(db, created.id, [
        { topicId: 't', docId: name, position, values: { query: 'q', passage: name } },
      ]);
      return created;
    };
    const atA = await addJob('at-a', 0, { endpoint: A });
    const atB = await addJob('at-b', 1, { endpoint: B });
    const kept = await addJob('kept', 2, { endpoint: A, openToWorkers: false });
    const unrecorded = await addJob('unrecorded', 3, {});
    const other = await addJob('other-model', 4, { endpoint: A, model: 'm2' });
    expect([atA, kept, unrecorded, other].map((j) => [j.endpoint, j.openToWorkers])).toEqual([
      [A, true],
      [A, false],
      [null, true],
      [A, true],
    ]);
    const claim = (owner: string, scope: JudgeClaimScope) =>
      claimJudgeTasks(db, { owner, leaseMs: 60_000, limit: 10, ...scope }).then((tasks) =>
        tasks.map((task) => task.docId),
      );

    // What a worker at A with model m would take: at-a, and unrecorded once it records A.
    const listed = await listJudgeJobs(db, {
      withWork: true,
      claimableBy: { endpoint: A, models: ['m'] },
    });
    expect(listed.map((j) => j.id)).toEqual([atA.id, unrecorded.id]);
    // Nothing of model m3 anywhere.
    expect(await claim('w0', { endpoint: A, models: ['m3'] })).toEqual([]);
    // The worker at A claims the jobs open to workers at A, records A on the unrecorded one,
    // and leaves the job at B, the job kept for the command that made it, and model m2.
    expect(await claim('w1', { endpoint: A, models: ['m'] })).toEqual(['at-a', 'unrecorded']);
    const jobs = new Map((await listJudgeJobs(db)).map((j) => [j.id, j.endpoint]));
    expect(jobs.get(unrecorded.id)).toBe(A);
    expect(jobs.get(atB.id)).toBe(B);
    // A worker at B finds only the job at B.
    expect(await claim('w2', { endpoint: B })).toEqual(['at-b']);
    // A worker naming the kept job takes it, at its endpoint only.
    expect(await claim('w3', { endpoint: B, jobIds: [kept.id] })).toEqual([]);
    expect(await claim('w3', { endpoint: A, jobIds: [kept.id] })).toEqual(['kept']);
    // Without a model filter, the worker at A takes model m2 too.
    expect(await claim('w4', { endpoint: A })).toEqual(['other-model']);

    // A recorded endpoint never holds credentials or a query.
    for (const endpoint of ['http://user:secret@a.example/v1', 'http://a.example/v1?key=secret'])
      await expect(addJob(`bad ${endpoint}`, 5, { endpoint })).rejects.toThrow(
        /judge_jobs_endpoint_check/,
      );
  });

  it('claims only from active jobs with work, and from the jobs asked for', async () => {
    const db = t.db;
    const { job } = await seedJob(db, 2);
    expect((await listJudgeJobs(db, { withWork: true })).map((j) => j.id)).toEqual([job.id]);
    await setJudgeJobStatus(db, job.id, 'paused');
    expect(await listJudgeJobs(db, { withWork: true })).toEqual([]);
    expect(await claimJudgeTasks(db, { owner: 'w', leaseMs: 1000, limit: 5 })).toEqual([]);
    await setJudgeJobStatus(db, job.id, 'active');
    expect(
      await claimJudgeTasks(db, { owner: 'w', leaseMs: 1000, limit: 5, jobIds: [job.id + 1] }),
    ).toEqual([]);
    expect(
      await claimJudgeTasks(db, { owner: 'w', leaseMs: 1000, limit: 5, jobIds: [job.id] }),
    ).toHaveLength(2);
    expect(await listJudgeJobs(db, { withWork: true })).toEqual([]);
  });

  it('never gives two concurrent workers the same task; every item is labelled once', async () => {
    const db = t.db;
    const n = 200;
    const { job, labelSet } = await seedJob(db, n);
    // On Postgres the second worker has a connection pool of its own, as another process
    // would; PGlite has one connection, shared by the workers of one process.
    let second: AssayDb | undefined;
    if (t.kind === 'postgres') {
      const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!
        .s;
      const url = new URL(testDatabaseUrl()!);
      url.searchParams.set('search_path', schema);
      second = await createDb({ databaseUrl: url.toString(), migrate: false, maxConnections: 4 });
    }
    const claimedBy = new Map<string, string>();
    const worker = async (handle: Queryable, owner: string) => {
      for (;;) {
        const tasks = await claimJudgeTasks(handle, { owner, leaseMs: 60_000, limit: 7 });
        if (tasks.length === 0) return;
        await Promise.all(
          tasks.map(async (task) => {
            const key = `${task.topicId}/${task.docId}`;
            expect(claimedBy.get(key)).toBeUndefined();
            claimedBy.set(key, owner);
            expect(
              await completeJudgeTask(handle, task, owner, { grade: 1, producedBy: owner }),
            ).toBe(true);
          }),
        );
      }
    };
    try {
      await Promise.all([
        worker(db, 'w1'),
        worker(second?.db ?? db, 'w2'),
        worker(second?.db ?? db, 'w3'),
        worker(db, 'w4'),
      ]);
    } finally {
      await second?.close();
    }
    expect(claimedBy.size).toBe(n);
    // Every worker got some of the work.
    expect(new Set(claimedBy.values()).size).toBeGreaterThan(1);
    expect(await listLabels(db, labelSet.id)).toHaveLength(n);
    expect(await countJudgeTasks(db, job.id)).toMatchObject({ total: n, labelled: n });
  });
});
