// The judge worker under faults: poisoned answers, a dead endpoint, a stop while calls are
// in flight. Every fault comes from the OpenAI-compatible TEST DOUBLE (never a judge).
import { createServer } from 'node:net';
import { countJudgeTasks, listLabels, listLlmCalls } from '@assay/db';
import { OpenAIChatClient } from '@assay/llm';
import { afterEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { listJudgeFailures } from '../src/index.js';
import { runJudgeWorker } from '../src/judging/worker.js';
import { answer, depsFor, docOf, items, job } from './judge-worker-fixtures.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A port on 127.0.0.1 where nothing listens (connections are refused). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const MiB = 1024 * 1024;

forEachDatabase('the judge worker under faults', (t) => {
  it('fails each poisoned answer with its reason after one call, labels the others, and finishes', async () => {
    const db = t.db;
    const seen = new Map<string, number>();
    server = await startOpenAITestServer((body) => {
      const doc = docOf(body);
      seen.set(doc, (seen.get(doc) ?? 0) + 1);
      const good = answer(body) as { reply: string };
      if (doc === 'doc-1') return { ...good, promptTokens: -1e12 };
      if (doc === 'doc-2') return { ...good, completionTokens: 3e9 };
      if (doc === 'doc-3') return { hugeBody: 300 * MiB };
      // A NUL character: PostgreSQL text cannot hold it, so the answer cannot be stored.
      if (doc === 'doc-4') return { reply: `${good.reply}\u0000` };
      if (doc === 'doc-5') return { ...good, promptTokens: 1.5 };
      return good;
    });
    const { job: created } = await job(db, 'llm', items(9));
    const rssBefore = process.memoryUsage().rss;
    const result = await runJudgeWorker(db, {
      deps: depsFor(server.baseURL, 60_000),
      concurrency: 4,
    });
    // The 300 MB answer was never read whole.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(250 * MiB);
    expect(result).toMatchObject({ stoppedBy: 'done', labelled: 4, failed: 5, putBack: 0 });
    // Each poisoned call went out once: not retried, not sent again by a restarted worker.
    expect(Object.fromEntries(seen)).toEqual(
      Object.fromEntries(Array.from({ length: 9 }, (_, k) => [`doc-${k}`, 1])),
    );
    expect(await countJudgeTasks(db, created.id)).toMatchObject({
      labelled: 4,
      failed: 5,
      pending: 0,
      running: 0,
    });
    const failures = await listJudgeFailures(db, created.id);
    expect(failures.map((f) => [f.docId, f.error])).toEqual([
      ['doc-1', expect.stringContaining('impossible token usage (prompt_tokens = -1000000000000)')],
      ['doc-2', expect.stringContaining('impossible token usage (completion_tokens = 3000000000)')],
      ['doc-3', expect.stringMatching(/the answer is larger than 16 MiB; it was not read/)],
      [
        'doc-4',
        'the answer could not be stored: a text holds a character that cannot be stored (a NUL character)',
      ],
      ['doc-5', expect.stringContaining('impossible token usage (prompt_tokens = 1.5)')],
    ]);
    expect((await listLabels(db, created.labelSetId)).map((l) => l.docId).sort()).toEqual([
      'doc-0',
      'doc-6',
      'doc-7',
      'doc-8',
    ]);
    // Every call is recorded: the poisoned ones as failed with the reason, and the answer
    // that could not be stored without its text.
    const calls = await listLlmCalls(db);
    expect(calls).toHaveLength(9);
    expect(calls.filter((c) => c.response !== null)).toHaveLength(4);
    expect(calls.map((c) => c.error).filter((e) => e !== null)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^the answer could not be stored: a text holds a character/),
        expect.stringContaining('(prompt_tokens = -1000000000000)'),
      ]),
    );
    // Paid: the calls that came back with an answer, the one that could not be stored
    // included; the refused answers (usage, size) are not counted.
    expect(result.paidCalls).toBe(5);

    // Running again sends nothing: failed items stay failed until retried.
    const again = await runJudgeWorker(db, { deps: depsFor(server.baseURL) });
    expect(again).toMatchObject({ stoppedBy: 'done', labelled: 0, failed: 0, paidCalls: 0 });
    expect(server.requests).toHaveLength(9);
  });

  it('stops when the endpoint refuses connections for three items in a row, naming its URL; the items stay pending and nothing counts as paid', async () => {
    const db = t.db;
    const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
    const { job: created } = await job(db, 'llm', items(12));
    const result = await runJudgeWorker(db, { deps: depsFor(baseURL), concurrency: 2 });
    expect(result).toMatchObject({
      stoppedBy: 'endpoint',
      labelled: 0,
      failed: 0,
      paidCalls: 0,
      costUsd: 0,
    });
    expect(result.endpointError).toContain(`cannot reach ${baseURL} (ECONNREFUSED)`);
    expect(result.endpointError).toContain('3 items in a row');
    // The items in flight when it stopped: three in a row, plus at most one beside them.
    expect(result.putBack).toBeGreaterThanOrEqual(3);
    expect(result.putBack).toBeLessThanOrEqual(4);
    expect(await countJudgeTasks(db, created.id)).toMatchObject({
      pending: 12,
      running: 0,
      failed: 0,
      labelled: 0,
    });
    // Every attempt is recorded as a failed call naming the URL; none was answered.
    const calls = await listLlmCalls(db);
    expect(calls).toHaveLength(result.putBack * 4);
    expect(calls.every((c) => c.response === null && c.error!.includes(baseURL))).toBe(true);
  });

  it('when following, pauses instead of stopping, then claims again (the pause doubles)', async () => {
    const db = t.db;
    const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
    const { job: created } = await job(db, 'llm', items(6));
    const controller = new AbortController();
    const notices: string[] = [];
    const result = await runJudgeWorker(db, {
      deps: depsFor(baseURL),
      concurrency: 1,
      follow: true,
      pollMs: 10,
      endpointPauseMs: 1_000,
      signal: controller.signal,
      onNotice: (message) => {
        notices.push(message);
        if (notices.length === 3) controller.abort();
      },
    });
    expect(result).toMatchObject({ stoppedBy: 'signal', labelled: 0, failed: 0, paidCalls: 0 });
    const notice = (s: number) =>
      `connection failed: cannot reach ${baseURL} (ECONNREFUSED) (3 items in a row; the items went back to pending); trying again in ${s} s`;
    expect(notices).toEqual([notice(1), notice(2), notice(4)]);
    expect(await countJudgeTasks(db, created.id)).toMatchObject({ pending: 6, running: 0 });
  });

  it('on stop sends no new call or retry, cuts off calls past the grace, writes what was answered and puts the rest back', async () => {
    const db = t.db;
    const controller = new AbortController();
    const seen = new Map<string, number>();
    server = await startOpenAITestServer((body) => {
      const doc = docOf(body);
      seen.set(doc, (seen.get(doc) ?? 0) + 1);
      // doc-0 never answers in time; doc-1 fails and waits a minute before its retry; the
      // stop comes as doc-5 is asked (the slot of doc-2 … doc-5 is then busy with it).
      if (doc === 'doc-0') return { delayMs: 600_000, then: answer(body) };
      if (doc === 'doc-1') return { status: 500 };
      if (doc === 'doc-5') controller.abort();
      return answer(body);
    });
    const { job: created } = await job(db, 'llm', items(9));
    const result = await runJudgeWorker(db, {
      deps: {
        client: new OpenAIChatClient({ baseURL: server.baseURL, apiKey: 'k', timeoutMs: 600_000 }),
        retry: { maxAttempts: 6, baseDelayMs: 60_000, maxDelayMs: 60_000 },
        random: () => 1,
      },
      concurrency: 3,
      signal: controller.signal,
      cancelAfterMs: 200,
    });
    expect(result).toMatchObject({ stoppedBy: 'signal', labelled: 4, failed: 0, putBack: 2 });
    // No retry of doc-1, nothing new after the stop; doc-5, asked before it, was answered.
    expect(Object.fromEntries(seen)).toEqual({
      'doc-0': 1,
      'doc-1': 1,
      'doc-2': 1,
      'doc-3': 1,
      'doc-4': 1,
      'doc-5': 1,
    });
    expect(await countJudgeTasks(db, created.id)).toMatchObject({
      labelled: 4,
      pending: 5,
      running: 0,
      failed: 0,
    });
    const calls = await listLlmCalls(db);
    expect(calls.filter((c) => c.response !== null)).toHaveLength(4);
    expect(
      calls
        .map((c) => c.error)
        .filter((e) => e !== null)
        .sort(),
    ).toEqual([expect.stringMatching(/^HTTP 500/), 'cut off: the run was stopping']);
  });
});
