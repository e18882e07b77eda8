import * as store from '@assay/db';
import type { DocumentPage, Queryable, StoredDocument } from '@assay/db';
import { PlatformError } from '../core/errors.js';
import { pageLimit, type Page, type PageOptions, type PageSize } from '../core/paging.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';

/** A page of a collection's documents in docno byte order (keyset paging with `after`). */
export async function listDocuments(
  db: Queryable,
  ref: CollectionRef,
  page: DocumentPage = {},
): Promise<StoredDocument[]> {
  const collection = await resolveCollection(db, ref);
  return store.listDocuments(db, collection.id, page);
}

/**
 * Documents a page of {@link listDocumentsPage} holds by default, and at most (documents
 * carry their text, so the default page is smaller than other large lists').
 */
export const DOCUMENT_PAGE: PageSize = { default: 100, max: 10_000 };

/**
 * A page of a collection's documents in docno byte order. The cursor is the last docno of
 * the page itself (documents are listed by docno, so any docno is a valid `after`).
 */
export async function listDocumentsPage(
  db: Queryable,
  ref: CollectionRef,
  options: PageOptions = {},
): Promise<Page<StoredDocument>> {
  const limit = pageLimit(options.limit, DOCUMENT_PAGE);
  const collection = await resolveCollection(db, ref);
  const rows = await store.listDocuments(db, collection.id, {
    limit: limit + 1,
    ...(options.after === undefined ? {} : { after: options.after }),
  });
  const items = rows.slice(0, limit);
  return { items, next: rows.length > limit ? items.at(-1)!.docId : null };
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
