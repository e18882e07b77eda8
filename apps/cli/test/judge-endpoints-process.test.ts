// Process-level tests of who judges a job: `assay serve` runs with its worker on endpoint A
// while `assay judge` and `assay worker` run from the same folder (one embedded data
// directory, real processes) against endpoint B. Both endpoints are OpenAI-compatible TEST
// DOUBLES (never a judge); each counts the requests it got.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import {
  docNumber,
  expectedQrels,
  gradedAnswer,
  judgeArgs,
  POOL_SIZE,
  writeJudgeFixtures,
} from './judge-fixtures.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'apps/cli/bin/assay.js');
const TOKEN = 'endpoint-test-admin-token-0123456';

beforeAll(() => {
  if (!existsSync(join(root, 'apps/cli/dist/assay.mjs')))
    execFileSync(process.execPath, ['apps/cli/build.mjs'], { cwd: root });
});

const children = new Set<ChildProcess>();
const doubles: TestServer[] = [];
afterEach(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
  for (const server of doubles.splice(0)) await server.close();
});

/** An endpoint: a test double answering as `gradedAnswer`, after `delayMs`. */
async function endpoint(delayMs = 0): Promise<TestServer> {
  const server = await startOpenAITestServer((body) => gradedAnswer(body, delayMs));
  doubles.push(server);
  return server;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

interface Started {
  child: ChildProcess;
  output(): string;
  stdout(): string;
  exited: Promise<number | string>;
}

/** Starts `assay ARGS` in `cwd` with only the environment given (and PATH, HOME …). */
function start(cwd: string, env: Record<string, string>, args: string[]): Started {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  for (const name of ['ASSAY_DATA_DIR', 'DATABASE_URL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'])
    delete childEnv[name];
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...childEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { child, output: () => output, stdout: () => stdout, exited };
}

/** `assay serve` in `cwd`, once /api/health answers and its worker has started. */
async function serve(cwd: string, env: Record<string, string>) {
  const port = await freePort();
  const server = start(cwd, { ...env, PORT: String(port), ASSAY_ADMIN_TOKEN: TOKEN }, ['serve']);
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`assay serve exited:\n${server.output()}`);
    if (Date.now() > deadline) throw new Error(`assay serve did not answer:\n${server.output()}`);
    try {
      const up = (await fetch(`http://127.0.0.1:${port}/api/health`)).ok;
      if (up && server.output().includes('judging judge jobs in this server')) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return server;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `assay serve` on endpoint A and `assay judge --base-url B` from the same folder, on the
 * database `database` gives (the embedded one of the folder, or PostgreSQL): every request
 * goes to B, none to A, and the command labels every item itself.
 */
async function judgeBesideServer(database: Record<string, string>) {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'assay-endpoints-')));
  const files = writeJudgeFixtures(work);
  const out = join(work, 'llm.qrels');
  const a = await endpoint();
  // Slow enough answers that the server's worker (polling every 2 s) looks while items wait.
  const b = await endpoint(400);
  const env = { ASSAY_DATA_DIR: join(work, '.assay'), OPENAI_API_KEY: 'test-key', ...database };
  const server = await serve(work, { ...env, OPENAI_BASE_URL: a.baseURL });
  // The same folder and environment, with the endpoint on the command line.
  const judge = start(work, { ...env, OPENAI_BASE_URL: a.baseURL }, [
    ...['judge', ...judgeArgs(files, out)],
    ...['--concurrency', '2', '--base-url', b.baseURL],
  ]);
  expect(await judge.exited, judge.output()).toBe(0);
  expect(judge.stdout()).toContain(
    `labelled ${POOL_SIZE} of ${POOL_SIZE} items (${POOL_SIZE} this run`,
  );
  expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
  expect(b.requests).toHaveLength(POOL_SIZE);
  expect(new Set(b.requests.map((r) => docNumber(r.body))).size).toBe(POOL_SIZE);
  expect(a.requests).toHaveLength(0);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

describe('assay judge beside assay serve on one data directory', () => {
  it('judges its job at its own --base-url: every request to B, none to the server’s A, exit 0', async () => {
    await judgeBesideServer({});
  }, 600_000);

  it('keeps its job when both call the same endpoint: the command judges every item itself', async () => {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'assay-endpoints-same-')));
    const files = writeJudgeFixtures(work);
    const out = join(work, 'llm.qrels');
    const a = await endpoint(400);
    const env = {
      ASSAY_DATA_DIR: join(work, '.assay'),
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: a.baseURL,
    };
    const server = await serve(work, env);
    const judge = start(work, env, ['judge', ...judgeArgs(files, out), '--concurrency', '2']);
    expect(await judge.exited, judge.output()).toBe(0);
    // Had the server's worker taken items, fewer would count as this run's.
    expect(judge.stdout()).toContain(
      `labelled ${POOL_SIZE} of ${POOL_SIZE} items (${POOL_SIZE} this run`,
    );
    expect(a.requests).toHaveLength(POOL_SIZE);
    expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 600_000);

  it('an enqueued job waits for a worker at its endpoint: neither the server nor a worker at A takes it', async () => {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'assay-endpoints-queue-')));
    const files = writeJudgeFixtures(work);
    const out = join(work, 'llm.qrels');
    const a = await endpoint();
    const b = await endpoint();
    const env = { ASSAY_DATA_DIR: join(work, '.assay'), OPENAI_API_KEY: 'test-key' };
    const server = await serve(work, { ...env, OPENAI_BASE_URL: a.baseURL });
    const judging = [...judgeArgs(files, out), '--base-url', b.baseURL];
    const enqueue = start(work, env, ['judge', ...judging, '--enqueue']);
    expect(await enqueue.exited, enqueue.output()).toBe(0);
    expect(enqueue.stdout()).toContain(`it is judged at ${b.baseURL}`);
    // Two polls of the server's worker (every 2 s) pass: it takes nothing.
    await sleep(4_500);
    expect(a.requests).toHaveLength(0);

    const atA = start(work, env, ['worker', '--base-url', a.baseURL]);
    expect(await atA.exited, atA.output()).toBe(0);
    expect(atA.output()).toContain(
      `assay worker: calling ${a.baseURL}; no job open to workers at this endpoint has work`,
    );
    expect(atA.stdout()).toContain('labelled 0, failed 0');
    const atB = start(work, env, ['worker', '--base-url', b.baseURL]);
    expect(await atB.exited, atB.output()).toBe(0);
    expect(atB.stdout()).toContain(`labelled ${POOL_SIZE}, failed 0`);

    // The same command without --enqueue writes the qrels, sending nothing.
    const finish = start(work, env, ['judge', ...judging]);
    expect(await finish.exited, finish.output()).toBe(0);
    expect(finish.stdout()).toContain('0 calls paid');
    expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
    expect(b.requests).toHaveLength(POOL_SIZE);
    expect(a.requests).toHaveLength(0);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 600_000);
});

describe.runIf(testDatabaseUrl())('assay judge beside assay serve on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
  afterAll(async () => {
    await schema?.drop();
  });

  it('judges its job at its own --base-url: every request to B, none to the server’s A', async () => {
    schema = await createIsolatedSchema(testDatabaseUrl()!);
    await judgeBesideServer({ DATABASE_URL: schema.url });
  }, 600_000);
});
