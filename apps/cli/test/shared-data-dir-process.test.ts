// Process-level tests of one embedded data directory used by several processes: while
// `assay serve` holds it, `assay import` and `assay judge` (against the OpenAI-compatible
// TEST DOUBLE) from the same directory work on the server's database and call store; a
// second server is refused with exit 1; what they wrote is there after a restart; a
// command holding the directory (not a server) still refuses others; a server killed with
// SIGKILL leaves a lock the next process takes over. Also: a command run from a subfolder
// uses the parent's `.assay`.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listLabelSets } from '@assay/platform';
import { openTestDatabase } from '@assay/platform/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDoublePerTest } from './cli-fixtures.js';
import {
  expectedQrels,
  gradedAnswer,
  judgeArgs,
  POOL_SIZE,
  writeJudgeFixtures,
} from './judge-fixtures.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'apps/cli/bin/assay.js');
const TOKEN = 'lock-test-admin-token-0123456789';

beforeAll(() => {
  if (!existsSync(join(root, 'apps/cli/dist/assay.mjs')))
    execFileSync(process.execPath, ['apps/cli/build.mjs'], { cwd: root });
});

const double = testDoublePerTest();
const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * An OpenAI-compatible TEST DOUBLE that holds every request until `answerAll()`, then
 * answers it (and every later one) as `gradedAnswer` does.
 */
function heldDouble() {
  const waiting: Array<() => void> = [];
  let answering = false;
  const server = createHttpServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const answer = () => {
        const reply = (
          gradedAnswer(JSON.parse(text) as Record<string, unknown>) as { reply: string }
        ).reply;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-held',
            object: 'chat.completion',
            created: 0,
            model: 'gpt-4o-mini',
            choices: [
              { index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' },
            ],
            usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
          }),
        );
      };
      if (answering) answer();
      else waiting.push(answer);
    });
  });
  return {
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => {
          const { port } = server.address() as AddressInfo;
          resolve(`http://127.0.0.1:${port}/v1`);
        }),
      ),
    waiting: () => waiting.length,
    answerAll() {
      answering = true;
      for (const answer of waiting.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function cleanEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  // Only what a test gives: the data directory is found from the working directory.
  delete env.ASSAY_DATA_DIR;
  delete env.DATABASE_URL;
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  Object.assign(env, extra);
  return env;
}

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | string>;
}

function start(cwd: string, env: Record<string, string>, args: string[]): Started {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: cleanEnv(env),
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

/** Starts `assay serve` in `cwd` and waits until /api/health answers. */
async function serve(cwd: string, env: Record<string, string>) {
  const port = await freePort();
  const server = start(cwd, { ...env, PORT: String(port), ASSAY_ADMIN_TOKEN: TOKEN }, ['serve']);
  const url = `http://127.0.0.1:${port}/api`;
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`assay serve exited:\n${server.output()}`);
    if (Date.now() > deadline) throw new Error(`assay serve did not answer:\n${server.output()}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { ...server, url, port };
}

/** Runs an assay command to its end without blocking this process (the double answers here). */
async function assay(cwd: string, env: Record<string, string>, ...args: string[]) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  return { status, stdout, stderr };
}

async function labelSetNames(url: string, collection: string): Promise<string[]> {
  const response = await fetch(`${url}/collections/${collection}/label-sets`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as
    Array<{ name: string }> | { items: Array<{ name: string }> };
  return (Array.isArray(body) ? body : body.items).map((set) => set.name);
}

const QRELS = '1 0 184 2\n1 0 29 1\n2 0 12 0\n';
const RUN = '1 Q0 184 1 2.5 cli-run\n1 Q0 29 2 1.5 cli-run\n2 Q0 12 1 0.5 cli-run\n';

describe('one embedded data directory, every process', () => {
  it('runs imports and judging through a running `assay serve`, on its data and its call store', async () => {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'assay-shared-proc-')));
    const dataDir = join(work, '.assay');
    const env = { ASSAY_DATA_DIR: dataDir };
    writeFileSync(join(work, 'cli.qrels'), QRELS);
    writeFileSync(join(work, 'cli.run'), RUN);
    const files = writeJudgeFixtures(work);
    const out = join(work, 'llm.qrels');
    const llm = await double.start((body) => gradedAnswer(body));
    const judgeEnv = { ...env, OPENAI_API_KEY: 'test-key' };
    const judge = (...extra: string[]) =>
      assay(work, judgeEnv, 'judge', ...judgeArgs(files, out), '--base-url', llm.baseURL, ...extra);

    const server = await serve(work, env);
    const through = `assay: data directory ${dataDir}, through assay serve (pid ${server.child.pid})\n`;
    expect(server.output()).toContain(
      `use this server's database while it runs (socket ${join(dataDir, 'pglite.socket', '.s.PGSQL.5432')})`,
    );

    const imported = await assay(
      work,
      env,
      ...['import', 'qrels', '--collection', 'cranfield', '--label-set', 'cli-import'],
      join(work, 'cli.qrels'),
    );
    expect(imported.stderr).toBe(through);
    expect(imported.status).toBe(0);
    // The web app's hint for a collection without runs works while the server runs.
    const run = await assay(
      work,
      env,
      'import',
      'run',
      '--collection',
      'cranfield',
      join(work, 'cli.run'),
    );
    expect(run.stderr).toBe(through);
    expect(run.status).toBe(0);
    // The server sees at once what the commands wrote.
    expect(await labelSetNames(server.url, 'cranfield')).toContain('cli-import');
    const runs = await fetch(`${server.url}/collections/cranfield/runs/cli-run`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(runs.status).toBe(200);

    const judged = await judge();
    expect(judged.stderr).toContain(through);
    expect(judged.status, judged.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
    expect(llm.requests).toHaveLength(POOL_SIZE);
    // Another label set judged with the same prompts: every answer from the shared store.
    const again = await judge('--label-set', 'llm-again');
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `(${POOL_SIZE} this run, ${POOL_SIZE} of them from stored answers); 0 calls paid`,
    );
    expect(llm.requests).toHaveLength(POOL_SIZE);

    // A second server on the held directory is refused, exit 1, naming the holder.
    const second = await assay(work, { ...env, PORT: String(await freePort()) }, 'serve');
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(
      `assay serve: cannot open the database (embedded PGlite in ${join(dataDir, 'pglite')}): database in use by assay serve (pid ${server.child.pid})`,
    );
    expect(second.stderr).not.toContain('internal error');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'pglite.socket'))).toBe(false);

    // After a restart: everything is there, and judging again sends no request.
    const restarted = await serve(work, env);
    const names = await labelSetNames(restarted.url, 'cranfield');
    expect(names).toContain('cli-import');
    expect(await labelSetNames(restarted.url, 'judge-files')).toEqual(
      expect.arrayContaining(['llm', 'llm-again']),
    );
    const rerun = await judge();
    expect(rerun.stderr).toContain(
      `assay: data directory ${dataDir}, through assay serve (pid ${restarted.child.pid})`,
    );
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
    expect(llm.requests).toHaveLength(POOL_SIZE);
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).toBe(0);
  }, 600_000);

  it('refuses others while a command that does not share holds the directory', async () => {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'assay-held-proc-')));
    const env = { ASSAY_DATA_DIR: join(work, '.assay'), OPENAI_API_KEY: 'test-key' };
    writeFileSync(join(work, 'cli.qrels'), QRELS);
    const files = writeJudgeFixtures(work);
    // The double holds every answer back: the judge keeps the directory meanwhile.
    const llm = await double.start((body) => gradedAnswer(body, 120_000));
    const judge = start(work, env, [
      'judge',
      ...judgeArgs(files, join(work, 'llm.qrels')),
      '--base-url',
      llm.baseURL,
    ]);
    const deadline = Date.now() + 240_000;
    while (llm.requests.length === 0) {
      if (judge.child.exitCode !== null || Date.now() > deadline)
        throw new Error(`assay judge did not ask:\n${judge.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const refused = await assay(
      work,
      env,
      ...['import', 'qrels', '--collection', 'judge-files', '--label-set', 'x'],
      join(work, 'cli.qrels'),
    );
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      `database in use by assay judge (pid ${judge.child.pid}); stop it, or use the API, or set DATABASE_URL`,
    );
    judge.child.kill('SIGKILL');
  }, 600_000);

  it('takes over the lock of a server killed with SIGKILL, losing nothing', async () => {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'assay-killed-proc-')));
    const dataDir = join(work, '.assay');
    const env = { ASSAY_DATA_DIR: dataDir };
    writeFileSync(join(work, 'cli.qrels'), QRELS);
    const killed = await serve(work, env);
    const uploaded = await fetch(`${killed.url}/collections/cranfield/label-sets?name=api-upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' },
      body: QRELS,
    });
    expect(uploaded.status).toBe(201);
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(true);
    const after = await assay(
      work,
      env,
      ...['import', 'qrels', '--collection', 'cranfield', '--label-set', 'after-kill'],
      join(work, 'cli.qrels'),
    );
    expect(after.stderr).toBe('');
    expect(after.status).toBe(0);
    // A new server on the directory shares it again (its socket left behind is replaced).
    const next = await serve(work, env);
    const through = await assay(
      work,
      env,
      ...['import', 'qrels', '--collection', 'cranfield', '--label-set', 'after-restart'],
      join(work, 'cli.qrels'),
    );
    expect(through.status, through.stderr).toBe(0);
    next.child.kill('SIGTERM');
    await next.exited;

    const database = await openTestDatabase({ dataDir: join(dataDir, 'pglite') });
    try {
      const sets = await listLabelSets(database.db, 'cranfield');
      const byName = new Map(sets.map((set) => [set.name, set]));
      expect(byName.get('api-upload')?.labelCount).toBe(3);
      expect(byName.get('after-kill')?.labelCount).toBe(3);
      expect(byName.get('after-restart')?.labelCount).toBe(3);
    } finally {
      await database.close();
    }
  }, 600_000);

  it('fails a command the stopping server cuts off with exit 1; run again, it finishes', async () => {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'assay-cut-proc-')));
    const dataDir = join(work, '.assay');
    const env = { ASSAY_DATA_DIR: dataDir, OPENAI_API_KEY: 'test-key' };
    const files = writeJudgeFixtures(work);
    const out = join(work, 'llm.qrels');
    // The double holds its answers until the server has stopped.
    const held = heldDouble();
    cleanups.push(held.close);
    const baseURL = await held.listen();
    const args = ['judge', ...judgeArgs(files, out), '--base-url', baseURL];
    const server = await serve(work, env);
    const judge = start(work, env, args);
    const deadline = Date.now() + 240_000;
    while (held.waiting() === 0) {
      if (judge.child.exitCode !== null || Date.now() > deadline)
        throw new Error(`assay judge did not ask:\n${judge.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    held.answerAll();
    expect(await judge.exited).toBe(1);
    expect(judge.output()).toContain(
      `assay judge: lost the database: assay serve (pid ${server.child.pid}) stopped or cut this command off`,
    );
    expect(judge.output()).toContain('run the command again');
    const again = await assay(work, env, ...args);
    expect(again.status, again.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
  }, 600_000);

  it('uses the .assay of a parent folder from a subfolder, and says so', () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'assay-find-proc-')));
    mkdirSync(join(project, '.assay'));
    const sub = join(project, 'runs', 'dl');
    mkdirSync(sub, { recursive: true });
    const docs = join(sub, 'docs.jsonl');
    writeFileSync(docs, '{"id":"d1","text":"one"}\n');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], {
        cwd: sub,
        env: cleanEnv({}),
        encoding: 'utf8',
      });
    const imported = run('import', 'collection', '--name', 'found', docs);
    expect(imported.status).toBe(0);
    expect(imported.stderr).toBe(`assay: data directory ${join(project, '.assay')}\n`);
    const migrated = run('db', 'migrate');
    const where = `embedded PGlite in ${join(project, '.assay', 'pglite')}: `;
    expect(migrated.stdout.slice(0, where.length)).toBe(where);
    expect(migrated.stdout.slice(where.length)).toMatch(/^up to date \(\d+ migration\(s\)\)\n$/);
    expect(existsSync(join(project, '.assay', 'pglite', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(sub, '.assay'))).toBe(false);
  }, 240_000);
});
