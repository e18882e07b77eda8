import { MeasureSpecError, MissingTopicError } from '@assay/measures';
import { describeDataError, PlatformError } from '@assay/platform';
import { TrecFormatError } from '@assay/trec';
import { UsageError } from './getopt.js';
import { EXIT } from './exit-codes.js';
import { CliError, type CommandIo } from './io.js';

/**
 * Turns a command's failure into its message and exit status. Loaded only when a command
 * fails, so that starting assay does not load the platform, measures and TREC code for
 * their error classes (a command that throws one has loaded its module already).
 */
export function reportError(command: string, error: unknown, usage: string, io: CommandIo): number {
  if (error instanceof UsageError) {
    io.stderr(`assay ${command}: ${error.message}\n\n${usage}\n`);
    return EXIT.usage;
  }
  if (error instanceof MeasureSpecError) {
    io.stderr(`assay ${command}: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof TrecFormatError) {
    io.stderr(`assay ${command}: ${error.message}\n`);
    return EXIT.invalidInput;
  }
  if (error instanceof MissingTopicError) {
    io.stderr(`assay ${command}: ${error.message}\n`);
    return EXIT.missingTopic;
  }
  if (error instanceof CliError) {
    io.stderr(`assay ${command}: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof PlatformError) {
    io.stderr(`assay ${command}: ${error.message}\n`);
    return error.code === 'invalid_input'
      ? EXIT.invalidInput
      : error.code === 'not_found'
        ? EXIT.notFound
        : error.code === 'conflict'
          ? EXIT.conflict
          : EXIT.usage;
  }
  // What a database refused names SQL in its own text: say it in words (the text with ASSAY_DEBUG).
  const refused = describeDataError((error as { code?: unknown } | null)?.code);
  if (refused !== undefined) {
    io.stderr(`assay ${command}: ${refused}\n${debugDetails(error)}`);
    return EXIT.invalidInput;
  }
  // A bug: one line, never the bundled source or a stack unless asked for.
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(
    `assay ${command}: internal error: ${firstLine(message)}\n${debugDetails(error) || 'set ASSAY_DEBUG=1 to see the stack\n'}`,
  );
  return EXIT.internal;
}

/** The error's stack when ASSAY_DEBUG=1, else nothing. */
function debugDetails(error: unknown): string {
  if (process.env.ASSAY_DEBUG !== '1') return '';
  return `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
}

/** The first line of a message, at most 200 characters (minified source never floods the terminal). */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
