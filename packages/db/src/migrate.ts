import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/** One migration file: `NNNN_verb_noun.sql` and its SQL text. */
export interface Migration {
  name: string;
  sql: string;
}

/** Where migrations come from; by default the repository's `migrations/` folder. */
export interface MigrateOptions {
  /** Folder holding the `NNNN_verb_noun.sql` files. */
  migrationsDir?: string;
  /** The migrations themselves (e.g. embedded by a bundler); wins over `migrationsDir`. */
  migrations?: readonly Migration[];
}

/** What `migrate` did. */
export interface MigrateResult {
  /** Migrations applied by this call, in order. */
  applied: string[];
  /** Migrations that were already recorded in `schema_migrations`. */
  skipped: string[];
}

/** `NNNN_verb_noun.sql`: four digits, then lower-case words joined by underscores. */
const MIGRATION_FILE = /^(\d{4})_[a-z0-9]+(?:_[a-z0-9]+)*\.sql$/;

/**
 * The `migrations/` folder: the nearest one above this module holding the first
 * migration. Works from the source tree and from bundles built inside the repository;
 * anything else passes `migrationsDir` or `migrations`.
 */
export function defaultMigrationsDir(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(candidate, '0001_create_core_tables.sql'))) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new Error(`no migrations/ folder found above ${start}; pass migrationsDir`);
}

/** Reads and validates the migration files of a folder, ordered by number. */
export async function loadMigrations(dir: string = defaultMigrationsDir()): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort();
  const seen = new Map<string, string>();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = MIGRATION_FILE.exec(file);
    if (!match) {
      throw new Error(`${join(dir, file)}: migration files are named NNNN_verb_noun.sql`);
    }
    const number = match[1] as string;
    const other = seen.get(number);
    if (other) throw new Error(`${dir}: ${other} and ${file} share the number ${number}`);
    seen.set(number, file);
    migrations.push({ name: file, sql: await readFile(resolve(dir, file), 'utf8') });
  }
  return migrations;
}

/**
 * Serialises migrators sharing a database (several workers starting at once): a
 * transaction-scoped advisory lock keyed on the schema the migrations go to.
 */
async function lockMigrations(trx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended('assay.migrate:' || current_schema(), 0))`.execute(
    trx,
  );
}

/** Names recorded in `schema_migrations`, oldest first (empty before the first migration). */
export async function listAppliedMigrations(db: Kysely<Database>): Promise<string[]> {
  const exists = await sql<{
    found: string | null;
  }>`select to_regclass('schema_migrations')::text as found`.execute(db);
  if (!exists.rows[0]?.found) return [];
  const rows = await db.selectFrom('schema_migrations').select('name').orderBy('name').execute();
  return rows.map((row) => row.name);
}

/**
 * Applies pending migrations in order, each in its own transaction together with its
 * `schema_migrations` row, through the driver's multi-statement path. Idempotent, and
 * safe to run from several processes at once. Fails if the database has migrations
 * this code does not know (it is newer than this version of assay).
 */
export async function migrate(
  db: Kysely<Database>,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const migrations = options.migrations
    ? [...options.migrations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    : await loadMigrations(options.migrationsDir);

  // An up-to-date database (every command opening an existing one) costs two reads: no
  // transaction, lock or write. Anything else takes the locked path below.
  const known = new Set(migrations.map((migration) => migration.name));
  const recorded = await listAppliedMigrations(db);
  const recordedSet = new Set(recorded);
  const upToDate =
    migrations.length > 0 &&
    recorded.every((name) => known.has(name)) &&
    migrations.every((migration) => recordedSet.has(migration.name));
  if (upToDate) return { applied: [], skipped: migrations.map((migration) => migration.name) };

  await db.transaction().execute(async (trx) => {
    await lockMigrations(trx);
    await sql`create table if not exists schema_migrations (
      name text primary key,
      applied_at timestamptz not null default now()
    )`.execute(trx);
  });

  const unknown = (await listAppliedMigrations(db)).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `the database has migrations this version of assay does not know: ${unknown.join(', ')}`,
    );
  }

  const result: MigrateResult = { applied: [], skipped: [] };
  for (const migration of migrations) {
    const applied = await db.transaction().execute(async (trx) => {
      await lockMigrations(trx);
      const done = await trx
        .selectFrom('schema_migrations')
        .select('name')
        .where('name', '=', migration.name)
        .executeTakeFirst();
      if (done) return false;
      try {
        await sql.raw(migration.sql).execute(trx);
      } catch (error) {
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      await trx.insertInto('schema_migrations').values({ name: migration.name }).execute();
      return true;
    });
    (applied ? result.applied : result.skipped).push(migration.name);
  }
  return result;
}
