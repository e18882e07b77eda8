import * as store from '@assay/db';
import type { DocumentPage, Queryable, StoredDocument } from '@assay/db';
import { PlatformError } from './errors.js';
import { resolveCollection, type CollectionRef } from './resolve.js';

/** A page of a collection's documents in docno byte order (keyset paging with `after`). */
export async function listDocuments(
  db: Queryable,
  ref: CollectionRef,
  page: DocumentPage = {},
): Promise<StoredDocument[]> {
  const collection = await resolveCollection(db, ref);
  return store.listDocuments(db, collection.id, page);
}

/** One document of a collection by docno; not_found if the collection or document is absent. */
export async function getDocument(
  db: Queryable,
  ref: CollectionRef,
  docId: string,
): Promise<StoredDocument> {
  const collection = await resolveCollection(db, ref);
  const doc = await store.getDocument(db, collection.id, docId);
  if (!doc)
    throw new PlatformError(
      'not_found',
      `no document ${JSON.stringify(docId)} in collection "${collection.name}"`,
    );
  return doc;
}
