import { getCollection, getCollectionByName, type Collection, type Queryable } from '@assay/db';
import { PlatformError } from './errors.js';

/** A collection named by its name (string) or its id (number). */
export type CollectionRef = string | number;

/**
 * Finds a collection by id (a number) or by name (a string). A string of digits that
 * names no collection is tried as an id, so `--collection 3` works from a command line;
 * a collection actually named "3" wins. not_found when there is none.
 */
export async function resolveCollection(db: Queryable, ref: CollectionRef): Promise<Collection> {
  let collection =
    typeof ref === 'number'
      ? Number.isSafeInteger(ref)
        ? await getCollection(db, ref)
        : undefined
      : await getCollectionByName(db, ref);
  if (!collection && typeof ref === 'string' && /^[1-9]\d{0,14}$/.test(ref))
    collection = await getCollection(db, Number(ref));
  if (!collection) throw new PlatformError('not_found', `no collection ${JSON.stringify(ref)}`);
  return collection;
}
