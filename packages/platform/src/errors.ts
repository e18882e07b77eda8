import { TrecFormatError } from '@assay/trec';

/** Stable error codes the CLI and the API map to exit codes and HTTP statuses. */
export type PlatformErrorCode =
  'not_found' | 'conflict' | 'invalid_input' | 'unauthorized' | 'forbidden';

/** A failure of a platform use-case, with a stable code. */
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

/** Runs a parser, turning its `file:line: reason` errors into invalid_input (same message). */
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
