// Process-level tests of the embedded data directory's lock: `assay serve` holds it, and
// `assay import qrels` from the same directory must fail without writing anything; once
// the server stops (or is killed with SIGKILL) the same import succeeds and nothing the
// server wrote is lost. Also: a command run from a subfolder uses the parent's `.assay`.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listLabelSets } from '@assay/platform';
import { openTestDatabase } from '@assay/platform/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'apps/cli/bin/assay.js');
const TOKEN = 'lock-test-admin-token-0123456789';

beforeAll(() => {
  if (!existsSync(join(root, 'apps/cli/dist/assay.mjs')))
    execFileSync(process.execPath, ['apps/cli/build.mjs'], { cwd: root });
});

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
});

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
  Object.assign(env, extra);
  delete env.DATABASE_URL;
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  return env;
}

/** Starts `assay serve` in `cwd` and waits until /api/health answers. */
async function serve(cwd: string, env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve'], {
    cwd,
    env: cleanEnv({ ...env, PORT: String(port), ASSAY_ADMIN_TOKEN: TOKEN }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}/api`;
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`assay serve exited:\n${output}`);
    if (Date.now() > deadline) throw new Error(`assay serve did not answer:\n${output}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, url, exited, output: () => output };
}

function assay(cwd: string, env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd,
    env: cleanEnv(env),
    encoding: 'utf8',
  });
}

const QRELS = '1 0 184 2\n1 0 29 1\n2 0 12 0\n';

describe('one process at a time on an embedded data directory', () => {
  it('refuses `assay import qrels` while `assay serve` holds the directory, and loses nothing', async () => {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'assay-lock-proc-')));
    const dataDir = join(work, '.assay');
    const env = { ASSAY_DATA_DIR: dataDir };
    const qrels = join(work, 'cli.qrels');
    writeFileSync(qrels, QRELS);
    /** `assay import qrels` of the same file into label set `name` of cranfield. */
    const importQrels = (name: string) =>
      assay(work, env, 'import', 'qrels', '--collection', 'cranfield', '--label-set', name, qrels);

    const server = await serve(work, env);
    const refused = importQrels('cli-import');
    expect(refused.status).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      `database in use by assay serve (pid ${server.child.pid}); stop it, or use the API, or set DATABASE_URL`,
    );
    // `assay judge --dry-run` opens the database too: refused the same way.
    const topics = join(work, 'topics.tsv');
    writeFileSync(topics, '1\tglider wings\n');
    const docs = join(work, 'docs.jsonl');
    writeFileSync(docs, '{"id":"184","text":"wings"}\n');
    const pool = join(work, 'pool.txt');
    writeFileSync(pool, '1\t184\n');
    const judgeArgs = ['--judge', 'graded-0-3', '--model', 'm', '--topics', topics];
    const dryRun = assay(
      work,
      env,
      'judge',
      '--dry-run',
      ...judgeArgs,
      '--docs',
      docs,
      '--pool',
      pool,
      '--out',
      join(work, 'x.qrels'),
    );
    expect(dryRun.stderr).toContain(`database in use by assay serve (pid ${server.child.pid})`);

    // The server keeps working and stores a label set of its own through the API.
    const uploaded = await fetch(`${server.url}/collections/cranfield/label-sets?name=api-upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' },
      body: QRELS,
    });
    expect(uploaded.status).toBe(201);
    const apiSet = (await uploaded.json()) as { id: number };

    server.child.kill('SIGTERM');
    await server.exited;
    expect(existsSync(`${join(dataDir, 'pglite')}.lock`)).toBe(false);

    const imported = importQrels('cli-import');
    expect(imported.stderr).toBe('');
    expect(imported.status).toBe(0);

    // Killed with SIGKILL, the server leaves its lock behind: the next process takes it over.
    const killed = await serve(work, env);
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(existsSync(`${join(dataDir, 'pglite')}.lock`)).toBe(true);
    const after = importQrels('after-kill');
    expect(after.stderr).toBe('');
    expect(after.status).toBe(0);

    const database = await openTestDatabase({ dataDir: join(dataDir, 'pglite') });
    try {
      const sets = await listLabelSets(database.db, 'cranfield');
      const byName = new Map(sets.map((set) => [set.name, set]));
      expect(byName.get('api-upload')?.id).toBe(apiSet.id);
      expect(byName.get('api-upload')?.labelCount).toBe(3);
      expect(byName.get('cli-import')?.labelCount).toBe(3);
      expect(byName.get('after-kill')?.labelCount).toBe(3);
      expect(new Set(sets.map((set) => set.id)).size).toBe(sets.length);
    } finally {
      await database.close();
    }
  }, 600_000);

  it('uses the .assay of a parent folder from a subfolder, and says so', () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'assay-find-proc-')));
    mkdirSync(join(project, '.assay'));
    const sub = join(project, 'runs', 'dl');
    mkdirSync(sub, { recursive: true });
    const docs = join(sub, 'docs.jsonl');
    writeFileSync(docs, '{"id":"d1","text":"one"}\n');
    const imported = assay(sub, {}, 'import', 'collection', '--name', 'found', docs);
    expect(imported.status).toBe(0);
    expect(imported.stderr).toBe(`assay: data directory ${join(project, '.assay')}\n`);
    const migrated = assay(sub, {}, 'db', 'migrate');
    const where = `embedded PGlite in ${join(project, '.assay', 'pglite')}: `;
    expect(migrated.stdout.slice(0, where.length)).toBe(where);
    expect(migrated.stdout.slice(where.length)).toMatch(/^up to date \(\d+ migration\(s\)\)\n$/);
    expect(existsSync(join(project, '.assay', 'pglite', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(sub, '.assay'))).toBe(false);
  }, 240_000);
});
