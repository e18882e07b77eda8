import type {
  CompiledQuery,
  DatabaseConnection,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { PostgresJSDialect, PostgresJSDriver } from 'kysely-postgres-js';
import type postgres from 'postgres';
import { affectedRows } from './affected-rows.js';

/** The part of a postgres.js pool (`postgres(url, options)`) the driver uses. */
export interface PostgresJsSql {
  reserve(): Promise<ReservedSql>;
  end(options?: { timeout?: number }): Promise<void>;
}

/** The part of a reserved postgres.js connection the driver uses. */
interface ReservedSql {
  unsafe(query: string, parameters?: Parameters): postgres.PendingQuery<postgres.Row[]>;
  release(): void;
}

type Parameters = postgres.ParameterOrJSON<never>[];

/** Options of {@link PostgresJsDialect}. */
export interface PostgresJsDialectConfig {
  /** The postgres.js pool: `postgres(url, options)`. */
  sql: PostgresJsSql;
  /** End the pool when the Kysely instance is destroyed (default true). */
  endOnDestroy?: boolean;
}

/**
 * Kysely dialect over postgres.js: kysely-postgres-js (one reserved pooled connection per
 * Kysely connection, Kysely's own transaction and savepoint statements), plus what assay
 * relies on besides: a parameterless multi-statement query (a migration) reports its last
 * statement's result, and the pool can outlive the Kysely instance.
 */
export class PostgresJsDialect extends PostgresJSDialect {
  readonly #config: PostgresJsDialectConfig;

  constructor(config: PostgresJsDialectConfig) {
    super({ postgres: () => poolFor(config) });
    this.#config = config;
  }

  override createDriver(): Driver {
    return new PostgresJsDriver(this.#config);
  }
}

/**
 * Kysely driver lending one reserved postgres.js connection per Kysely connection:
 * kysely-postgres-js's driver, whose connections report a multi-statement query's last
 * result.
 */
export class PostgresJsDriver implements Driver {
  readonly #inner: PostgresJSDriver;

  constructor(config: PostgresJsDialectConfig) {
    this.#inner = new PostgresJSDriver({ postgres: () => poolFor(config) });
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new LastStatementConnection(await this.#inner.acquireConnection());
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(unwrap(connection));
  }

  savepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return this.#inner.savepoint(unwrap(connection), name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Compile) {
    return this.#inner.rollbackToSavepoint(unwrap(connection), name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: Compile) {
    return this.#inner.releaseSavepoint(unwrap(connection), name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

type Compile = QueryCompiler['compileQuery'];

/** The library's connection behind one of ours. */
function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return (connection as LastStatementConnection).inner;
}

/** The pool as kysely-postgres-js sees it: `end` honours `endOnDestroy` and a timeout. */
function poolFor(config: PostgresJsDialectConfig) {
  const { sql } = config;
  return {
    reserve: () => sql.reserve(),
    end: () => ((config.endOnDestroy ?? true) ? sql.end({ timeout: 5 }) : Promise.resolve()),
  };
}

/** A postgres.js row list: an array of rows plus the statement's command tag and count. */
type RowList = unknown[] & { command?: string; count?: number | null };

/**
 * Wraps a kysely-postgres-js connection. postgres.js answers a parameterless query with
 * several statements by one row list per statement; assay's drivers report the last one,
 * as PGlite's does.
 */
class LastStatementConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.inner.executeQuery<R>(compiledQuery);
    const { rows } = result;
    if (result.numAffectedRows !== undefined || rows.length === 0) return result;
    if (!rows.every((row) => Array.isArray(row))) return result;
    const last = rows.at(-1) as unknown as RowList;
    const numAffectedRows = affectedRows(last.command, last.count);
    const lastRows = Array.from(last) as R[];
    return numAffectedRows === undefined ? { rows: lastRows } : { rows: lastRows, numAffectedRows };
  }

  streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiledQuery, chunkSize);
  }
}
