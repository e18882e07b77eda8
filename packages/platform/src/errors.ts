import { TrecFormatError } from '@assay/trec';

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
 * Runs a parser, turning its TrecFormatError into an invalid_input PlatformError with the
 * same `file:line: reason` message (and `file`, `line` in details).
 */
export function parsing<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof TrecFormatError) {
      throw new PlatformError('invalid_input', error.message, {
        file: error.file,
        line: error.line,
      });
    }
    throw error;
  }
}

/**
 * Runs a database write, turning what the database can still refuse after validation
 * into PlatformErrors: a unique violation (23505, e.g. a concurrent import of the same
 * name) becomes `conflict` with `conflictMessage`; a check or data error (23514, 22xxx,
 * e.g. a NUL character in a text) becomes invalid_input `file: reason`. Anything else is
 * rethrown unchanged. The write is one transaction, so in every case nothing is kept.
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
    if (code === '23514' || (typeof code === 'string' && code.startsWith('22'))) {
      const reason = (error as Error).message;
      throw new PlatformError('invalid_input', file ? `${file}: ${reason}` : reason, {
        ...(file ? { file } : {}),
        sqlstate: code,
      });
    }
    throw error;
  }
}
