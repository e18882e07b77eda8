import * as store from '@assay/db';
import type { CollectionSummary, Queryable } from '@assay/db';
import { PlatformError } from './errors.js';
import { resolveCollection, type CollectionRef } from './resolve.js';

/** Every collection by name, with its document and topic counts. */
export function listCollections(db: Queryable): Promise<CollectionSummary[]> {
  return store.listCollections(db);
}

/** Deletes a collection with its documents, topics, runs, label sets and jobs; not_found if absent. */
export async function deleteCollection(db: Queryable, ref: CollectionRef): Promise<void> {
  const collection = await resolveCollection(db, ref);
  await store.deleteCollection(db, collection.id);
}

/** A collection (by the naming rule) with its document and topic counts; not_found if absent. */
export async function getCollectionSummary(
  db: Queryable,
  ref: CollectionRef,
): Promise<CollectionSummary> {
  const collection = await resolveCollection(db, ref);
  const summary = await store.getCollectionSummary(db, collection.id);
  if (!summary) throw new PlatformError('not_found', `no collection ${JSON.stringify(ref)}`);
  return summary;
}
