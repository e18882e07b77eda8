// ASSAY_ADMIN_TOKEN only makes the first admin: a server started later with another value
// says on stderr, once, that the variable is ignored and how tokens are managed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importCollection, loadConfig, openDatabase } from '@assay/platform';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const FIRST = 'assay_first-admin-token-0123456789';
const OTHER = 'assay_other-admin-token-0123456789';
const WARNING =
  "warning: ASSAY_ADMIN_TOKEN is ignored: an admin exists and the variable is none of its live tokens (it only makes the first admin); manage tokens with 'assay users tokens admin', 'assay users token admin' and 'assay users rotate --token ID'\n";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `assay serve` with `env` and `token`, waits for /api/health, checks `token` signs
 * in as it should, stops it, and returns what it printed on stderr.
 */
async function serveOnce(env: Record<string, string>, token: string, works: boolean) {
  const port = await freePort();
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    ...env,
    PORT: String(port),
    ASSAY_ADMIN_TOKEN: token,
    ASSAY_SERVER_WORKER: '0',
  };
  if (!('DATABASE_URL' in env)) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ['apps/cli/bin/assay.js', 'serve'], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`assay serve exited early:\n${stdout}${stderr}`);
      if (Date.now() > deadline) throw new Error(`assay serve did not answer:\n${stdout}${stderr}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const me = await fetch(`http://127.0.0.1:${port}/api/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.status).toBe(works ? 200 : 401);
  } finally {
    child.kill('SIGINT');
    await exited;
  }
  // Everything the server says on stderr before it is told to stop.
  return { stdout, stderr: stderr.split(/^SIGINT/m)[0]! };
}

/** A collection, so that the server does not load the Cranfield demo. */
async function seed(env: Record<string, string>): Promise<void> {
  const database = await openDatabase(loadConfig(env));
  try {
    await importCollection(database.db, { name: 'c', format: 'tsv', text: 'a\tx\n', file: 'd' });
  } finally {
    await database.close();
  }
}

async function checkWarning(env: Record<string, string>): Promise<void> {
  await seed(env);
  const first = await serveOnce(env, FIRST, true);
  expect(first.stdout).toContain('created the admin user with the token from ASSAY_ADMIN_TOKEN');
  expect(first.stderr).toBe('');
  // Another value later: the admin keeps its token, the new value signs nobody in.
  const other = await serveOnce(env, OTHER, false);
  expect(other.stderr).toBe(WARNING);
  expect(other.stdout).not.toContain('created the admin');
  // The first value again: it is the admin's live token, nothing to warn about.
  const again = await serveOnce(env, FIRST, true);
  expect(again.stderr).toBe('');
}

describe('assay serve with an ASSAY_ADMIN_TOKEN that is not the admin’s', () => {
  it('warns on stderr that the variable is ignored [pglite]', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'assay-admin-token-'));
    try {
      await checkWarning({ ASSAY_DATA_DIR: dataDir });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);

  describe.runIf(testDatabaseUrl())('on PostgreSQL', () => {
    let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
    beforeAll(async () => {
      schema = await createIsolatedSchema(testDatabaseUrl()!);
    });
    afterAll(async () => schema?.drop());

    it('warns on stderr that the variable is ignored [postgres]', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'assay-admin-token-pg-'));
      try {
        await checkWarning({ DATABASE_URL: schema!.url, ASSAY_DATA_DIR: dataDir });
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 300_000);
  });
});
