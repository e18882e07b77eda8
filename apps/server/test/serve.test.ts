// Process-level tests: `assay serve` as users start it (npm start runs the same command).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  countRows,
  createIsolatedSchema,
  openTestDatabase,
  queryRows,
  testDatabaseUrl,
} from '@assay/platform/testing';
import {
  ensureCliBundle,
  freePort,
  killStartedAssays,
  root,
  startAssay,
  type Assay,
} from './assay-process.js';

const ADMIN = 'assay_process-test-admin-token';

beforeAll(ensureCliBundle);
afterEach(killStartedAssays);

async function get(assay: Assay, path: string, token: string) {
  const response = await fetch(`${assay.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

/** POSTs a body with node:http, reporting when the body has been handed to the socket. */
function upload(url: string, body: string, onSent: () => void) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN}`,
          'content-type': 'text/plain',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('finish', onSent);
    req.end(body);
  });
}

/** A 300,000-line run over Cranfield's 225 topics (about 10 MB). */
function bigRun(): string {
  const lines: string[] = [];
  for (let i = 0; i < 300_000; i++) {
    const topic = 1 + (i % 225);
    const rank = 1 + Math.floor(i / 225);
    lines.push(`${topic} Q0 ${1 + ((i * 7) % 1400)}-${rank} ${rank} ${(1 / rank).toFixed(6)} big`);
  }
  return `${lines.join('\n')}\n`;
}

describe('assay serve', () => {
  it('rejects a bad --port before opening anything', () => {
    const result = spawnSync(process.execPath, ['apps/cli/bin/assay.js', 'serve', '--port', 'x'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('assay serve: --port must be a port number (1-65535)\n');
  });

  it('migrates an empty data dir, loads Cranfield, prints the admin token once, and stops cleanly', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'assay-serve-'));
    try {
      const port = await freePort();
      const first = await startAssay({ ASSAY_DATA_DIR: dataDir, PORT: String(port) });
      const token = /Authorization: Bearer (assay_[A-Za-z0-9_-]+)/.exec(first.output())?.[1];
      expect(token, first.output()).toBeDefined();
      expect(first.output()).toContain(`assay is serving http://127.0.0.1:${port}/api`);
      expect(first.output()).toMatch(
        /loaded the Cranfield demo collection: 1400 documents, 225 topics/,
      );
      expect(await get(first, '/collections', token!)).toEqual({
        status: 200,
        body: [
          expect.objectContaining({ name: 'cranfield', documentCount: 1400, topicCount: 225 }),
        ],
      });
      expect((await get(first, '/collections', 'assay_wrong')).status).toBe(401);
      // The demo runs are retrieved once the server listens; the log says when they are in.
      const deadline = Date.now() + 120_000;
      while (!/stored the demo runs of cranfield/.test(first.output()) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(first.output()).toContain('stored the demo runs of cranfield: bm25, rm3, rocchio');
      const runs = (await get(first, '/collections/cranfield/runs', token!)).body as Array<{
        name: string;
        topicCount: number;
      }>;
      expect(runs.map((r) => [r.name, r.topicCount]).sort()).toEqual([
        ['bm25', 225],
        ['rm3', 225],
        ['rocchio', 225],
      ]);
      expect(await first.stop('SIGTERM')).toBe(0);
      expect(first.output()).toMatch(/stopped/);

      // Same data dir, port from --port: no second demo, no second token, the first still works.
      const port2 = await freePort();
      const second = await startAssay({ ASSAY_DATA_DIR: dataDir }, ['--port', String(port2)]);
      expect(second.output()).not.toContain(token!);
      expect(second.output()).not.toMatch(/Cranfield|created the admin/);
      expect((await get(second, '/collections', token!)).status).toBe(200);
      expect(await second.stop('SIGINT')).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});

/**
 * Kills the server with SIGKILL in the middle of importing a large run, restarts it on
 * the same database, and checks that nothing of the run was kept. `writing()` tells from
 * outside the server when the import's transaction is writing rows; the kill follows.
 */
async function killDuringImport(
  env: Record<string, string>,
  writing: () => Promise<boolean>,
  countRows: () => Promise<{ runs: number; entries: number }>,
) {
  const port = String(await freePort());
  let assay = await startAssay({ ...env, PORT: port, ASSAY_ADMIN_TOKEN: ADMIN });
  const victim = assay;
  // The demo's own runs are written first, so that only the upload is writing at the kill.
  const demo = await demoRunsOf(assay);
  let answered = false;
  let sent = false;
  const outcome = upload(`${assay.url}/collections/cranfield/runs?name=victim`, bigRun(), () => {
    sent = true;
  }).then(
    (response) => {
      answered = true;
      return `answered ${response.status} before the kill`;
    },
    () => 'no answer',
  );
  const deadline = Date.now() + 120_000;
  let caughtWriting = false;
  while (!answered && Date.now() < deadline) {
    if (sent && (await writing())) {
      caughtWriting = true;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  victim.child.kill('SIGKILL');
  expect(await outcome).toBe('no answer');
  expect(caughtWriting).toBe(true);
  expect(await victim.stop()).toBe('SIGKILL');

  assay = await startAssay({ ...env, PORT: port, ASSAY_ADMIN_TOKEN: ADMIN });
  expect(await get(assay, '/collections/cranfield/runs', ADMIN)).toEqual({
    status: 200,
    body: demo.runs,
  });
  expect((await get(assay, '/collections/cranfield/runs/victim', ADMIN)).status).toBe(404);
  expect(await assay.stop()).toBe(0);
  expect(await countRows()).toEqual({ runs: 3, entries: demo.entries });
}

/** Waits until a first start has stored the demo runs; their listing and entry count. */
async function demoRunsOf(assay: Assay) {
  const deadline = Date.now() + 120_000;
  while (!/stored the demo runs of cranfield/.test(assay.output()) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const runs = (await get(assay, '/collections/cranfield/runs', ADMIN)).body as Array<{
    name: string;
    entryCount: number;
  }>;
  expect(runs.map((r) => r.name).sort()).toEqual(['bm25', 'rm3', 'rocchio']);
  return { runs, entries: runs.reduce((sum, r) => sum + r.entryCount, 0) };
}

/** Bytes in the files under `dir`. */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    try {
      total += entry.isDirectory() ? sizeOf(path) : statSync(path).size;
    } catch {
      // a temporary file went away between listing and stat
    }
  }
  return total;
}

async function countRuns(open: () => ReturnType<typeof openTestDatabase>) {
  const database = await open();
  try {
    return {
      runs: await countRows(database.db, 'runs'),
      entries: await countRows(database.db, 'run_entries'),
    };
  } finally {
    await database.close();
  }
}

describe('assay serve killed during an import', () => {
  it('keeps no trace of the run on embedded PGlite', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'assay-kill-'));
    const tables = join(dataDir, 'pglite', 'base');
    let before: number | undefined;
    try {
      await killDuringImport(
        { ASSAY_DATA_DIR: dataDir },
        // The run's rows are being written once the table files have grown by a few MB.
        async () => sizeOf(tables) - (before ??= sizeOf(tables)) > 4 * 1024 * 1024,
        () => countRuns(() => openTestDatabase({ dataDir: join(dataDir, 'pglite') })),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);

  describe.runIf(testDatabaseUrl())('on PostgreSQL', () => {
    let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
    afterAll(async () => {
      await schema?.drop();
    });

    it('keeps no trace of the run on PostgreSQL', async () => {
      schema = await createIsolatedSchema(testDatabaseUrl()!);
      // The server's connections carry a name of their own, to be found in pg_stat_activity.
      const name = `assay-kill-test-${process.pid}`;
      const url = new URL(schema.url);
      url.searchParams.set('application_name', name);
      const dataDir = mkdtempSync(join(tmpdir(), 'assay-kill-pg-'));
      const monitor = await openTestDatabase({
        databaseUrl: testDatabaseUrl()!,
        migrate: false,
        maxConnections: 1,
      });
      try {
        await killDuringImport(
          { DATABASE_URL: url.toString(), ASSAY_DATA_DIR: dataDir },
          // A transaction of the server has written and is inserting run entries.
          async () => {
            // The application name is this test's own, made of letters, digits and dashes.
            const [row] = await queryRows<{ n: string | number }>(
              monitor.db,
              `select count(*) as n from pg_stat_activity
               where application_name = '${name}' and backend_xid is not null
                 and query ilike '%run_entries%'`,
            );
            return Number(row!.n) > 0;
          },
          () => countRuns(() => openTestDatabase({ databaseUrl: schema!.url, maxConnections: 1 })),
        );
      } finally {
        await monitor.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 300_000);
  });
});
