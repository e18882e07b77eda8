import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The data directory's name, in the folder a user works in (as git's `.git`). */
export const DATA_DIR_NAME = '.assay';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The data directory to use when ASSAY_DATA_DIR is not set, found as git finds `.git`:
 * `./.assay` when the working directory has one, else the nearest ancestor's `.assay`
 * (absolute), else `./.assay` (created on first use). So a command run from a
 * subfolder uses the same database and LLM call store as one run from the project root.
 */
export function findDataDir(cwd: string = process.cwd()): string {
  const start = resolve(cwd);
  if (isDirectory(join(start, DATA_DIR_NAME))) return `./${DATA_DIR_NAME}`;
  for (let dir = dirname(start); ; dir = dirname(dir)) {
    const candidate = join(dir, DATA_DIR_NAME);
    if (isDirectory(candidate)) return candidate;
    if (dirname(dir) === dir) return `./${DATA_DIR_NAME}`;
  }
}
