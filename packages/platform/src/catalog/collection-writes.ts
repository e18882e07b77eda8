// The one order of locks of a write into a collection, so that concurrent writers and a
// delete of the collection never wait for each other in a circle (a deadlock) and a write
// never lands in a collection deleted meanwhile (a foreign-key violation):
//   1. the collection row: writers share it (holdCollection), a delete takes it alone
//      (lockCollectionContents in deleteCollection);
//   2. the advisory name locks of name-locks.ts (a run, label set or collection name);
//   3. the rows the write reads and changes.
import { holdCollection, withTransaction, type Queryable } from '@assay/db';
import { PlatformError } from '../core/errors.js';

/**
 * Runs `write` in one transaction that first holds the collection: a delete of it that
 * is in progress finishes first, and the write then answers not_found; a delete that
 * comes later waits for the write and removes what it wrote too.
 */
export function writeInCollection<T>(
  db: Queryable,
  collection: { id: number; name: string },
  write: Parameters<typeof withTransaction<T>>[1],
): Promise<T> {
  return withTransaction(db, async (trx) => {
    if (!(await holdCollection(trx, collection.id)))
      throw new PlatformError(
        'not_found',
        `no collection ${JSON.stringify(collection.name)} (it was deleted)`,
      );
    return write(trx);
  });
}
