import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type postgres from 'postgres';
import { affectedRows, beginTransaction, savepointCommand } from './transaction-commands.js';

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
 * Kysely dialect over postgres.js. Every Kysely connection reserves one pooled
 * connection (`sql.reserve()`), so transactions run BEGIN … COMMIT on the connection
 * that holds them while other queries use the rest of the pool.
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

/** Kysely driver lending one reserved postgres.js connection per Kysely connection. */
export class PostgresJsDriver implements Driver {
  readonly #config: PostgresJsDialectConfig;
  #sql: PostgresJsSql | undefined;

  constructor(config: PostgresJsDialectConfig) {
    this.#config = config;
  }

  async init(): Promise<void> {
    // postgres.js pools are themselves functions, so no factory form here.
    this.#sql = this.#config.sql;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.#sql) throw new Error('the postgres.js driver has been destroyed');
    return new PostgresJsConnection(await this.#sql.reserve());
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    await beginTransaction(connection, settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(
    connection: DatabaseConnection,
    savepointName: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await savepointCommand(connection, 'savepoint', savepointName, compileQuery);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    savepointName: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await savepointCommand(connection, 'rollback to', savepointName, compileQuery);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    savepointName: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await savepointCommand(connection, 'release', savepointName, compileQuery);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PostgresJsConnection).release();
  }

  async destroy(): Promise<void> {
    const sql = this.#sql;
    this.#sql = undefined;
    if (sql && (this.#config.endOnDestroy ?? true)) await sql.end({ timeout: 5 });
  }
}

/** A postgres.js row list: an array of rows plus the statement's command tag and count. */
type RowList = Record<string, unknown>[] & { command?: string; count?: number | null };

/**
 * One reserved postgres.js connection. `unsafe(sql, params)` runs parameterised queries
 * over the extended protocol; without parameters postgres.js uses the simple protocol,
 * which accepts several statements (migrations) and returns one row list per statement.
 */
class PostgresJsConnection implements DatabaseConnection {
  readonly #reserved: ReservedSql;

  constructor(reserved: ReservedSql) {
    this.#reserved = reserved;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const params = compiledQuery.parameters as Parameters;
    const raw = (await this.#reserved.unsafe(compiledQuery.sql, params)) as unknown as RowList;
    const result = lastStatementResult(raw);
    const rows = (result.length === 0 ? [] : Array.from(result)) as R[];
    const numAffectedRows = affectedRows(result.command, result.count);
    return numAffectedRows === undefined ? { rows } : { rows, numAffectedRows };
  }

  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize = 1000,
  ): AsyncIterableIterator<QueryResult<R>> {
    if (!Number.isInteger(chunkSize) || chunkSize <= 0) {
      throw new Error('chunkSize must be a positive integer');
    }
    const params = compiledQuery.parameters as Parameters;
    const cursor = this.#reserved.unsafe(compiledQuery.sql, params).cursor(chunkSize);
    for await (const chunk of cursor) {
      yield { rows: Array.from(chunk) as R[] };
    }
  }

  release(): void {
    this.#reserved.release();
  }
}

/** A multi-statement simple query returns one row list per statement: keep the last. */
function lastStatementResult(raw: RowList): RowList {
  if (raw.command === undefined && raw.length > 0 && raw.every((item) => Array.isArray(item))) {
    return raw.at(-1) as unknown as RowList;
  }
  return raw;
}
