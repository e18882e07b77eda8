// Process-level tests: `assay judge` killed with SIGKILL in the middle of a job, then run
// again with the same command, against the OpenAI-compatible TEST DOUBLE (never a judge).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AssayDb } from '@assay/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  countRows,
  createIsolatedSchema,
  openTestDatabase,
  queryRows,
  testDatabaseUrl,
} from '@assay/platform/testing';
import { testDoublePerTest } from './cli-fixtures.js';
import {
  docNumber,
  expectedQrels,
  gradedAnswer,
  judgeArgs,
  POOL_SIZE,
  writeJudgeFixtures,
} from './judge-fixtures.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

beforeAll(() => {
  // test/global-setup.ts builds the bundle before every test run; build only when missing.
  if (!existsSync(join(root, 'apps/cli/dist/assay.mjs')))
    execFileSync(process.execPath, ['apps/cli/build.mjs'], { cwd: root });
});

// The double is closed after each test, once the children below are killed.
const double = testDoublePerTest();
const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
});

interface Judge {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | string>;
}

function startAssay(command: string, env: Record<string, string>, args: string[]): Judge {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  if (!('DATABASE_URL' in env)) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ['apps/cli/bin/assay.js', command, ...args], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { child, output: () => output, exited };
}

async function until(condition: () => boolean, what: string, output: () => string) {
  const deadline = Date.now() + 120_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What the database holds: answered calls by hash, labels, task states. */
async function look(open: () => Promise<AssayDb>) {
  const database = await open();
  try {
    const calls = await queryRows<{ hash: string }>(
      database.db,
      'select hash from llm_calls where response is not null',
    );
    const tasks = await queryRows<{ status: string; n: string | number }>(
      database.db,
      'select status, count(*) as n from judge_tasks group by status',
    );
    return {
      answeredHashes: calls.map((r) => r.hash),
      labels: await countRows(database.db, 'labels'),
      tasks: Object.fromEntries(tasks.map((r) => [r.status, Number(r.n)])),
    };
  } finally {
    await database.close();
  }
}

async function killAndRerun(
  env: Record<string, string>,
  openAt: (dataDir: string) => Promise<AssayDb>,
) {
  const dir = mkdtempSync(join(tmpdir(), 'assay-judge-kill-'));
  const open = () => openAt(join(dir, 'data'));
  try {
    const files = writeJudgeFixtures(dir);
    const out = join(dir, 'llm.qrels');
    let delayMs = 400;
    const server = await double.start((body) => gradedAnswer(body, delayMs));
    const args = [...judgeArgs(files, out), '--concurrency', '3', '--base-url', server.baseURL];
    const childEnv = { ...env, ASSAY_DATA_DIR: join(dir, 'data'), OPENAI_API_KEY: 'test-key' };

    // Run 1: killed once some answers were delivered and others are in flight.
    const first = startAssay('judge', childEnv, args);
    const s = server;
    await until(
      () => s.delivered.length >= 4 && s.requests.length > s.delivered.length,
      'answers delivered with more in flight',
      first.output,
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    // Let any answer the dead process was being sent settle before counting.
    await new Promise((resolve) => setTimeout(resolve, delayMs + 200));
    const deliveredBefore = server.delivered.map((r) => docNumber(r.body));
    const afterKill = await look(open);
    expect(existsSync(out)).toBe(false);
    expect(afterKill.labels).toBeGreaterThan(0);
    expect(afterKill.labels).toBeLessThan(POOL_SIZE);
    expect(afterKill.tasks.running ?? 0).toBeGreaterThan(0);
    const storedBefore = afterKill.answeredHashes.length;
    // Answers delivered to the dead process but not stored yet (at most what was in flight).
    const lost = deliveredBefore.length - storedBefore;
    expect(lost).toBeGreaterThanOrEqual(0);
    expect(lost).toBeLessThanOrEqual(3);

    // Run 2: the same command finishes the job.
    delayMs = 0;
    const second = startAssay('judge', childEnv, args);
    expect(await second.exited, second.output()).toBe(0);
    expect(second.output()).toContain('resuming label set "llm"');
    expect(readFileSync(out, 'utf8')).toBe(expectedQrels());

    const done = await look(open);
    expect(done.labels).toBe(POOL_SIZE);
    expect(done.tasks).toEqual({ labelled: POOL_SIZE });
    // Every answered call is stored once: no paid call was repeated …
    expect(done.answeredHashes).toHaveLength(POOL_SIZE);
    expect(new Set(done.answeredHashes).size).toBe(POOL_SIZE);
    // … and the rerun asked exactly for the items whose answer was not stored.
    const deliveredAfter = server.delivered
      .slice(deliveredBefore.length)
      .map((r) => docNumber(r.body));
    expect(deliveredAfter).toHaveLength(POOL_SIZE - storedBefore);
    expect(server.delivered.length).toBe(POOL_SIZE + lost);
    const perItem = new Map<number, number>();
    for (const r of server.delivered)
      perItem.set(docNumber(r.body), (perItem.get(docNumber(r.body)) ?? 0) + 1);
    expect(perItem.size).toBe(POOL_SIZE);
    expect([...perItem.values()].filter((n) => n > 1)).toHaveLength(lost);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('assay judge killed mid-job', () => {
  it('resumes on embedded PGlite: every item labelled once, no stored answer paid again', async () => {
    await killAndRerun({}, (dataDir) => openTestDatabase({ dataDir: join(dataDir, 'pglite') }));
  }, 240_000);

  describe.runIf(testDatabaseUrl())('on PostgreSQL', () => {
    let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
    afterAll(async () => {
      await schema?.drop();
    });

    it('resumes on PostgreSQL: every item labelled once, no stored answer paid again', async () => {
      schema = await createIsolatedSchema(testDatabaseUrl()!);
      const url = schema.url;
      await killAndRerun({ DATABASE_URL: url }, () =>
        openTestDatabase({ databaseUrl: url, maxConnections: 1 }),
      );
    }, 240_000);
  });

  it('stops gracefully on Ctrl-C: in-flight answers are stored and labelled, qrels written, no lease left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-judge-int-'));
    try {
      const files = writeJudgeFixtures(dir);
      const out = join(dir, 'llm.qrels');
      const server = await double.start((body) => gradedAnswer(body, 300));
      const s = server;
      const run = startAssay(
        'judge',
        { ASSAY_DATA_DIR: join(dir, 'data'), OPENAI_API_KEY: 'test-key' },
        [...judgeArgs(files, out), ...['--concurrency', '3', '--base-url', server.baseURL]],
      );
      await until(
        () => s.delivered.length >= 2 && s.requests.length > s.delivered.length,
        'answers delivered with more in flight',
        run.output,
      );
      run.child.kill('SIGINT');
      expect(await run.exited, run.output()).toBe(6);
      expect(run.output()).toContain('stopping: finishing the items in flight');
      const state = await look(() => openTestDatabase({ dataDir: join(dir, 'data', 'pglite') }));
      expect(state.tasks.running ?? 0).toBe(0);
      // Every answer the double delivered was stored and labelled; nothing is lost.
      expect(state.answeredHashes).toHaveLength(server.delivered.length);
      expect(state.labels).toBe(server.delivered.length);
      expect(state.labels).toBeLessThan(POOL_SIZE);
      const qrels = readFileSync(out, 'utf8');
      expect(qrels.trim().split('\n')).toHaveLength(state.labels);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

describe.runIf(testDatabaseUrl())('assay worker on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
  afterAll(async () => {
    await schema?.drop();
  });

  it('two worker processes share a job enqueued by assay judge; each item is judged once', async () => {
    schema = await createIsolatedSchema(testDatabaseUrl()!);
    const dir = mkdtempSync(join(tmpdir(), 'assay-worker-'));
    try {
      const files = writeJudgeFixtures(dir);
      const out = join(dir, 'llm.qrels');
      const server = await double.start((body) => gradedAnswer(body, 50));
      const env = { DATABASE_URL: schema.url, ASSAY_DATA_DIR: dir, OPENAI_API_KEY: 'test-key' };
      const judging = [...judgeArgs(files, out), '--base-url', server.baseURL];
      const enqueue = startAssay('judge', env, [...judging, '--enqueue']);
      expect(await enqueue.exited, enqueue.output()).toBe(0);
      const job = /judge job (\d+)/.exec(enqueue.output())![1]!;
      expect(enqueue.output()).toContain(`${POOL_SIZE} items, ${POOL_SIZE} added`);
      expect(server.requests).toHaveLength(0);

      const workerArgs = ['--job', job, '--concurrency', '2', '--base-url', server.baseURL];
      const workers = [
        startAssay('worker', env, workerArgs),
        startAssay('worker', env, workerArgs),
      ];
      for (const w of workers) expect(await w.exited, w.output()).toBe(0);
      const labelled = workers.map((w) => Number(/labelled (\d+)/.exec(w.output())![1]));
      expect(labelled[0]! + labelled[1]!).toBe(POOL_SIZE);
      const docs = server.delivered.map((r) => docNumber(r.body));
      expect(docs).toHaveLength(POOL_SIZE);
      expect(new Set(docs).size).toBe(POOL_SIZE);

      // The judge command then finds everything labelled and writes the qrels.
      const finish = startAssay('judge', env, judging);
      expect(await finish.exited, finish.output()).toBe(0);
      expect(finish.output()).toContain('0 calls paid');
      expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
      expect(server.requests).toHaveLength(POOL_SIZE);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
