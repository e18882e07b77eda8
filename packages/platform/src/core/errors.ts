import { InputFormatError, TrecFormatError } from '@assay/trec';

/** Stable error codes; the CLI maps them to exit statuses and the API to HTTP statuses. */
export type PlatformErrorCode =
  'not_found' | 'conflict' | 'invalid_input' | 'unauthorized' | 'forbidden';

/** A failure of a platform use-case, with a stable `code` and optional machine-readable details. */
export class PlatformError extends Error {
  constructor(
    readonly code: PlatformErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

/**
 * The details of a conflict that asking to replace would resolve: each interface adds its
 * own way of asking (the CLI's `--replace`, the API's `?replace=true`).
 */
export const REPLACEABLE = { replaceable: true } as const;

/**
 * Runs a parser, turning its TrecFormatError into an invalid_input PlatformError with the
 * same `file:line: reason` message (and `file`, `line` in details), and a file whose format
 * cannot be told (InputFormatError) into one naming the formats accepted.
 */
export function parsing<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw parsingError(error);
  }
}

/** A TrecFormatError or InputFormatError as {@link parsing} reports it; any other unchanged. */
export function parsingError(error: unknown): unknown {
  if (error instanceof TrecFormatError)
    return new PlatformError('invalid_input', error.message, {
      file: error.file,
      line: error.line,
    });
  if (error instanceof InputFormatError)
    return new PlatformError('invalid_input', error.message, {
      file: error.file,
      formats: [...error.accepted],
    });
  return error;
}

/** {@link parsing} for a parser that returns a promise. */
export async function parsingAsync<T>(parse: () => Promise<T>): Promise<T> {
  try {
    return await parse();
  } catch (error) {
    throw parsingError(error);
  }
}

/**
 * What the database refused, in words that name no SQL, by SQLSTATE (undefined for errors
 * that are not about the data: those stay internal errors).
 */
export function describeDataError(sqlstate: unknown): string | undefined {
  if (typeof sqlstate !== 'string') return undefined;
  if (sqlstate === '22003') return 'a number is out of the range assay stores';
  if (sqlstate === '22001' || sqlstate === '54000')
    return 'a value is too long to store (ids at most 512 bytes, names at most 200 characters)';
  if (sqlstate === '22021' || sqlstate === '22P05')
    return 'a text holds a character that cannot be stored (a NUL character)';
  if (sqlstate === '23514' || sqlstate === '23502' || sqlstate.startsWith('22'))
    return 'a value was refused as out of range or malformed';
  return undefined;
}

/**
 * Runs a database write, turning what the database can still refuse after validation
 * into PlatformErrors: a unique violation (23505, e.g. a concurrent import of the same
 * name) becomes `conflict` with `conflictMessage`; a data error (22xxx, a check, an index
 * entry too large) becomes invalid_input `file: reason` with a reason that names no SQL
 * (see describeDataError). Anything else is rethrown unchanged. The write is one
 * transaction, so in every case nothing is kept.
 */
export async function writing<T>(
  write: () => Promise<T>,
  conflictMessage: string,
  file?: string,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    const code = (error as { code?: unknown }).code;
    if (code === '23505') throw new PlatformError('conflict', conflictMessage);
    const reason = describeDataError(code);
    if (reason !== undefined)
      throw new PlatformError('invalid_input', file ? `${file}: ${reason}` : reason, {
        ...(file ? { file } : {}),
        sqlstate: code,
      });
    throw error;
  }
}
