import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  defaultMigrationsDir,
  listAppliedMigrations,
  loadMigrations,
  migrate,
} from '../src/index.js';
import { forEachDatabase, OPEN_TIMEOUT_MS } from '@assay/test-support/database';

const EXPECTED_TABLES = [
  'answer_scores',
  'api_tokens',
  'campaign_assignments',
  'campaign_items',
  'campaigns',
  'collections',
  'documents',
  'hand_scores',
  'item_notes',
  'judge_jobs',
  'judge_tasks',
  'label_revisions',
  'label_sets',
  'labels',
  'llm_calls',
  'nugget_bank_versions',
  'nugget_banks',
  'nuggets',
  'publications',
  'rag_assessment_sets',
  'rag_assessments',
  'reports',
  'response_sets',
  'responses',
  'rubric_criteria',
  'rubric_sets',
  'run_entries',
  'run_traces',
  'runs',
  'schema_migrations',
  'score_sets',
  'topics',
  'users',
];

describe('migration files', () => {
  it('are named NNNN_verb_noun.sql, numbered from 0001 without gaps', async () => {
    const files = (await readdir(defaultMigrationsDir())).filter((file) => file.endsWith('.sql'));
    const migrations = await loadMigrations();
    expect(migrations.map((migration) => migration.name)).toEqual(files.sort());
    expect(migrations[0]?.name).toBe('0001_create_core_tables.sql');
    migrations.forEach((migration, index) => {
      expect(migration.name.slice(0, 4)).toBe(String(index + 1).padStart(4, '0'));
      expect(migration.sql).not.toMatch(/^\s*(begin|commit|rollback)\s*;/im);
    });
  });

  it('rejects badly named and duplicate-numbered files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'assay-migrations-'));
    try {
      await writeFile(join(dir, '0001_create_things.sql'), 'select 1;');
      await writeFile(join(dir, '2_Bad-Name.sql'), 'select 1;');
      await expect(loadMigrations(dir)).rejects.toThrow(/NNNN_verb_noun/);
      await rm(join(dir, '2_Bad-Name.sql'));
      await writeFile(join(dir, '0001_create_others.sql'), 'select 1;');
      await expect(loadMigrations(dir)).rejects.toThrow(/share the number 0001/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

forEachDatabase('migrate', (database) => {
  it(
    'applies every migration once, records it, and is idempotent',
    async () => {
      const { db } = await database.openFresh({ migrate: false });
      expect(await listAppliedMigrations(db)).toEqual([]);

      const names = (await loadMigrations()).map((migration) => migration.name);
      const first = await migrate(db);
      expect(first).toEqual({ applied: names, skipped: [] });

      const schema = await sql<{ name: string }>`select current_schema() as name`.execute(db);
      const tables = (await db.introspection.getTables()).filter(
        (table) => table.schema === schema.rows[0]?.name,
      );
      expect(tables.map((table) => table.name).sort()).toEqual(EXPECTED_TABLES);

      const second = await migrate(db);
      expect(second).toEqual({ applied: [], skipped: names });
      const recorded = await db.selectFrom('schema_migrations').selectAll().execute();
      expect(recorded.map((row) => row.name)).toEqual(names);
      expect(recorded.every((row) => row.applied_at instanceof Date)).toBe(true);
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'applies each migration exactly once when migrators race',
    async () => {
      const { db } = await database.openFresh({ migrate: false });
      const results = await Promise.all([migrate(db), migrate(db), migrate(db)]);
      const appliedTimes = results.flatMap((result) => result.applied);
      const names = (await loadMigrations()).map((migration) => migration.name);
      expect(appliedTimes.sort()).toEqual(names.sort());
      expect(await listAppliedMigrations(db)).toEqual(names);
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'applies a migration added after the others were applied, and only that one',
    async () => {
      const { db } = await database.openFresh({ migrate: false });
      const first = { name: '0001_create_widgets.sql', sql: 'create table widgets (id int);' };
      const second = { name: '0002_create_gadgets.sql', sql: 'create table gadgets (id int);' };
      expect(await migrate(db, { migrations: [first] })).toEqual({
        applied: ['0001_create_widgets.sql'],
        skipped: [],
      });
      expect(await migrate(db, { migrations: [first, second] })).toEqual({
        applied: ['0002_create_gadgets.sql'],
        skipped: ['0001_create_widgets.sql'],
      });
      expect(await listAppliedMigrations(db)).toEqual([
        '0001_create_widgets.sql',
        '0002_create_gadgets.sql',
      ]);
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'rolls a failing migration back completely and records nothing',
    async () => {
      const { db } = await database.openFresh({ migrate: false });
      const migrations = [
        { name: '0001_create_widgets.sql', sql: 'create table widgets (id int);' },
        {
          name: '0002_add_gadgets.sql',
          sql: 'create table gadgets (id int); insert into gadgets values (1); select 1 / 0;',
        },
      ];
      await expect(migrate(db, { migrations })).rejects.toThrow(
        /migration 0002_add_gadgets.sql failed: division by zero/,
      );
      expect(await listAppliedMigrations(db)).toEqual(['0001_create_widgets.sql']);
      const gadgets = await sql<{ found: string | null }>`
        select to_regclass('gadgets')::text as found`.execute(db);
      expect(gadgets.rows[0]?.found).toBeNull();
    },
    OPEN_TIMEOUT_MS,
  );

  it('refuses a database that has migrations this code does not know', async () => {
    await database.db
      .insertInto('schema_migrations')
      .values({ name: '9999_add_future_things.sql' })
      .execute();
    try {
      await expect(migrate(database.db)).rejects.toThrow(/9999_add_future_things.sql/);
    } finally {
      await database.db
        .deleteFrom('schema_migrations')
        .where('name', '=', '9999_add_future_things.sql')
        .execute();
    }
  });
});
