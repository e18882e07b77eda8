// The server's own judge worker: with embedded PGlite no `assay worker` can open the
// database beside the server, so `startServer` judges jobs itself when an endpoint is set.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCollection, listLabels, type AssayConfig } from '@assay/platform';
import { afterEach, expect, it } from 'vitest';
import { listJudgeTasks, OPEN_TIMEOUT_MS, openTestDatabase } from '@assay/platform/testing';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { startServer, type RunningServer } from '../src/index.js';

const ADMIN = 'assay_server-worker-test-admin';
const KEY = 'sk-server-worker-secret';

let llm: TestServer | undefined;
let server: RunningServer | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await server?.close({ graceMs: 100 });
  server = undefined;
  await llm?.close();
  llm = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'assay-server-worker-'));
  dirs.push(dir);
  return dir;
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${ADMIN}` } };
  if (typeof body === 'string') init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  const response = await fetch(`${url}${path}`, init);
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

interface Progress {
  total: number;
  labelled: number;
  running: number;
  pending: number;
}

it(
  'judges a job created through the API with its own worker, and close() stops it cleanly',
  async () => {
    // Each "passage N" gets grade N mod 4; d4 answers slowly, so it is in flight at close().
    llm = await startOpenAITestServer((body) => {
      const prompt = (body.messages as Array<{ content: string }>).at(-1)!.content;
      const n = Number(/passage (\d+)/.exec(prompt)![1]);
      const reply = JSON.stringify({ intent_match: 1, trustworthiness: 2, grade: n % 4 });
      return n === 4 ? { delayMs: 600, then: { reply } } : { reply };
    });
    const dataDir = tempDir();
    const config: AssayConfig = {
      dataDir,
      port: 0,
      adminToken: ADMIN,
      openaiBaseUrl: llm.baseURL,
      openaiApiKey: KEY,
    };
    const log: string[] = [];
    server = await startServer({
      config,
      hostname: '127.0.0.1',
      log: (line) => log.push(line),
      workerPollMs: 50,
    });
    const url = `http://127.0.0.1:${server.port}/api`;
    expect(log.filter((l) => l.startsWith('judging judge jobs in this server'))).toEqual([
      // 8 at a time, plus two claim batches of ceil(8 / 4) = 2 held ahead.
      `judging judge jobs in this server: the jobs open to workers at ${llm.baseURL}, 8 items at a time plus up to 4 claimed ahead (a job's progress.running counts both; ASSAY_SERVER_WORKER=0 turns this off)`,
    ]);

    for (const [path, body] of [
      [
        '/collections?name=demo&format=tsv',
        'd1\tpassage 1\nd2\tpassage 2\nd3\tpassage 3\nd4\tpassage 4\n',
      ],
      ['/collections/demo/topics', '1\tfirst query\n2\tsecond query\n'],
      ['/collections/demo/runs', '1 Q0 d1 1 2 sysA\n1 Q0 d2 2 1 sysA\n2 Q0 d3 1 1 sysA\n'],
    ])
      expect((await call(url, 'POST', path!, body)).status, path).toBe(201);
    const created = await call(url, 'POST', '/collections/demo/judge-jobs', {
      labelSet: 'llm',
      judge: 'graded-0-3',
      settings: { model: 'test-model' },
      pool: { runs: ['sysA'], depth: 2 },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as number;

    let progress: Progress;
    const deadline = Date.now() + 30_000;
    for (;;) {
      progress = (await call(url, 'GET', `/judge-jobs/${id}`)).json.progress as Progress;
      if (progress.labelled === 3 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(progress).toMatchObject({ total: 3, labelled: 3, pending: 0, running: 0 });
    const labels = (await call(url, 'GET', '/collections/demo/label-sets/llm/labels'))
      .json as unknown as Array<{ topicId: string; docId: string; grade: number }>;
    expect(labels.map((l) => `${l.topicId}/${l.docId}=${l.grade}`)).toEqual([
      '1/d1=1',
      '1/d2=2',
      '2/d3=3',
    ]);
    expect(llm.requests.map((r) => r.authorization)).toEqual([
      `Bearer ${KEY}`,
      `Bearer ${KEY}`,
      `Bearer ${KEY}`,
    ]);

    // A slow item is in flight when the server closes: it finishes and is written first.
    const more = await call(url, 'POST', '/collections/demo/judge-jobs', {
      labelSet: 'llm',
      judge: 'graded-0-3',
      settings: { model: 'test-model' },
      items: [{ topicId: '1', docId: 'd4' }],
    });
    expect(more.status).toBe(200);
    const before = llm.requests.length;
    while (llm.requests.length === before && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await server.close({ graceMs: 100 });
    server = undefined;
    const requests = llm.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(llm.requests).toHaveLength(requests);
    expect(log.join('\n')).not.toContain(KEY);
    expect(log.filter((l) => l.includes('judge worker'))).toEqual([]);

    const reopened = await openTestDatabase({ dataDir: join(dataDir, 'pglite') });
    try {
      const tasks = await listJudgeTasks(reopened.db, id);
      expect(tasks.map((t) => `${t.topicId}/${t.docId}:${t.status}`)).toEqual([
        '1/d1:labelled',
        '2/d3:labelled',
        '1/d2:labelled',
        '1/d4:labelled',
      ]);
      const labelSet = (created.json.labelSet as { id: number }).id;
      expect(await listLabels(reopened.db, 'demo', labelSet)).toHaveLength(4);
    } finally {
      await reopened.close();
    }
  },
  OPEN_TIMEOUT_MS,
);

it(
  'leaves jobs to `assay worker` without an endpoint, or with ASSAY_SERVER_WORKER=0',
  async () => {
    const database = await openTestDatabase({ dataDir: 'memory://' });
    try {
      // A collection already there: no demo to load.
      await importCollection(database.db, {
        name: 'x',
        format: 'jsonl',
        text: '{"id":"d1","text":"x"}\n',
        file: 'x.jsonl',
      });
      const base = { dataDir: tempDir(), port: 0, adminToken: ADMIN };
      for (const [config, expected] of [
        [
          base,
          'judge jobs are not judged by this server (no model endpoint); restart it with OPENAI_BASE_URL (or OPENAI_API_KEY) set to judge them',
        ],
        [
          { ...base, openaiApiKey: KEY, serverWorker: false },
          'judge jobs are not judged by this server (ASSAY_SERVER_WORKER=0); restart it with OPENAI_BASE_URL (or OPENAI_API_KEY) set to judge them',
        ],
      ] as const) {
        const log: string[] = [];
        const running = await startServer({
          config,
          db: database,
          hostname: '127.0.0.1',
          log: (line) => log.push(line),
        });
        await running.close();
        expect(log.filter((l) => l.startsWith('judge'))).toEqual([expected]);
        expect(log.join('\n')).not.toContain(KEY);
      }
    } finally {
      await database.close();
    }
  },
  OPEN_TIMEOUT_MS,
);

it(
  'close() cuts off a call that never answers and puts its item back; a refused endpoint pauses the worker, naming its URL',
  async () => {
    // "passage 2" never answers; the others answer at once.
    llm = await startOpenAITestServer((body) => {
      const prompt = (body.messages as Array<{ content: string }>).at(-1)!.content;
      const n = Number(/passage (\d+)/.exec(prompt)![1]);
      const reply = JSON.stringify({ intent_match: 1, trustworthiness: 2, grade: n % 4 });
      return n === 2 ? { delayMs: 600_000, then: { reply } } : { reply };
    });
    const database = await openTestDatabase({ dataDir: 'memory://' });
    try {
      // A collection already there: no demo to load.
      await importCollection(database.db, {
        name: 'demo',
        format: 'tsv',
        text: 'd1\tpassage 1\nd2\tpassage 2\nd3\tpassage 3\n',
        file: 'demo.tsv',
      });
      const start = (openaiBaseUrl: string, log: string[]) =>
        startServer({
          config: { dataDir: tempDir(), port: 0, adminToken: ADMIN, openaiBaseUrl },
          db: database,
          hostname: '127.0.0.1',
          log: (line) => log.push(line),
          workerPollMs: 50,
          workerStopGraceMs: 100,
        });
      const log: string[] = [];
      server = await start(llm.baseURL, log);
      const url = `http://127.0.0.1:${server.port}/api`;
      expect((await call(url, 'POST', '/collections/demo/topics', '1\tfirst query\n')).status).toBe(
        201,
      );
      const job = async (base: string, labelSet: string, model: string) => {
        const created = await call(base, 'POST', '/collections/demo/judge-jobs', {
          labelSet,
          judge: 'graded-0-3',
          settings: { model },
          items: ['d1', 'd2', 'd3'].map((docId) => ({ topicId: '1', docId })),
        });
        expect(created.status).toBe(201);
        return created.json.id as number;
      };
      const id = await job(url, 'llm', 'test-model');
      const deadline = Date.now() + 60_000;
      for (;;) {
        const progress = (await call(url, 'GET', `/judge-jobs/${id}`)).json.progress as Progress;
        if ((progress.labelled === 2 && llm.requests.length === 3) || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The call of d2 hangs: close() gives it the grace, cuts it off and puts d2 back.
      await server.close({ graceMs: 100 });
      server = undefined;
      const tasks = await listJudgeTasks(database.db, id);
      expect(tasks.map((t) => `${t.docId}:${t.status}:${t.leaseOwner ?? '-'}`).sort()).toEqual([
        'd1:labelled:-',
        'd2:pending:-',
        'd3:labelled:-',
      ]);
      expect(llm.requests).toHaveLength(3);

      // Nothing listens at the endpoint: the worker stops after three items, logs the URL,
      // leaves the items pending and pauses before trying again.
      const dead = llm.baseURL;
      await llm.close();
      llm = undefined;
      const deadLog: string[] = [];
      server = await start(dead, deadLog);
      // Another model: no stored answer of the first job applies.
      const deadJob = await job(`http://127.0.0.1:${server.port}/api`, 'dead', 'other-model');
      const pausedAt = Date.now() + 120_000;
      while (!deadLog.some((l) => l.includes('trying again in')) && Date.now() < pausedAt)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(deadLog.filter((l) => l.includes('trying again in'))).toEqual([
        expect.stringMatching(
          new RegExp(
            `^judge worker: connection failed: cannot reach ${dead.replace(/[.]/g, '\\.')} \\(ECONNREFUSED\\) \\(3 items in a row; the items went back to pending\\); trying again in 30 s$`,
          ),
        ),
      ]);
      await server.close({ graceMs: 100 });
      server = undefined;
      const deadTasks = await listJudgeTasks(database.db, deadJob);
      expect(deadTasks.map((t) => t.status)).toEqual(['pending', 'pending', 'pending']);
    } finally {
      await database.close();
    }
  },
  OPEN_TIMEOUT_MS,
);
