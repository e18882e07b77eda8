// Writing a run under its name: what importing a run file, storing a retrieval and storing
// a retrieval with models all do inside their transaction.
import {
  createRun,
  deleteRun,
  findRunByName,
  lockName,
  type NewRun,
  type RunSummary,
} from '@assay/db';
import { PlatformError } from '../core/errors.js';
import { runLockName } from '../core/name-locks.js';

/**
 * Creates `run` in `trx` under its name. Writers of the same name take turns under its
 * lock; a run already stored under the name is refused with a conflict saying `taken`
 * (and `details`) unless `replace` is set, when it is deleted first.
 */
export async function createRunUnderName(
  trx: Parameters<typeof lockName>[0],
  run: NewRun,
  options: { replace?: boolean; taken: string; details?: Record<string, unknown> },
): Promise<{ created: RunSummary; replaced: boolean }> {
  await lockName(trx, runLockName(run.collectionId, run.name));
  const existing = await findRunByName(trx, run.collectionId, run.name);
  if (existing) {
    if (!options.replace) throw new PlatformError('conflict', options.taken, options.details);
    await deleteRun(trx, existing.id);
  }
  return { created: await createRun(trx, run), replaced: existing !== undefined };
}
