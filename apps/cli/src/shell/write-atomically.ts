import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError } from './io.js';
import { EXIT } from './exit-codes.js';

/** Writes `text` to `path` through a temporary file and a rename: never a half-written file. */
export function writeAtomically(path: string, text: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new CliError(
      `${path}: cannot write (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      EXIT.invalidInput,
    );
  }
}
