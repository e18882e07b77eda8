import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import postgres from 'postgres';
import { PGliteDialect } from './drivers/pglite-dialect.js';
import { PostgresJsDialect } from './drivers/postgres-js-dialect.js';
import { migrate, type MigrateOptions } from './migrate.js';
import type { Database } from './schema.js';

/** Where the embedded database lives when no `databaseUrl` is given. */
export const DEFAULT_PGLITE_DATA_DIR = './.assay/pglite';

/** PostgreSQL type OIDs the drivers parse or serialise specially. */
const INT8_OID = 20;
const JSON_OID = 114;
const JSONB_OID = 3802;

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
 */
export async function createDb(options: CreateDbOptions = {}): Promise<AssayDb> {
  const opened = options.databaseUrl
    ? openPostgres(options.databaseUrl, options.maxConnections ?? 10)
    : await openPGlite(options.dataDir ?? DEFAULT_PGLITE_DATA_DIR);
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
  const pool = postgres(databaseUrl, {
    max,
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
  });
  const db = new Kysely<Database>({ dialect: new PostgresJsDialect({ sql: pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

async function openPGlite(dataDir: string): Promise<AssayDb> {
  if (!dataDir.includes('://')) await mkdir(dataDir, { recursive: true });
  const json = (value: unknown) => JSON.stringify(value);
  const pglite = new PGlite(dataDir, {
    parsers: { [INT8_OID]: (value: string) => Number(value) },
    // PGlite passes strings bound to json/jsonb through unencoded; postgres.js encodes
    // every value. Encode always so both engines store the same thing.
    serializers: { [JSON_OID]: json, [JSONB_OID]: json },
  });
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}
