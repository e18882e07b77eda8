import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Kysely } from 'kysely';
import postgres from 'postgres';
import { FifoMutex } from './drivers/mutex.js';
import { PGliteDialect } from './drivers/pglite-dialect.js';
import { PGliteThread } from './drivers/pglite-thread.js';
import { PostgresJsDialect } from './drivers/postgres-js-dialect.js';
import { DatabaseInUseError, lockDataDir } from './data-dir-lock.js';
import { loadMigrations, migrate, type MigrateOptions } from './migrate.js';
import { saveTemplate, templatePath } from './pglite-template.js';
import type { Database } from './schema.js';
import { shareEmbedded, sharedSocketPath } from './shared-pglite.js';

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
  /**
   * Share the embedded database with this user's other processes on this machine while it
   * is open (`assay serve` does): they reach it through a Unix socket named in the lock
   * instead of being refused. A process asking to share never reaches another's database:
   * it owns the folder or gets a `DatabaseInUseError`.
   */
  share?: boolean;
}

/** An open assay database. */
export interface AssayDb {
  /** The typed query builder; pass it (or a transaction) to the repository functions. */
  db: Kysely<Database>;
  /** Which engine is behind `db`. */
  kind: 'pglite' | 'postgres';
  /**
   * The process that holds this embedded database and shares it (`assay serve (pid 12)`),
   * when this one reaches it through that process's socket.
   */
  via?: string;
  /** Where this process shares its embedded database (`share: true`), once it does. */
  socket?: string;
  /** Why this process does not share its embedded database although asked to. */
  notShared?: string;
  /** Closes the database (ends the pool, or closes PGlite). */
  close(): Promise<void>;
}

/** How long a process waits for the holder's socket to answer (the holder may be starting). */
const JOIN_WAIT_MS = 60_000;

/**
 * Opens the assay database: postgres.js on `databaseUrl`, otherwise embedded PGlite in
 * `dataDir`; then applies pending migrations unless `migrate` is false. Both engines
 * read bigint columns as JS numbers and JSON-encode values bound to json/jsonb.
 *
 * A PGlite data folder is opened by one process at a time: the process takes the
 * exclusive lock `<dataDir>.lock` (released on close or exit, taken over when its holder
 * died). A second process reaches the database through the holder when the holder shares
 * it (`share`; `via` then names the holder), and otherwise gets a `DatabaseInUseError`
 * naming the holder.
 */
export async function createDb(options: CreateDbOptions = {}): Promise<AssayDb> {
  // A new embedded database starts from the cached template of these migrations, if any.
  const migrations =
    options.migrate === false
      ? undefined
      : (options.migrations ?? (await loadMigrations(options.migrationsDir)));
  const template = options.databaseUrl || !migrations ? undefined : templatePath(migrations);
  const opened: Opened = options.databaseUrl
    ? openPostgres(options.databaseUrl, options.maxConnections ?? 10)
    : await openPGlite(options.dataDir ?? DEFAULT_PGLITE_DATA_DIR, options, template);
  try {
    if (migrations) await migrate(opened.db, { migrations });
    // A database made the long way is the template of the next one (before anything else
    // is written to it).
    await opened.saveTemplate?.();
    // Shared once migrated: no other process sees a database half way through a migration.
    await opened.share?.();
  } catch (error) {
    await opened.close();
    throw error;
  }
  delete opened.share;
  delete opened.saveTemplate;
  return opened;
}

/**
 * An open database; `share` starts serving it to local processes (PGlite with `share`);
 * `saveTemplate` stores a new, just migrated embedded database as the template.
 */
type Opened = AssayDb & { share?: () => Promise<void>; saveTemplate?: () => Promise<void> };

/** postgres.js options for both a PostgreSQL URL and a shared PGlite's socket. */
function sessionOptions() {
  return {
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
  } satisfies postgres.Options<Record<string, postgres.PostgresType>>;
}

function openPostgres(databaseUrl: string, max: number): AssayDb {
  const dialect = new PostgresJsDialect({
    url: databaseUrl,
    maxConnections: max,
    options: sessionOptions(),
  });
  const db = new Kysely<Database>({ dialect });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

async function openPGlite(
  dataDir: string,
  options: CreateDbOptions,
  template: string | undefined,
): Promise<Opened> {
  if (dataDir.includes('://')) {
    // Only a new in-memory database can start from a template.
    return openOwnPGlite(
      dataDir,
      undefined,
      undefined,
      dataDir === 'memory://' ? template : undefined,
    );
  }
  await mkdir(dataDir, { recursive: true });
  let socket: string | undefined;
  let notShared: string | undefined;
  if (options.share) {
    try {
      socket = sharedSocketPath(dataDir);
    } catch (error) {
      notShared = (error as Error).message;
    }
  }
  const deadline = Date.now() + JOIN_WAIT_MS;
  for (;;) {
    try {
      const lock = lockDataDir(dataDir, options.lockHolder, socket ? { socket } : {});
      // An empty folder is a new database (checked under the lock).
      const isNew = (await readdir(dataDir)).length === 0;
      const opened = await openOwnPGlite(dataDir, lock, socket, isNew ? template : undefined);
      if (notShared) opened.notShared = notShared;
      return opened;
    } catch (error) {
      if (!(error instanceof DatabaseInUseError) || options.share || !error.socket) throw error;
      const joined = await joinShared(error, options.maxConnections ?? 4);
      if (joined) return joined;
      // The holder is starting (or stopping): try again, the lock included.
      if (Date.now() > deadline)
        throw new Error(
          `database in use by ${error.holder} (pid ${error.pid}), which does not answer on ${error.socket}`,
          { cause: error },
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * PGlite in `dataDir`, opened by this process (which holds `lock`, when on disk). `template`
 * is given for a new database only: it starts as a copy of that file when the file exists,
 * and otherwise the database is made the long way and saved there once migrated.
 */
async function openOwnPGlite(
  dataDir: string,
  lock: ReturnType<typeof lockDataDir> | undefined,
  socket: string | undefined,
  template: string | undefined,
): Promise<Opened> {
  const haveTemplate = template !== undefined && existsSync(template);
  let pglite: PGliteThread;
  try {
    pglite = await startPGlite(dataDir, haveTemplate ? template : undefined);
  } catch (error) {
    if (!haveTemplate) {
      lock?.release();
      throw error;
    }
    // A template this PGlite cannot read (damaged, say): made the long way instead, in the
    // folder emptied again, and saved anew.
    try {
      if (!dataDir.includes('://')) {
        for (const entry of await readdir(dataDir))
          await rm(join(dataDir, entry), { recursive: true, force: true });
      }
      pglite = await startPGlite(dataDir, undefined);
    } catch (again) {
      lock?.release();
      throw again;
    }
  }
  // One mutex for PGlite's one session: this process's queries and the socket's clients.
  const mutex = new FifoMutex();
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite, mutex }) });
  let stopSharing: (() => Promise<void>) | undefined;
  const opened: Opened = {
    db,
    kind: 'pglite',
    async close() {
      try {
        await stopSharing?.();
        await db.destroy();
      } finally {
        lock?.release();
      }
    },
  };
  if (template !== undefined && !haveTemplate)
    opened.saveTemplate = async () => {
      try {
        saveTemplate(template, await pglite.dumpDataDir());
      } catch {
        // no template this time; the database itself is fine
      }
    };
  if (socket && lock)
    opened.share = async () => {
      try {
        stopSharing = await shareEmbedded(socket, pglite, mutex);
        opened.socket = socket;
      } catch (error) {
        // Serving goes on unshared: other processes are refused again, as before.
        lock.forgetSocket();
        opened.notShared = (error as Error).message;
      }
    };
  return opened;
}

/** Starts PGlite on its worker thread (which also sets assay's type parsers): its WebAssembly does not block the event loop that serves requests and LLM calls. */
async function startPGlite(dataDir: string, template: string | undefined): Promise<PGliteThread> {
  const pglite = new PGliteThread(dataDir, template);
  await pglite.waitReady;
  return pglite;
}

/**
 * The database of a holder that shares it, through its socket: postgres.js as to a
 * PostgreSQL server (unnamed statements only: named ones would outlive this process in the
 * holder's one session). Undefined while the socket does not answer yet.
 */
async function joinShared(inUse: DatabaseInUseError, max: number): Promise<Opened | undefined> {
  const options = { ...sessionOptions(), path: inUse.socket!, prepare: false };
  const probe = postgres({ ...options, max: 1 });
  try {
    await probe`select 1`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ECONNREFUSED') return undefined;
    throw error;
  } finally {
    await probe.end({ timeout: 0 });
  }
  const db = new Kysely<Database>({
    // PGlite answers no COPY FROM STDIN through the socket: bulk loads use INSERT there.
    dialect: new PostgresJsDialect({ maxConnections: max, options, copy: false }),
  });
  return {
    db,
    kind: 'pglite',
    via: `${inUse.holder} (pid ${inUse.pid})`,
    close: () => db.destroy(),
  };
}
