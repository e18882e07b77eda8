import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authenticate, loadConfig, openDatabase } from '@assay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWith, type Env } from './run-cli.js';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';

/** Runs the CLI in-process against the database `env` configures. */
function assay(env: Env, ...argv: string[]) {
  return cliWith({ env }, ...argv);
}

/** Whether a token signs in, and as whom. */
async function whoIs(env: Env, token: string) {
  const database = await openDatabase(loadConfig(env));
  try {
    const user = await authenticate(database.db, token);
    return `${user.name}/${user.role}`;
  } catch (error) {
    return (error as { code?: string }).code;
  } finally {
    await database.close();
  }
}

const engines: Array<{ kind: string; env: () => Env }> = [];
const pgliteEnv: Env = {
  ASSAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'assay-users-')),
  PORT: '9123',
};
engines.push({ kind: 'pglite', env: () => pgliteEnv });
if (testDatabaseUrl()) {
  let postgresEnv: Env = {};
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const schema = await createIsolatedSchema(testDatabaseUrl()!);
    drop = schema.drop;
    postgresEnv = { DATABASE_URL: schema.url, PORT: '9123' };
  });
  afterAll(async () => drop?.());
  engines.push({ kind: 'postgres', env: () => postgresEnv });
}

for (const engine of engines) {
  describe(`assay users [${engine.kind}]`, () => {
    it('adds a user, prints the token once with a sign-in link, lists and revokes', async () => {
      const added = await assay(engine.env(), 'users', 'add', 'ada', '--role', 'annotator');
      expect(added.code, added.stderr).toBe(0);
      const token = /^ {2}(assay_\S+)$/m.exec(added.stdout)?.[1];
      expect(token).toBeDefined();
      expect(added.stdout).toContain(`sign-in link: http://localhost:9123/#token=${token}`);
      expect(await whoIs(engine.env(), token!)).toBe('ada/annotator');

      const taken = await assay(engine.env(), 'users', 'add', 'ada');
      expect(taken.code).toBe(4);

      const list = await assay(engine.env(), 'users', 'list');
      expect(list.stdout).toMatch(/\tada\tannotator\t1 live token\(s\)\tlast used /);
      expect(list.stdout).not.toContain(token!);

      const revoked = await assay(engine.env(), 'users', 'revoke', 'ada');
      expect(revoked.stdout).toBe('revoked 1 token(s) of ada\n');
      expect(await whoIs(engine.env(), token!)).toBe('unauthorized');
      expect((await assay(engine.env(), 'users', 'revoke', 'nobody')).code).toBe(3);
      expect((await assay(engine.env(), 'users', 'add', 'x', '--role', 'boss')).code).toBe(1);
    });
  });
}
