import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/** What repository functions take: the database, or a transaction on it. */
export type Queryable = Kysely<Database> | Transaction<Database>;

/** Rows per bulk INSERT statement (measured best on both engines; see docs/development.md). */
export const DEFAULT_BULK_BATCH_SIZE = 10_000;

/** Runs `fn` in a transaction: the given one, or a new one on `db`. */
export async function withTransaction<T>(
  db: Queryable,
  fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (db.isTransaction) return fn(db as Transaction<Database>);
  return db.transaction().execute(fn);
}

/** What a discarded transaction's work gave, carried out through its rollback. */
class Discarded<T> {
  constructor(readonly value: T) {}
}

/**
 * Runs `fn` in a new transaction that is always rolled back, and returns what `fn` gave:
 * what it writes is seen by its own queries and never kept (a dry run that needs its
 * inputs stored to plan from them). `db` must not be a transaction already, since its
 * rollback would take the caller's work with it.
 */
export async function withDiscardedTransaction<T>(
  db: Queryable,
  fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (db.isTransaction)
    throw new Error('withDiscardedTransaction: the work would be discarded with its caller’s');
  try {
    await db.transaction().execute(async (trx) => {
      throw new Discarded(await fn(trx));
    });
  } catch (error) {
    if (error instanceof Discarded) return error.value as T;
    throw error;
  }
  throw new Error('withDiscardedTransaction: the transaction was not rolled back');
}

/** A column filled from each row; sent as one array parameter per statement. */
export interface BulkColumn<R> {
  name: string;
  /** `bool` values travel as the texts 'true' and 'false'. */
  type: 'text' | 'int4' | 'int8' | 'float8' | 'jsonb' | 'bool';
  value: (row: R) => unknown;
}

/** Options of {@link bulkInsert}. */
export interface BulkInsertOptions<R> {
  table: keyof Database & string;
  /** Columns with the same value in every row (e.g. the parent's id). */
  constant?: Readonly<Record<string, number | string>>;
  columns: readonly BulkColumn<R>[];
  /**
   * The rows: an array, or any iterable (e.g. a generator walking a parsed file), which is
   * read one batch at a time so that no array of every row is ever built.
   */
  rows: readonly R[] | Iterable<R>;
  /** SQL appended to each statement, e.g. an ON CONFLICT clause (never user input). */
  suffix?: string;
  batchSize?: number;
}

/**
 * Inserts rows in batches of multi-row statements,
 * `INSERT … SELECT … FROM unnest($1::text[], $2::int4[], …)`: one array parameter per
 * column whatever the batch size, so the 65,535-parameter limit never applies and the
 * server parses one small statement per batch. Identifiers come from code, values
 * travel only as parameters. Returns the number of rows written. Not transactional by
 * itself: callers wrap it in {@link withTransaction}.
 */
export async function bulkInsert<R>(db: Queryable, options: BulkInsertOptions<R>): Promise<number> {
  const { table, columns, rows, suffix = '' } = options;
  const batchSize = options.batchSize ?? DEFAULT_BULK_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize <= 0) {
    throw new Error('batchSize must be a positive integer');
  }
  const constant = Object.entries(options.constant ?? {});

  const names: string[] = [];
  const selects: string[] = [];
  const unnests: string[] = [];
  let parameter = 0;
  for (const [name, value] of constant) {
    names.push(name);
    selects.push(`$${++parameter}::${typeof value === 'number' ? 'int8' : 'text'}`);
  }
  columns.forEach((column, index) => {
    names.push(column.name);
    const sentAsText = column.type === 'jsonb' || column.type === 'bool';
    const arrayType = sentAsText ? 'text' : column.type;
    unnests.push(`$${++parameter}::${arrayType}[]`);
    selects.push(
      column.type === 'jsonb'
        ? `u.c${index}::jsonb`
        : column.type === 'bool'
          ? `u.c${index}::boolean`
          : `u.c${index}`,
    );
  });
  const aliases = columns.map((_, index) => `c${index}`).join(', ');
  const text =
    `insert into ${quote(table)} (${names.map(quote).join(', ')}) ` +
    `select ${selects.join(', ')} from unnest(${unnests.join(', ')}) as u(${aliases})` +
    (suffix ? ` ${suffix}` : '');

  let written = 0;
  for (const batch of batches(rows, batchSize)) {
    const parameters: unknown[] = constant.map(([, value]) => value);
    for (const column of columns) {
      const values = new Array<unknown>(batch.length);
      for (let i = 0; i < batch.length; i++) {
        const value = column.value(batch[i] as R);
        values[i] =
          column.type === 'jsonb'
            ? value == null
              ? null
              : JSON.stringify(value)
            : column.type === 'bool'
              ? value == null
                ? null
                : String(Boolean(value))
              : (value ?? null);
      }
      parameters.push(values);
    }
    const result = await db.executeQuery(CompiledQuery.raw(text, parameters));
    written += Number(result.numAffectedRows ?? 0n);
  }
  return written;
}

/** `rows` in consecutive batches of at most `size` (none when there are no rows). */
export function* batches<R>(
  rows: readonly R[] | Iterable<R>,
  size: number,
): Generator<readonly R[]> {
  if (Array.isArray(rows)) {
    for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
    return;
  }
  let batch: R[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

/**
 * A COPY FROM STDIN statement with the data it reads: the drivers of both engines recognise
 * `copyFrom` on the compiled query they are handed (postgres.js streams the chunks to the
 * server; PGlite loads them as `/dev/blob`, one COPY per chunk, in the same transaction).
 */
export interface CopyQuery extends CompiledQuery {
  /** Chunks of COPY text-format rows (each ends with `\n`), of about {@link COPY_CHUNK_CHARS}. */
  copyFrom: AsyncIterable<string> | Iterable<string>;
}

/**
 * What a driver throws for a {@link CopyQuery} it cannot run (postgres.js through a shared
 * PGlite's socket: PGlite takes no COPY FROM STDIN there), before reading any chunk.
 */
export class CopyUnsupportedError extends Error {
  constructor() {
    super('this connection cannot run COPY FROM STDIN');
    this.name = 'CopyUnsupportedError';
  }
}

/** Whether a compiled query is a {@link CopyQuery}. */
export function isCopyQuery(query: CompiledQuery): query is CopyQuery {
  return (query as Partial<CopyQuery>).copyFrom !== undefined;
}

/** Characters of COPY text per chunk handed to the driver (about 2 MB of rows). */
export const COPY_CHUNK_CHARS = 2 * 1024 * 1024;

/** Options of {@link bulkCopy}: those of {@link bulkInsert} without a suffix or batches. */
export type BulkCopyOptions<R> = Omit<BulkInsertOptions<R>, 'suffix' | 'batchSize' | 'rows'> & {
  rows: readonly R[] | Iterable<R> | AsyncIterable<R>;
  /** Characters per chunk (default {@link COPY_CHUNK_CHARS}; tests use small ones). */
  chunkChars?: number;
  /**
   * A row's columns as COPY text, in the order of `columns`, tab-separated, without the
   * constant columns or the newline (values escaped with {@link copyText}). Default: each
   * column's value encoded by its type. A writer that knows its rows (e.g. a run's entries
   * arrive topic by topic) encodes them with less work per row.
   */
  encode?: (row: R) => string;
};

/**
 * Writes rows with COPY (text format) instead of INSERT statements: the server parses
 * plain rows, no statement per batch, and on PostgreSQL the rows stream while the next are
 * made. Values are escaped for COPY's text format (backslash, tab, newline, carriage
 * return); `null` travels as `\N`. The rows go in as INSERT would put them in (constraints,
 * triggers and all); a failure fails the statement, and the caller's transaction then
 * leaves nothing. Returns the number of rows written. Not transactional by itself.
 */
export async function bulkCopy<R>(db: Queryable, options: BulkCopyOptions<R>): Promise<number> {
  const { table, columns, rows } = options;
  const chunkChars = options.chunkChars ?? COPY_CHUNK_CHARS;
  const constant = Object.entries(options.constant ?? {});
  const names = [...constant.map(([name]) => name), ...columns.map((c) => c.name)];
  // Constant columns are written into every row: COPY has no column defaults of its own.
  const prefix = constant.map(([, value]) => copyText(value) + '\t').join('');
  const encoders = columns.map((column) => encoderOf(column));
  const encode =
    options.encode ??
    ((row: R): string => {
      let line = '';
      for (let i = 0; i < encoders.length; i++) {
        if (i > 0) line += '\t';
        line += encoders[i]!(row);
      }
      return line;
    });
  let written = 0;
  let parts: string[] = [];
  let size = 0;
  /** Adds a row's line; a full chunk when there is one to hand over. */
  const add = (row: R): string | undefined => {
    const line = prefix + encode(row);
    parts.push(line + '\n');
    size += line.length + 1;
    written++;
    if (size < chunkChars) return undefined;
    const chunk = parts.join('');
    parts = [];
    size = 0;
    return chunk;
  };
  async function* chunks(): AsyncGenerator<string> {
    if (Symbol.asyncIterator in rows) {
      for await (const row of rows) {
        const chunk = add(row);
        if (chunk !== undefined) yield chunk;
      }
    } else {
      // Rows at hand are read without a promise per row.
      for (const row of rows) {
        const chunk = add(row);
        if (chunk !== undefined) yield chunk;
      }
    }
    if (parts.length > 0) yield parts.join('');
  }
  try {
    await copyChunks(db, table, names, chunks());
  } catch (error) {
    // No row was read yet: the same rows go in by INSERT instead.
    if (error instanceof CopyUnsupportedError && !(Symbol.asyncIterator in rows))
      return bulkInsert(db, {
        table,
        columns,
        rows,
        ...(options.constant ? { constant: options.constant } : {}),
      });
    throw error;
  }
  return written;
}

/**
 * Runs `COPY table (names) FROM STDIN` reading `chunks`, each a whole number of COPY
 * text-format rows (see {@link bulkCopy}); they are read as the server takes them, so a
 * generator of chunks is paused while the server is behind. Throws
 * {@link CopyUnsupportedError} before reading any chunk where COPY cannot run.
 */
export async function copyChunks(
  db: Queryable,
  table: keyof Database & string,
  names: readonly string[],
  chunks: AsyncIterable<string>,
): Promise<void> {
  const query: CopyQuery = {
    ...CompiledQuery.raw(`copy ${quote(table)} (${names.map(quote).join(', ')}) from stdin`, []),
    copyFrom: chunks,
  };
  await db.executeQuery(query);
}

/** How one column's value is written as COPY text. */
function encoderOf<R>(column: BulkColumn<R>): (row: R) => string {
  const { value } = column;
  switch (column.type) {
    case 'jsonb':
      return (row) => {
        const v = value(row);
        return v == null ? '\\N' : copyText(JSON.stringify(v));
      };
    case 'bool':
      return (row) => {
        const v = value(row);
        return v == null ? '\\N' : v ? 't' : 'f';
      };
    case 'text':
      return (row) => {
        const v = value(row);
        return v == null ? '\\N' : copyText(v as string);
      };
    default:
      // Numbers: String() is the shortest text that reads back to the same double.
      return (row) => {
        const v = value(row);
        return v == null ? '\\N' : String(v);
      };
  }
}

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
};

/** A value in COPY's text format: backslash, tab, newline and carriage return escaped. */
export function copyText(value: string | number): string {
  const text = String(value);
  return COPY_SPECIAL.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : text;
}
