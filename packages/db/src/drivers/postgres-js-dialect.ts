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
  type PostgresDialectConfig,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { CopyUnsupportedError, isCopyQuery, type CopyQuery } from '../bulk.js';
import { affectedRows } from './affected-rows.js';
import { ConnectionLostError } from './connection-errors.js';

/** The part of a postgres.js instance (`postgres(url, options)`) the driver uses. */
export interface PostgresJsSql {
  unsafe(query: string, parameters?: Parameters): postgres.PendingQuery<postgres.Row[]>;
  end(options?: { timeout?: number }): Promise<void>;
}

type Parameters = postgres.ParameterOrJSON<never>[];

/** Options of {@link PostgresJsDialect}. */
export interface PostgresJsDialectConfig {
  /** The server: a `postgres://` URL; without one, `options` say where (e.g. a socket `path`). */
  url?: string;
  /** postgres.js options (types, notices, application name); `max` and `onclose` are the driver's. */
  options?: postgres.Options<Record<string, postgres.PostgresType>>;
  /** Most connections open at once (default 10). */
  maxConnections?: number;
  /**
   * Whether the server takes COPY FROM STDIN (default true; a shared PGlite's socket does
   * not: bulk loads then fall back to INSERT).
   */
  copy?: boolean;
}

/**
 * Kysely dialect over postgres.js. Each Kysely connection is one database connection of
 * its own (a postgres.js instance of one connection), used for one query or one
 * transaction at a time. A connection the server closed (a restart, a terminated backend)
 * is thrown away and the next user gets a new one: a statement of a transaction is never
 * sent on a connection other than the one its BEGIN went to, and nothing is ever written
 * to a connection postgres.js has already closed (which would throw outside any promise
 * and end the process). A parameterless multi-statement query (a migration) reports its
 * last statement's result.
 */
export class PostgresJsDialect implements Dialect {
  readonly #config: PostgresJsDialectConfig;

  constructor(config: PostgresJsDialectConfig) {
    this.#config = config;
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PostgresJsDriver(this.#config);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

/** One database connection: a postgres.js instance that never opens a second one. */
class Session {
  /** Set once postgres.js reports the connection closed; the session is then thrown away. */
  lost = false;
  readonly sql: PostgresJsSql;

  constructor(config: PostgresJsDialectConfig) {
    const options = config.options ?? {};
    const sessionOptions = {
      ...options,
      max: 1,
      onclose: (id: number) => {
        this.lost = true;
        options.onclose?.(id);
      },
    };
    this.sql =
      config.url === undefined ? postgres(sessionOptions) : postgres(config.url, sessionOptions);
  }

  end(timeout: number): Promise<void> {
    return this.sql.end({ timeout }).catch(() => {});
  }
}

/**
 * The driver: a pool of {@link Session}s, at most `maxConnections` open, handed to one
 * Kysely connection at a time. Transactions and savepoints are Kysely's own PostgreSQL
 * statements (inherited from its PostgresDriver).
 */
export class PostgresJsDriver extends PostgresDriver implements Driver {
  readonly #config: PostgresJsDialectConfig;
  readonly #max: number;
  readonly #idle: Session[] = [];
  readonly #busy = new Set<Session>();
  readonly #waiters: Array<{ resolve: (s: Session) => void; reject: (e: unknown) => void }> = [];
  #destroyed = false;

  constructor(config: PostgresJsDialectConfig) {
    // The pool setting is never read: every method that would use it is overridden here.
    super({} as PostgresDialectConfig);
    this.#config = config;
    this.#max = Math.max(1, config.maxConnections ?? 10);
  }

  override async init(): Promise<void> {}

  /** Whether connections run COPY FROM STDIN. */
  get copies(): boolean {
    return this.#config.copy ?? true;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    return new SessionConnection(await this.#take(), this);
  }

  /** An idle live session, a new one while under the limit, or the next one released. */
  #take(): Promise<Session> {
    if (this.#destroyed) return Promise.reject(new Error('the database has been closed'));
    for (let s = this.#idle.pop(); s; s = this.#idle.pop()) {
      if (!s.lost) {
        this.#busy.add(s);
        return Promise.resolve(s);
      }
      void s.end(0);
    }
    if (this.#busy.size < this.#max) return Promise.resolve(this.#open());
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  #open(): Session {
    const session = new Session(this.#config);
    this.#busy.add(session);
    return session;
  }

  /** A fresh session in place of a lost one, for a connection between transactions. */
  replace(lost: Session): Session {
    this.#busy.delete(lost);
    void lost.end(0);
    return this.#open();
  }

  /** Gives a session back: to the next waiter, else to the idle list (a lost one is closed). */
  give(session: Session): void {
    this.#busy.delete(session);
    if (session.lost || this.#destroyed) {
      void session.end(0);
      const waiter = this.#waiters.shift();
      if (waiter) waiter.resolve(this.#open());
      return;
    }
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#busy.add(session);
      waiter.resolve(session);
    } else this.#idle.push(session);
  }

  override async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    (connection as SessionConnection).beforeBegin();
    await super.beginTransaction(connection, settings);
    (connection as SessionConnection).inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as SessionConnection;
    try {
      await super.commitTransaction(connection);
    } finally {
      c.inTransaction = false;
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as SessionConnection;
    // The server rolls back the transaction of a connection it lost.
    if (c.lost) {
      c.inTransaction = false;
      return;
    }
    try {
      await super.rollbackTransaction(connection);
    } catch (error) {
      if (!c.lost) throw error;
    } finally {
      c.inTransaction = false;
    }
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as SessionConnection).release();
  }

  override async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const waiter of this.#waiters.splice(0))
      waiter.reject(new Error('the database has been closed'));
    const sessions = [...this.#idle.splice(0), ...this.#busy];
    this.#busy.clear();
    await Promise.all(sessions.map((s) => s.end(5)));
  }
}

/** The parts of a postgres.js statement a COPY FROM STDIN uses. */
interface CopyStatement {
  reject(error: unknown): void;
  writable(): Promise<Writable>;
}

/** A postgres.js row list: an array of rows plus the statement's command tag and count. */
type RowList = unknown[] & { command?: string; count?: number | null };

/** The Kysely connection over one session. */
class SessionConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    private session: Session,
    private readonly driver: PostgresJsDriver,
  ) {}

  get lost(): boolean {
    return this.session.lost;
  }

  /** Between transactions a lost connection is replaced by a new one. */
  beforeBegin(): void {
    if (this.session.lost) this.session = this.driver.replace(this.session);
  }

  release(): void {
    this.driver.give(this.session);
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // Checked right before the statement is handed to postgres.js: once the connection of a
    // transaction is gone, its later statements fail instead of running on a new connection.
    if (this.session.lost) {
      if (this.inTransaction) throw new ConnectionLostError();
      this.beforeBegin();
    }
    if (isCopyQuery(compiledQuery)) {
      if (!this.driver.copies) throw new CopyUnsupportedError();
      return this.#copy(compiledQuery);
    }
    const result = (await this.session.sql.unsafe(compiledQuery.sql, [
      ...compiledQuery.parameters,
    ] as Parameters)) as unknown as RowList;
    // A parameterless query with several statements answers one row list per statement.
    const last =
      result.length > 0 && result.every((row) => Array.isArray(row))
        ? (result.at(-1) as RowList)
        : result;
    const numAffectedRows = affectedRows(last.command, last.count);
    const rows = Array.from(last) as R[];
    return numAffectedRows === undefined ? { rows } : { rows, numAffectedRows };
  }

  /** COPY FROM STDIN: the chunks stream to the server as they are made. */
  async #copy<R>(query: CopyQuery): Promise<QueryResult<R>> {
    const pending = this.session.sql.unsafe(query.sql) as unknown as CopyStatement;
    // postgres.js settles the statement with the stream once the server asks for data; an
    // error the server sends after the last chunk (a duplicate key among the final rows)
    // then reaches only the statement's `reject`, and the stream would wait forever for
    // its end: catch it there.
    let failed: (error: unknown) => void = () => {};
    const serverError = new Promise<never>((_, reject) => (failed = reject));
    serverError.catch(() => {});
    const reject = pending.reject;
    pending.reject = (error) => {
      failed(error);
      reject(error);
    };
    const writable = await pending.writable();
    await Promise.race([pipeline(Readable.from(query.copyFrom), writable), serverError]);
    return { rows: [] };
  }

  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    if (!Number.isInteger(chunkSize) || chunkSize <= 0)
      throw new Error('chunkSize must be a positive integer');
    if (this.session.lost) {
      if (this.inTransaction) throw new ConnectionLostError();
      this.beforeBegin();
    }
    const query = this.session.sql.unsafe(compiledQuery.sql, [
      ...compiledQuery.parameters,
    ] as Parameters);
    for await (const rows of query.cursor(chunkSize)) yield { rows: rows as unknown as R[] };
  }
}
