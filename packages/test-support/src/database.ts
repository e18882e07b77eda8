// Test support for assay's own test suites only (vitest): a database per engine, emptied per test.
// Not part of the runtime API: only test files and @assay/platform/testing import it
// (the apps' tests reach databases through @assay/platform/testing).
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { createDb, type AssayDb, type Database } from '@assay/db';

/** Opening PGlite compiles its WebAssembly and runs initdb: seconds, not milliseconds. */
export const OPEN_TIMEOUT_MS = 120_000;

/** Tables emptied before each test (schema_migrations is kept). */
const DATA_TABLES = [
  'collections',
  'documents',
  'topics',
  'runs',
  'run_entries',
  'label_sets',
  'labels',
  'label_revisions',
  'users',
  'api_tokens',
  'llm_calls',
  'judge_jobs',
  'judge_tasks',
  'reports',
  'publications',
  'campaigns',
  'campaign_items',
  'campaign_assignments',
];

/** What a `forEachDatabase` block gets: the database of the current engine. */
export interface TestDatabase {
  /** Which engine this block runs on. */
  readonly kind: AssayDb['kind'];
  /** The migrated database, emptied before each test. */
  readonly db: Kysely<Database>;
  /** Opens another, empty database of the same kind; closed (and dropped) after the block. */
  openFresh(options?: { migrate?: boolean }): Promise<AssayDb>;
}

/** The Postgres URL to test against, if any. */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

/**
 * A Postgres schema of its own for one test file (or one fresh database): created now,
 * dropped by `drop()`. Connections reach it through the URL's `search_path`, so parallel
 * test files never see each other's tables.
 */
export async function createIsolatedSchema(
  baseUrl: string,
): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  const schema = `assay_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create schema "${schema}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.searchParams.set('search_path', schema);
  return {
    url: url.toString(),
    schema,
    async drop() {
      const dropper = postgres(baseUrl, { max: 1, onnotice: () => {} });
      try {
        await dropper.unsafe(`drop schema if exists "${schema}" cascade`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** Opens an empty database of `kind` and returns it with its cleanup. */
async function openDatabase(
  kind: AssayDb['kind'],
  migrate: boolean,
): Promise<{ assay: AssayDb; cleanup(): Promise<void> }> {
  if (kind === 'pglite') {
    const assay = await createDb({ dataDir: 'memory://', migrate });
    return { assay, cleanup: () => assay.close() };
  }
  const isolated = await createIsolatedSchema(testDatabaseUrl() as string);
  try {
    const assay = await createDb({ databaseUrl: isolated.url, migrate, maxConnections: 4 });
    return {
      assay,
      async cleanup() {
        await assay.close();
        await isolated.drop();
      },
    };
  } catch (error) {
    await isolated.drop();
    throw error;
  }
}

/** Empties every data table and restarts identities. */
export async function truncateAll(db: Kysely<Database>): Promise<void> {
  await sql.raw(`truncate table ${DATA_TABLES.join(', ')} restart identity cascade`).execute(db);
}

/**
 * Runs `fn` as a describe block on embedded PGlite (in memory) and, when
 * TEST_DATABASE_URL is set, again on that Postgres server in a schema of its own.
 */
export function forEachDatabase(name: string, fn: (database: TestDatabase) => void): void {
  const kinds: AssayDb['kind'][] = testDatabaseUrl() ? ['pglite', 'postgres'] : ['pglite'];
  for (const kind of kinds) {
    describe(`${name} [${kind}]`, () => {
      let main: AssayDb | undefined;
      const cleanups: Array<() => Promise<void>> = [];
      const database: TestDatabase = {
        kind,
        get db() {
          if (!main) throw new Error('the test database is not open yet');
          return main.db;
        },
        async openFresh(options = {}) {
          const opened = await openDatabase(kind, options.migrate ?? true);
          cleanups.push(opened.cleanup);
          return opened.assay;
        },
      };

      beforeAll(async () => {
        const opened = await openDatabase(kind, true);
        cleanups.push(opened.cleanup);
        main = opened.assay;
      }, OPEN_TIMEOUT_MS);

      afterAll(async () => {
        for (const cleanup of cleanups.reverse()) await cleanup();
      }, OPEN_TIMEOUT_MS);

      beforeEach(async () => {
        await truncateAll(database.db);
      });

      fn(database);
    });
  }
}

/** Rows in a table (tests compare counts before and after a use-case). */
export async function countRows(db: Kysely<Database>, table: keyof Database): Promise<number> {
  const row = await sql<{
    n: string | number;
  }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(row.rows[0]!.n);
}

/** The rows of a raw SQL statement (tests look at what a process left behind). */
export async function queryRows<R>(db: Kysely<Database>, text: string): Promise<R[]> {
  return (await sql.raw<R>(text).execute(db)).rows;
}

/** A transaction kept open on a connection of its own, holding the locks it took. */
export interface HeldTransaction {
  /** The server process of its connection (what pg_blocking_pids names). */
  readonly pid: number;
  /** Commits it, releasing its locks. */
  release(): Promise<void>;
}

/**
 * Opens a transaction, runs `statements` in it (e.g. `select … for key share`, or
 * `select pg_advisory_xact_lock(…)`) and keeps it open until `release()`: race tests take
 * the locks a request will meet, so that the order of two requests is forced rather than
 * left to timing. PostgreSQL only (PGlite runs one transaction at a time).
 */
export async function holdTransaction(
  db: Kysely<Database>,
  statements: readonly string[],
): Promise<HeldTransaction> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let ready!: (pid: number) => void;
  let failed!: (error: unknown) => void;
  const started = new Promise<number>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  const done = db
    .transaction()
    .execute(async (trx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      for (const statement of statements) await sql.raw(statement).execute(trx);
      ready(Number(rows[0]!.pid));
      await released;
    })
    .catch((error: unknown) => failed(error));
  const pid = await started;
  return {
    pid,
    async release() {
      release();
      await done;
    },
  };
}

/**
 * Waits until `count` connections (default 1) wait, directly or behind one another, for a
 * lock the server process `pid` holds, and returns their process ids (the direct waiters
 * first). PostgreSQL only.
 */
export async function waitUntilBlockedBy(
  db: Kysely<Database>,
  pid: number,
  options: { count?: number; timeoutMs?: number } = {},
): Promise<number[]> {
  const count = options.count ?? 1;
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const { rows } = await sql<{ pid: number }>`
      with recursive waiting(pid, depth) as (
        select pid, 1 from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))
        union
        select a.pid, w.depth + 1 from pg_stat_activity a
          join waiting w on w.pid = any(pg_blocking_pids(a.pid))
          where w.depth < 10
      )
      select pid, min(depth) as depth from waiting group by pid order by 2, 1`.execute(db);
    if (rows.length >= count) return rows.map((r) => Number(r.pid));
    if (Date.now() > deadline)
      throw new Error(`${rows.length} of ${count} connections became blocked by process ${pid}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
