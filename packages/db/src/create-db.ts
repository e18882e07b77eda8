import { mkdir } from 'node:fs/promises';
import { Kysely } from 'kysely';
import { PGliteDialect } from './drivers/pglite-dialect.js';
import { PGliteThread } from './drivers/pglite-thread.js';
import { PostgresJsDialect } from './drivers/postgres-js-dialect.js';
import { lockDataDir } from './data-dir-lock.js';
import { migrate, type MigrateOptions } from './migrate.js';
import type { Database } from './schema.js';

/** Where the embedded database lives when no `databaseUrl` is given. */
export const DEFAULT_PGLITE_DATA_DIR = './.assay/pglite';

/** PostgreSQL's bigint type OID (PGlite's worker parses it the same way). */
const INT8_OID = 20;

/** Options of {@link createDb}. */
export interface CreateDbOptions extends MigrateOptions {
  /** A `postgres://` URL: use that server through postgres.js instead of embedded PGlite. */
  databaseUrl?: string;
  /** PGlite data folder (default `./.assay/pglite`); `memory://` keeps it in memory. */
  dataDir?: string;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** Most connections postgres.js opens (default 10). */
  maxConnections?: number;
  /**
   * How the lock of a PGlite data folder names this process to a second one (default:
   * `assay <command>` for the assay command, else the script's name).
   */
  lockHolder?: string;
}

/** An open assay database. */
export interface AssayDb {
  /** The typed query builder; pass it (or a transaction) to the repository functions. */
  db: Kysely<Database>;
  /** Which engine is behind `db`. */
  kind: 'pglite' | 'postgres';
  /** Closes the database (ends the pool, or closes PGlite). */
  close(): Promise<void>;
}

/**
 * Opens the assay database: postgres.js on `databaseUrl`, otherwise embedded PGlite in
 * `dataDir`; then applies pending migrations unless `migrate` is false. Both engines
 * read bigint columns as JS numbers and JSON-encode values bound to json/jsonb.
 *
 * A PGlite data folder is opened by one process at a time: the process takes the
 * exclusive lock `<dataDir>.lock` (released on close or exit, taken over when its holder
 * died) and a second process gets a `DatabaseInUseError` naming the holder.
 */
export async function createDb(options: CreateDbOptions = {}): Promise<AssayDb> {
  const opened = options.databaseUrl
    ? openPostgres(options.databaseUrl, options.maxConnections ?? 10)
    : await openPGlite(options.dataDir ?? DEFAULT_PGLITE_DATA_DIR, options.lockHolder);
  if (options.migrate !== false) {
    try {
      const migrateOptions: MigrateOptions = {};
      if (options.migrationsDir !== undefined) migrateOptions.migrationsDir = options.migrationsDir;
      if (options.migrations !== undefined) migrateOptions.migrations = options.migrations;
      await migrate(opened.db, migrateOptions);
    } catch (error) {
      await opened.close();
      throw error;
    }
  }
  return opened;
}

function openPostgres(databaseUrl: string, max: number): AssayDb {
  const dialect = new PostgresJsDialect({
    url: databaseUrl,
    maxConnections: max,
    options: {
      onnotice: () => {},
      connection: { application_name: 'assay' },
      types: {
        bigint: {
          to: INT8_OID,
          from: [INT8_OID],
          serialize: (value: number | bigint) => String(value),
          // Identity keys and counts stay far below 2^53.
          parse: (value: string) => Number(value),
        },
      },
    },
  });
  const db = new Kysely<Database>({ dialect });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

async function openPGlite(dataDir: string, lockHolder: string | undefined): Promise<AssayDb> {
  const onDisk = !dataDir.includes('://');
  if (onDisk) await mkdir(dataDir, { recursive: true });
  const lock = onDisk ? lockDataDir(dataDir, lockHolder) : undefined;
  // PGlite runs on a worker thread of its own (which also sets assay's type parsers):
  // its WebAssembly no longer blocks the event loop that serves requests and LLM calls.
  const pglite = new PGliteThread(dataDir);
  try {
    await pglite.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    kind: 'pglite',
    async close() {
      try {
        await db.destroy();
      } finally {
        lock?.release();
      }
    },
  };
}
