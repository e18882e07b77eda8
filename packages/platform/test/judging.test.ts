import { fileURLToPath } from 'node:url';
import {
  claimJudgeTasks,
  countJudgeTasks,
  createDb,
  listJudgeTasks,
  listLabels,
  listLlmCalls,
  type AssayDb,
} from '@assay/db';
import { judgeItem, loadJudgeTemplates } from '@assay/judge';
import { afterEach, expect, it } from 'vitest';
import { forEachDatabase, queryRows, testDatabaseUrl } from '@assay/test-support/database';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '@assay/test-support/openai-test-server';
import {
  DbCallStore,
  ensureJudgeJob,
  estimateJudgeRun,
  exportLabelsAsQrels,
  listJudgeFailures,
} from '../src/index.js';
import { runJudgeWorker } from '../src/judging/worker.js';
import { answer, depsFor, docOf, items, job, settings, template } from './judge-worker-fixtures.js';

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

forEachDatabase('judging with the database call store', (t) => {
  it('labels every item, records every call, and a second label set is answered from the store', async () => {
    const db = t.db;
    server = await startOpenAITestServer((body) => answer(body));
    const list = items(9);
    const first = await job(db, 'llm-a', list);
    expect(first).toMatchObject({ created: true, added: 9 });
    const result = await runJudgeWorker(db, { deps: depsFor(server.baseURL), concurrency: 4 });
    expect(result).toMatchObject({ stoppedBy: 'done', labelled: 9, failed: 0, paidCalls: 9 });
    expect(server.requests).toHaveLength(9);
    const calls = await listLlmCalls(db);
    expect(calls).toHaveLength(9);
    expect(calls[0]).toMatchObject({ model: 'gpt-4o-mini', promptTokens: 100, error: null });
    expect(calls[0]!.costUsd).toBeCloseTo((100 * 0.15 + 10 * 0.6) / 1e6, 15);
    const qrels = await exportLabelsAsQrels(db, first.labelSet.id);
    expect(qrels.split('\n')).toContain('q1 0 doc-7 3');
    expect(qrels.trim().split('\n')).toHaveLength(9);
    // graded-0-3 answers sub-grades but no justification text: the rationale stays empty
    // (the sub-grades are in the stored call, not dumped into the label).
    expect((await listLabels(db, first.labelSet.id)).map((l) => l.rationale)).toEqual(
      Array(9).fill(null),
    );

    // The same command again: same job, nothing added, nothing to do.
    expect(await job(db, 'llm-a', list)).toMatchObject({ created: false, added: 0 });
    expect(await runJudgeWorker(db, { deps: depsFor(server.baseURL) })).toMatchObject({
      labelled: 0,
      paidCalls: 0,
    });

    // Another label set with the same judge and items: every answer comes from the store.
    const second = await job(db, 'llm-b', list);
    const estimate = await estimateJudgeRun(db, {
      collection: 'files',
      labelSet: 'llm-b',
      template,
      settings,
      items: list,
    });
    expect(estimate).toMatchObject({ items: 9, alreadyLabelled: 0, cached: 9, calls: 0 });
    const rerun = await runJudgeWorker(db, { deps: depsFor(server.baseURL), concurrency: 3 });
    expect(rerun).toMatchObject({ labelled: 9, paidCalls: 0, cachedAnswers: 9, costUsd: 0 });
    expect(server.requests).toHaveLength(9);
    expect(await exportLabelsAsQrels(db, second.labelSet.id)).toBe(qrels);
  });

  it("a job's cost is a number when its model has a price and unknown (null) when not", async () => {
    const db = t.db;
    server = await startOpenAITestServer((body) => answer(body));
    const priced = await job(db, 'priced', items(3));
    await runJudgeWorker(db, { deps: depsFor(server.baseURL) });
    // 3 calls × (100 × 0.15 + 10 × 0.6) / 1e6 USD.
    expect((await countJudgeTasks(db, priced.job.id)).costUsd).toBeCloseTo(3 * 21e-6, 12);
    const unpriced = await ensureJudgeJob(db, {
      collection: 'files',
      labelSet: 'unpriced',
      template,
      settings: { model: 'local-model' },
      items: items(3),
    });
    expect((await countJudgeTasks(db, unpriced.job.id)).costUsd).toBe(0);
    const result = await runJudgeWorker(db, { deps: depsFor(server.baseURL) });
    expect(result).toMatchObject({ labelled: 3, paidCalls: 3, unpricedCalls: 3, costUsd: 0 });
    expect((await countJudgeTasks(db, unpriced.job.id)).costUsd).toBeNull();
    expect((await countJudgeTasks(db, priced.job.id)).costUsd).toBeCloseTo(3 * 21e-6, 12);
  });

  it('DbCallStore: an answer stored by one process is reused by another (no request sent)', async () => {
    const db = t.db;
    server = await startOpenAITestServer((body) => answer(body));
    const [item] = items(1);
    const first = await judgeItem(template, item!.values, settings, {
      ...depsFor(server.baseURL),
      store: new DbCallStore(db),
    });
    expect(first).toMatchObject({ status: 'labelled', cached: false });
    // A fresh store (as in another process or a rerun) finds the answer by its hash.
    const again = await judgeItem(template, item!.values, settings, {
      ...depsFor(server.baseURL),
      store: new DbCallStore(db),
    });
    expect(again).toMatchObject({ status: 'labelled', cached: true, paidCalls: [] });
    expect(server.requests).toHaveLength(1);
    const [call] = await listLlmCalls(db);
    expect(call).toMatchObject({
      response: JSON.stringify({ intent_match: 1, trustworthiness: 2, grade: 0 }),
      promptTokens: 100,
      completionTokens: 10,
    });
    expect(call!.request).toMatchObject({ model: 'gpt-4o-mini', temperature: 0 });
  });

  it('refuses to mix judge configurations or texts in one label set', async () => {
    const db = t.db;
    const list = items(2);
    await job(db, 'llm', list);
    await expect(
      ensureJudgeJob(db, {
        collection: 'files',
        labelSet: 'llm',
        template,
        settings: { model: 'gpt-4o' },
        items: list,
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
    const changed = items(2);
    changed[1]!.values = { ...changed[1]!.values, passage: 'other text' };
    await expect(job(db, 'llm', changed)).rejects.toMatchObject({ code: 'conflict' });
    await expect(
      ensureJudgeJob(db, {
        collection: 'files',
        labelSet: 'qa',
        template: loadJudgeTemplates(JUDGES).get('answer-quality')!,
        settings,
        items: list,
      }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('survives 429, 500, timeouts, malformed bodies and dropped connections; unreadable answers fail with their text', async () => {
    const db = t.db;
    // Per document: what the first attempts get before a good answer.
    const faults: Record<string, Behaviour[]> = {
      'doc-0': [{ status: 429, retryAfter: '1' }],
      'doc-1': [{ status: 500 }, { status: 503 }],
      // Far past the client's timeout, which is far past any answer on a loaded machine.
      'doc-2': [{ delayMs: 20_000, then: { reply: '{"grade": 0}' } }],
      'doc-3': [{ malformedBody: true }],
      'doc-4': [{ drop: true }],
    };
    const seen = new Map<string, number>();
    server = await startOpenAITestServer((body) => {
      const doc = docOf(body);
      const n = (seen.get(doc) ?? 0) + 1;
      seen.set(doc, n);
      if (doc === 'doc-5') return { reply: 'The passage seems somewhat relevant, I guess.' };
      if (doc === 'doc-6') return { status: 500, message: 'upstream exploded' };
      return faults[doc]?.[n - 1] ?? answer(body);
    });
    const { job: created } = await job(db, 'llm', items(8));
    const result = await runJudgeWorker(db, {
      deps: depsFor(server.baseURL, 3_000),
      concurrency: 8,
    });
    expect(result).toMatchObject({ stoppedBy: 'done', labelled: 6, failed: 2, lostLeases: 0 });
    expect(Object.fromEntries(seen)).toEqual({
      'doc-0': 2,
      'doc-1': 3,
      'doc-2': 2,
      'doc-3': 2,
      'doc-4': 2,
      'doc-5': 3, // asked again twice after unreadable answers
      'doc-6': 4, // the retry policy's 4 attempts
      'doc-7': 1,
    });
    const tasks = await listJudgeTasks(db, created.id);
    expect(tasks.every((task) => task.status === 'labelled' || task.status === 'failed')).toBe(
      true,
    );
    const failures = await listJudgeFailures(db, created.id);
    expect(failures).toEqual([
      {
        topicId: 'q2',
        docId: 'doc-5',
        error: expect.stringMatching(/^unreadable answer after 3 attempts/),
        raw: 'The passage seems somewhat relevant, I guess.',
      },
      { topicId: 'q0', docId: 'doc-6', error: expect.stringMatching(/HTTP 500/), raw: null },
    ]);
    // Never a 0 for an unreadable answer: failed items have no label.
    const labels = await listLabels(db, created.labelSetId);
    expect(labels.map((l) => l.docId).sort()).toEqual(
      ['doc-0', 'doc-1', 'doc-2', 'doc-3', 'doc-4', 'doc-7'].sort(),
    );
    // Every attempt is recorded: each answer, and each failed attempt with its error.
    const calls = await listLlmCalls(db);
    expect(calls).toHaveLength(server.requests.length);
    expect(calls.filter((c) => c.response?.startsWith('The passage seems'))).toHaveLength(3);
    const errors = calls.filter((c) => c.error !== null).map((c) => c.error!);
    expect(errors).toHaveLength(1 + 2 + 1 + 1 + 1 + 4);
    expect(errors.filter((e) => /HTTP 500: .*upstream exploded/.test(e))).toHaveLength(4);
    expect(errors.filter((e) => /HTTP 429/.test(e))).toHaveLength(1);
    expect(errors.filter((e) => /timed out/.test(e))).toHaveLength(1);
    expect(errors.filter((e) => /malformed response body/.test(e))).toHaveLength(1);
    expect(errors.every((e) => !/^no answer$/.test(e))).toBe(true);
  });

  it('reclaims the task of a worker whose lease expired', async () => {
    const db = t.db;
    server = await startOpenAITestServer((body) => answer(body));
    const { job: created } = await job(db, 'llm', items(3));
    await claimJudgeTasks(db, { owner: 'dead-host:1:x', leaseMs: 60_000, limit: 1 });
    // Nothing to claim but what the dead worker holds until its lease expires.
    const early = await runJudgeWorker(db, { deps: depsFor(server.baseURL) });
    expect(early.labelled).toBe(2);
    await queryRows(db, "update judge_tasks set lease_expires_at = now() - interval '1 second'");
    const late = await runJudgeWorker(db, { deps: depsFor(server.baseURL) });
    expect(late.labelled).toBe(1);
    expect(await countJudgeTasks(db, created.id)).toMatchObject({ labelled: 3 });
    expect(server.requests).toHaveLength(3);
  });

  it('stops at the budget, judging the pool in priority order; the rest stays pending', async () => {
    const db = t.db;
    server = await startOpenAITestServer((body) => answer(body));
    const { job: created } = await job(db, 'llm', items(12));
    // Each call costs 100 × 0.15 + 10 × 0.6 = 21 micro-USD: the budget allows five.
    const result = await runJudgeWorker(db, {
      deps: depsFor(server.baseURL),
      concurrency: 1,
      budgetUsd: 0.0001,
    });
    expect(result).toMatchObject({ stoppedBy: 'budget', labelled: 5, paidCalls: 5 });
    expect(result.costUsd).toBeGreaterThanOrEqual(0.0001);
    const tasks = await listJudgeTasks(db, created.id);
    expect(tasks.filter((x) => x.status === 'labelled').map((x) => x.docId)).toEqual([
      'doc-0',
      'doc-1',
      'doc-2',
      'doc-3',
      'doc-4',
    ]);
    expect(await countJudgeTasks(db, created.id)).toMatchObject({ pending: 7, running: 0 });
  });

  it('stops claiming when aborted, lets in-flight items finish, and leaves no lease behind', async () => {
    const db = t.db;
    server = await startOpenAITestServer((body) => answer(body, 50));
    const { job: created } = await job(db, 'llm', items(20));
    const controller = new AbortController();
    const result = await runJudgeWorker(db, {
      deps: depsFor(server.baseURL),
      concurrency: 4,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.labelled >= 2) controller.abort();
      },
    });
    expect(result.stoppedBy).toBe('signal');
    const counts = await countJudgeTasks(db, created.id);
    expect(counts.running).toBe(0);
    expect(counts.labelled).toBe(result.labelled);
    expect(counts.labelled).toBeLessThan(20);
    expect(counts.pending).toBe(20 - counts.labelled);
    // Everything answered was written: no answered call without its label.
    expect(server.delivered.length).toBe(counts.labelled);
  });

  it('two workers (separate connections on Postgres) share a job: each item judged and labelled once', async () => {
    const db = t.db;
    server = await startOpenAITestServer((body) => answer(body, 5));
    const n = 60;
    const { job: created } = await job(db, 'llm', items(n));
    let second: AssayDb | undefined;
    if (t.kind === 'postgres') {
      const [{ s: schema }] = (await queryRows<{ s: string }>(
        db,
        'select current_schema() as s',
      )) as [{ s: string }];
      const url = new URL(testDatabaseUrl()!);
      url.searchParams.set('search_path', schema);
      second = await createDb({ databaseUrl: url.toString(), migrate: false, maxConnections: 4 });
    }
    try {
      const [a, b] = await Promise.all([
        runJudgeWorker(db, { deps: depsFor(server.baseURL), concurrency: 6 }),
        runJudgeWorker(second?.db ?? db, { deps: depsFor(server.baseURL), concurrency: 6 }),
      ]);
      expect(a.labelled + b.labelled).toBe(n);
      expect(a.labelled).toBeGreaterThan(0);
      expect(b.labelled).toBeGreaterThan(0);
    } finally {
      await second?.close();
    }
    const docs = server.requests.map((r) => docOf(r.body));
    expect(new Set(docs).size).toBe(n);
    expect(docs).toHaveLength(n);
    expect(await listLabels(db, created.labelSetId)).toHaveLength(n);
  });
});
