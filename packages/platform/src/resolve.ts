import { getCollection, getCollectionByName, type Collection, type Queryable } from '@assay/db';
import { PlatformError } from './errors.js';

/** A collection named by its name or its id. */
export type CollectionRef = string | number;

/** Finds a collection by name or id; not_found when there is none. */
export async function resolveCollection(db: Queryable, ref: CollectionRef): Promise<Collection> {
  const collection =
    typeof ref === 'number' ? await getCollection(db, ref) : await getCollectionByName(db, ref);
  if (!collection) throw new PlatformError('not_found', `no collection ${JSON.stringify(ref)}`);
  return collection;
}
