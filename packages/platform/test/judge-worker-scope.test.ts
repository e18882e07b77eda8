// Which jobs a worker takes: a job records the endpoint it is judged at and whether workers
// that do not name it may take it; startJudgeWorker claims only what it is configured for.
// Two OpenAI-compatible TEST DOUBLES (never a judge) play the two endpoints.
import { countJudgeTasks } from '@assay/db';
import { afterEach, describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import {
  ensureJudgeJob,
  judgeEndpointIdentity,
  PlatformError,
  startJudgeWorker,
  type AssayConfig,
} from '../src/index.js';
import { answer, docOf, items, settings, template } from './judge-worker-fixtures.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function endpoint(): Promise<TestServer> {
  const server = await startOpenAITestServer((body) => answer(body));
  servers.push(server);
  return server;
}

const at = (server: TestServer): AssayConfig => ({
  dataDir: '.',
  port: 0,
  openaiBaseUrl: server.baseURL,
  openaiApiKey: 'test-key',
});

describe('judgeEndpointIdentity', () => {
  const none: AssayConfig = { dataDir: '.', port: 0 };

  it('is the base URL without credentials, query, trailing slash or default port', () => {
    expect(
      judgeEndpointIdentity(none, {
        baseUrl: 'http://user:secret@Host.Example:8000/v1/?api-key=secret#x',
      }),
    ).toBe('http://host.example:8000/v1');
    expect(judgeEndpointIdentity({ ...none, openaiBaseUrl: 'https://llm.example:443/v1' })).toBe(
      'https://llm.example/v1',
    );
    // --base-url wins over OPENAI_BASE_URL.
    expect(
      judgeEndpointIdentity(
        { ...none, openaiBaseUrl: 'http://env.example/v1' },
        { baseUrl: 'http://flag.example/v1' },
      ),
    ).toBe('http://flag.example/v1');
  });

  it("is the OpenAI API's with only a key, none without an endpoint, and never the key", () => {
    const keyOnly = { ...none, openaiApiKey: 'sk-secret' };
    expect(judgeEndpointIdentity(keyOnly)).toBe('https://api.openai.com/v1');
    expect(judgeEndpointIdentity(none)).toBeUndefined();
    expect(() => judgeEndpointIdentity(none, { baseUrl: 'ftp://files.example/' })).toThrow(
      PlatformError,
    );
  });
});

forEachDatabase('which jobs a worker takes', (t) => {
  /** A job over `n` items (doc-`from` …) writing `labelSet`, recorded at `server`. */
  const make = (
    labelSet: string,
    server: TestServer | undefined,
    access: 'open' | 'reserved',
    from: number,
  ) =>
    ensureJudgeJob(t.db, {
      collection: 'files',
      createCollection: true,
      labelSet,
      template,
      settings,
      items: items(from + 3).slice(from),
      endpoint: server && judgeEndpointIdentity(at(server)),
      access,
    });

  it('a worker naming no job takes the open jobs at its endpoint, never a kept one or one elsewhere', async () => {
    const [a, b] = [await endpoint(), await endpoint()];
    const kept = await make('kept-at-b', b, 'reserved', 0);
    const openA = await make('open-at-a', a, 'open', 3);
    const openB = await make('open-at-b', b, 'open', 6);
    expect(kept.job).toMatchObject({ endpoint: b.baseURL, openToWorkers: false });
    expect(openA.job).toMatchObject({ endpoint: a.baseURL, openToWorkers: true });

    // The worker at A (the server's, say) judges open-at-a only: doc-3 … doc-5.
    const atA = await startJudgeWorker(t.db, { config: at(a), concurrency: 2 });
    expect(atA).toMatchObject({ labelled: 3, stoppedBy: 'done' });
    expect(a.requests.map((r) => docOf(r.body)).sort()).toEqual(['doc-3', 'doc-4', 'doc-5']);
    expect(b.requests).toHaveLength(0);

    // The worker at B takes open-at-b, and leaves the job kept for the command that made it.
    const atB = await startJudgeWorker(t.db, { config: at(b), concurrency: 2 });
    expect(atB).toMatchObject({ labelled: 3 });
    expect(b.requests.map((r) => docOf(r.body)).sort()).toEqual(['doc-6', 'doc-7', 'doc-8']);
    expect(await countJudgeTasks(t.db, kept.job.id)).toMatchObject({ pending: 3, labelled: 0 });
    expect(await countJudgeTasks(t.db, openB.job.id)).toMatchObject({ labelled: 3 });
  });

  it('a worker naming a job takes it, kept or not, only at the endpoint it is recorded at', async () => {
    const [a, b] = [await endpoint(), await endpoint()];
    const kept = await make('kept-at-b', b, 'reserved', 0);
    const refused = startJudgeWorker(t.db, { config: at(a), jobIds: [kept.job.id] });
    await expect(refused).rejects.toMatchObject({
      code: 'conflict',
      message: `judge job ${kept.job.id} (model gpt-4o-mini) is judged at ${b.baseURL}, and this worker calls ${a.baseURL}; a label set is judged at one endpoint`,
    });
    await expect(
      startJudgeWorker(t.db, { config: at(b), jobIds: [kept.job.id], models: ['gpt-4o'] }),
    ).rejects.toMatchObject({ code: 'conflict' });
    await expect(
      startJudgeWorker(t.db, { config: at(b), jobIds: [999_999] }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(a.requests).toHaveLength(0);
    expect(b.requests).toHaveLength(0);

    const named = await startJudgeWorker(t.db, { config: at(b), jobIds: [kept.job.id] });
    expect(named).toMatchObject({ labelled: 3 });
    expect(b.requests).toHaveLength(3);
    expect(a.requests).toHaveLength(0);
  });

  it('a job made without an endpoint is judged where its first worker calls', async () => {
    const [a, b] = [await endpoint(), await endpoint()];
    const unrecorded = await make('unrecorded', undefined, 'open', 0);
    expect(unrecorded.job.endpoint).toBeNull();
    // The first item goes to A and the job is recorded there; B then finds nothing.
    await startJudgeWorker(t.db, { config: at(a), concurrency: 1, budgetUsd: 1e-9 });
    expect(a.requests).toHaveLength(1);
    expect(await startJudgeWorker(t.db, { config: at(b) })).toMatchObject({ labelled: 0 });
    expect(b.requests).toHaveLength(0);
    expect(await startJudgeWorker(t.db, { config: at(a) })).toMatchObject({ labelled: 2 });
    expect(a.requests).toHaveLength(3);
  });

  it('the command that judges a job moves it to its endpoint, and --enqueue opens a kept one', async () => {
    const [a, b] = [await endpoint(), await endpoint()];
    const first = await make('moved', a, 'reserved', 0);
    expect(first).toMatchObject({ created: true, job: { endpoint: a.baseURL } });
    expect(first.movedFrom).toBeUndefined();
    const again = await make('moved', a, 'reserved', 0);
    expect(again.movedFrom).toBeUndefined();
    const moved = await make('moved', b, 'reserved', 0);
    expect(moved).toMatchObject({
      created: false,
      movedFrom: a.baseURL,
      job: { endpoint: b.baseURL, openToWorkers: false },
    });
    const opened = await make('moved', b, 'open', 0);
    expect(opened.job).toMatchObject({ endpoint: b.baseURL, openToWorkers: true });
    // Kept stays kept only for a new job: a rerun without --enqueue does not close it again.
    const rerun = await make('moved', b, 'reserved', 0);
    expect(rerun.job.openToWorkers).toBe(true);
  });
});
