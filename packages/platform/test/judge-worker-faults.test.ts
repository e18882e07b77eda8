// The judge worker under faults: poisoned answers, a dead endpoint, a hanging one, a stop
// while calls are in flight. Every fault comes from the OpenAI-compatible TEST DOUBLE (never
// a judge).
import { createServer } from 'node:net';
import { countJudgeTasks, listLabels, listLlmCalls } from '@assay/db';
import { OpenAIChatClient } from '@assay/llm';
import { afterEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { judgeJobStatus, listJudgeFailures } from '../src/index.js';
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

  it('gives up a hanging endpoint: a timed-out call is tried once more, three items in a row stop the run, the items stay pending and say they timed out', async () => {
    const db = t.db;
    const seen = new Map<string, number>();
    // Never answers within the 100 ms the client waits.
    server = await startOpenAITestServer((body) => {
      const doc = docOf(body);
      seen.set(doc, (seen.get(doc) ?? 0) + 1);
      return { delayMs: 5_000, then: answer(body) };
    });
    const { job: created } = await job(db, 'llm', items(12));
    const notices: string[] = [];
    const started = Date.now();
    // depsFor allows 4 attempts per call: a timeout is tried once more, not three times.
    const result = await runJudgeWorker(db, {
      deps: depsFor(server.baseURL, 100),
      concurrency: 2,
      onNotice: (message) => notices.push(message),
    });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result).toMatchObject({ stoppedBy: 'endpoint', labelled: 0, failed: 0, paidCalls: 0 });
    expect(result.endpointError).toMatch(/^timed out: .*\(http:\/\/127\.0\.0\.1:\d+\/v1\)/);
    expect(result.endpointError).toContain(
      '(3 items in a row timed out; the items went back to pending)',
    );
    expect(result.endpointTimedOut).toBe(true);
    // Each item asked was asked twice, no more.
    expect([...seen.values()].every((n) => n === 2)).toBe(true);
    expect(seen.size).toBeGreaterThanOrEqual(3);
    expect(seen.size).toBeLessThanOrEqual(4);
    expect(notices[0]).toMatch(
      /^a call timed out \(timed out: .*\); each call that times out is tried once more, then its item goes back to pending$/,
    );
    // What the job shows: nothing failed, every item pending, those asked timed out.
    const status = await judgeJobStatus(db, created.id);
    expect(status.progress).toMatchObject({
      pending: 12,
      running: 0,
      failed: 0,
      timedOut: seen.size,
    });
  });

  it('never fails the items of a small job on a hanging endpoint: claimed again, they go back again until the run gives the endpoint up', async () => {
    const db = t.db;
    const seen = new Map<string, number>();
    server = await startOpenAITestServer((body) => {
      const doc = docOf(body);
      seen.set(doc, (seen.get(doc) ?? 0) + 1);
      return { delayMs: 5_000, then: answer(body) };
    });
    const { job: created } = await job(db, 'llm', items(2));
    // More slots than items: an item put back is claimed again at once.
    const result = await runJudgeWorker(db, { deps: depsFor(server.baseURL, 100), concurrency: 8 });
    expect(result).toMatchObject({ stoppedBy: 'endpoint', failed: 0, endpointTimedOut: true });
    expect(result.endpointError).toContain('(3 items in a row timed out;');
    // Both items went back (3 times in all, or 4 with the one in flight at the stop).
    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(6);
    expect((await judgeJobStatus(db, created.id)).progress).toMatchObject({
      pending: 2,
      failed: 0,
      timedOut: 2,
    });
  });

  it('fails an item that times out again once it went back, and shows it timing out while it waits', async () => {
    const db = t.db;
    const seen = new Map<string, number>();
    server = await startOpenAITestServer((body) => {
      const doc = docOf(body);
      seen.set(doc, (seen.get(doc) ?? 0) + 1);
      // doc-0 never answers within the 300 ms the client waits; the others at once.
      return doc === 'doc-0' ? { delayMs: 5_000, then: answer(body) } : answer(body);
    });
    const { job: created } = await job(db, 'llm', items(6));
    const shown: number[] = [];
    let done = false;
    const watch = (async () => {
      while (!done) {
        shown.push((await judgeJobStatus(db, created.id)).progress.timedOut);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const result = await runJudgeWorker(db, {
      deps: depsFor(server.baseURL, 300),
      concurrency: 2,
    });
    done = true;
    await watch;
    // The others are labelled; doc-0 went back once, timed out again, and failed.
    expect(result).toMatchObject({ stoppedBy: 'done', labelled: 5, failed: 1 });
    expect(seen.get('doc-0')).toBe(4);
    expect(result.failures).toEqual([
      {
        jobId: created.id,
        topicId: 'q0',
        docId: 'doc-0',
        reason: expect.stringMatching(
          /^timed out: .* \(timed out again after going back to pending, while other items were answered\)$/,
        ),
      },
    ]);
    // While doc-0 waited, the job said one item was timing out; once failed, none is.
    expect(shown).toContain(1);
    expect((await judgeJobStatus(db, created.id)).progress).toMatchObject({
      labelled: 5,
      failed: 1,
      timedOut: 0,
    });
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
