import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createComparisonReport,
  importCollection,
  importQrels,
  importRun,
  listCollections,
  loadConfig,
  openDatabase,
  publishLeaderboard,
} from '@assay/platform';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUMAN, RUNS } from '@assay/test-support/report-fixtures';
import { cliWith, type Env } from './run-cli.js';

function assay(env: Env, ...argv: string[]) {
  return cliWith({ env }, ...argv);
}

/** Runs `work` on the database `env` configures. */
async function withDb<T>(
  env: Env,
  work: (db: Parameters<typeof listCollections>[0]) => Promise<T>,
) {
  const database = await openDatabase(loadConfig(env));
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

/** Collection `name` with one label set, runs A and B, and `boards` published comparisons. */
async function setUp(env: Env, name: string, boards: string[]): Promise<void> {
  await withDb(env, async (db) => {
    await importCollection(db, { name, format: 'tsv', text: 'a\tx\n', file: 'docs.tsv' });
    await importQrels(db, { collection: name, labelSet: 'human', text: HUMAN, file: 'qrels' });
    for (const run of ['A', 'B'])
      await importRun(db, { collection: name, text: RUNS[run]!, file: run });
    for (const slug of boards) {
      const report = await createComparisonReport(db, {
        collection: name,
        labelSets: ['human'],
        runs: ['A', 'B'],
        measures: ['P.1'],
      });
      await publishLeaderboard(db, { report: report.id, slug });
    }
  });
}

const collectionNames = (env: Env) =>
  withDb(env, async (db) => (await listCollections(db)).map((c) => c.name));

const engines: Array<{ kind: string; env: () => Env }> = [];
const pgliteEnv: Env = { ASSAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'assay-collections-')) };
engines.push({ kind: 'pglite', env: () => pgliteEnv });
if (testDatabaseUrl()) {
  let postgresEnv: Env = {};
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const schema = await createIsolatedSchema(testDatabaseUrl()!);
    drop = schema.drop;
    postgresEnv = { DATABASE_URL: schema.url };
  });
  afterAll(async () => drop?.());
  engines.push({ kind: 'postgres', env: () => postgresEnv });
}

for (const engine of engines) {
  describe(`assay collections delete [${engine.kind}]`, () => {
    it('deletes a collection and says what went', async () => {
      await setUp(engine.env(), 'plain', []);
      const done = await assay(engine.env(), 'collections', 'delete', 'plain');
      expect(done.code, done.stderr).toBe(0);
      // Two runs and one label set were stored above, no report.
      expect(done.stdout).toMatch(
        /^deleted collection "plain" \(id \d+\) from .*: 2 run\(s\), 1 label set\(s\), 0 report\(s\), no leaderboard with its documents and topics\n$/,
      );
      expect(await collectionNames(engine.env())).not.toContain('plain');
      const again = await assay(engine.env(), 'collections', 'delete', 'plain');
      expect(again.code).toBe(3);
    });

    it('keeps a collection with published leaderboards unless --force, naming them', async () => {
      await setUp(engine.env(), 'shown', ['shown-b', 'shown-a']);
      const kept = await assay(engine.env(), 'collections', 'delete', 'shown');
      expect(kept.code).toBe(4);
      expect(kept.stdout).toBe('');
      expect(kept.stderr).toBe(
        `assay collections: collection "shown" was kept: its reports are published as leaderboards (shown-a, shown-b); unpublish them first, or run 'assay collections delete shown --force' to delete them too\n`,
      );
      expect(await collectionNames(engine.env())).toContain('shown');

      const forced = await assay(engine.env(), 'collections', 'delete', 'shown', '--force');
      expect(forced.code, forced.stderr).toBe(0);
      expect(forced.stdout).toMatch(
        /: 2 run\(s\), 1 label set\(s\), 2 report\(s\), published leaderboard\(s\) shown-a, shown-b with its documents and topics\n$/,
      );
      expect(await collectionNames(engine.env())).not.toContain('shown');
    });

    it('refuses a command line without one name', async () => {
      expect((await assay(engine.env(), 'collections', 'delete')).code).toBe(1);
      expect((await assay(engine.env(), 'collections', 'drop', 'x')).code).toBe(1);
    });
  });
}
