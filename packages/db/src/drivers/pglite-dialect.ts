import type { Results } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresDriver,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type PostgresDialectConfig,
  type QueryResult,
} from 'kysely';
import { isCopyQuery, type CopyQuery } from '../bulk.js';
import { FifoMutex } from './mutex.js';
import { affectedRows } from './affected-rows.js';
import type { PGliteHandle } from './pglite-thread.js';

/** Options of {@link PGliteDialect}. */
export interface PGliteDialectConfig {
  /**
   * The PGlite instance to use (in this thread, or a {@link PGliteThread}), or a function
   * that creates it on first use.
   */
  pglite: PGliteHandle | (() => Promise<PGliteHandle>);
  /** Close the PGlite instance when the Kysely instance is destroyed (default true). */
  closeOnDestroy?: boolean;
  /**
   * The lock on PGlite's one session (default: the driver's own). Give the same mutex to a
   * `PGliteSocketServer` sharing this PGlite, so its clients and this driver take turns.
   */
  mutex?: FifoMutex;
}

/**
 * Kysely dialect over embedded PGlite. PGlite has exactly one connection, so the driver
 * lends it to one Kysely connection at a time: a transaction holds it from BEGIN to
 * COMMIT/ROLLBACK and every other query waits its turn. Never use the outer `db` inside
 * `db.transaction().execute(trx => ...)` – on PGlite that waits forever; use `trx`.
 */
export class PGliteDialect implements Dialect {
  readonly #config: PGliteDialectConfig;

  constructor(config: PGliteDialectConfig) {
    this.#config = config;
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#config);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

/**
 * Kysely driver that serialises access to PGlite's single connection. Transactions and
 * savepoints are Kysely's own PostgreSQL statements (inherited from its PostgresDriver).
 */
export class PGliteDriver extends PostgresDriver implements Driver {
  readonly #config: PGliteDialectConfig;
  readonly #mutex: FifoMutex;
  #pglite: PGliteHandle | undefined;
  #connection: PGliteConnection | undefined;

  constructor(config: PGliteDialectConfig) {
    // The pool setting is never read: every method that would use it is overridden here.
    super({} as PostgresDialectConfig);
    this.#config = config;
    this.#mutex = config.mutex ?? new FifoMutex();
  }

  override async init(): Promise<void> {
    const { pglite } = this.#config;
    this.#pglite = typeof pglite === 'function' ? await pglite() : pglite;
    await this.#pglite.waitReady;
    this.#connection = new PGliteConnection(this.#pglite);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    if (!this.#connection) {
      this.#mutex.unlock();
      throw new Error('the PGlite driver has been destroyed');
    }
    return this.#connection;
  }

  override async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }

  override async destroy(): Promise<void> {
    const pglite = this.#pglite;
    if (!pglite) return;
    // Wait for the connection's current holder (and earlier waiters) to finish.
    await this.#mutex.lock();
    try {
      this.#pglite = undefined;
      this.#connection = undefined;
      if ((this.#config.closeOnDestroy ?? true) && !pglite.closed) await pglite.close();
    } finally {
      this.#mutex.unlock();
    }
  }
}

/**
 * The single PGlite connection. Queries with parameters use the extended protocol
 * (`query`); queries without parameters use the simple protocol (`exec`), which accepts
 * several statements at once – the path migrations run through – and reports the last
 * statement's result.
 */
class PGliteConnection implements DatabaseConnection {
  readonly #pglite: PGliteHandle;

  constructor(pglite: PGliteHandle) {
    this.#pglite = pglite;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (isCopyQuery(compiledQuery)) return this.#copy(compiledQuery);
    let result: Results<R> | undefined;
    if (compiledQuery.parameters.length === 0) {
      const results = await this.#pglite.exec(compiledQuery.sql);
      result = results.at(-1) as Results<R> | undefined;
    } else {
      result = await this.#pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    }
    if (!result) return { rows: [] };
    const numAffectedRows = affectedRows(result.command, result.rowCount ?? result.affectedRows);
    return numAffectedRows === undefined
      ? { rows: result.rows }
      : { rows: result.rows, numAffectedRows };
  }

  /**
   * COPY FROM STDIN as PGlite has it: one `COPY … FROM '/dev/blob'` per chunk, each chunk
   * made while PGlite loads the one before.
   */
  async #copy<R>(query: CopyQuery): Promise<QueryResult<R>> {
    const sql = query.sql.replace(/ from stdin$/i, " from '/dev/blob'");
    let loading: Promise<unknown> | undefined;
    try {
      for await (const chunk of query.copyFrom) {
        await loading;
        loading = this.#pglite.query(sql, [], { blob: new Blob([chunk]) });
      }
      await loading;
    } catch (error) {
      // The chunk being loaded ends (its error, if any, is the one already thrown or lost).
      await loading?.catch(() => {});
      throw error;
    }
    return { rows: [] };
  }

  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize = 1000,
  ): AsyncIterableIterator<QueryResult<R>> {
    if (!Number.isInteger(chunkSize) || chunkSize <= 0) {
      throw new Error('chunkSize must be a positive integer');
    }
    // PGlite runs in this process and has no cursors over its protocol API: read the
    // whole result, then hand it out in chunks.
    const { rows } = await this.executeQuery<R>(compiledQuery);
    for (let start = 0; start < rows.length; start += chunkSize) {
      yield { rows: rows.slice(start, start + chunkSize) };
    }
  }
}
