import { sql } from 'kysely';
import { batches, bulkInsert, withTransaction, type Queryable } from '../bulk.js';
import type { JsonObject, Row } from '../schema.js';

/** A document to store. */
export interface DocumentInput {
  docId: string;
  title?: string | null;
  text: string;
  metadata?: JsonObject;
}

/** A stored document. */
export interface StoredDocument {
  collectionId: number;
  docId: string;
  title: string | null;
  text: string;
  metadata: JsonObject;
}

/** Paging through a collection's documents in docno order (byte order, as trec_eval). */
export interface DocumentPage {
  /**
   * Most documents to return (default 100, at most 10,001: one more than the largest page
   * the platform serves, so that it can tell whether another page follows).
   */
  limit?: number;
  /** Return documents whose docno sorts after this one (keyset paging). */
  after?: string;
  /** Skip this many documents first (offset paging). */
  offset?: number;
}

export function toStoredDocument(row: Row<'documents'>): StoredDocument {
  return {
    collectionId: row.collection_id,
    docId: row.doc_id,
    title: row.title,
    text: row.text,
    metadata: row.metadata,
  };
}

/**
 * Stores documents in batched multi-row inserts, all in one transaction (or in `db` if
 * it is one): a duplicate docno fails the whole call. Returns how many were stored.
 */
export async function insertDocuments(
  db: Queryable,
  collectionId: number,
  documents: readonly DocumentInput[] | Iterable<DocumentInput>,
  options: { batchSize?: number } = {},
): Promise<number> {
  return withTransaction(db, async (trx) => {
    // The collection's documents change: its fingerprint is computed again when next needed.
    await trx
      .updateTable('collections')
      .set((eb) => ({
        documents_fingerprint: null,
        documents_version: eb('documents_version', '+', 1),
      }))
      .where('id', '=', collectionId)
      .execute();
    return bulkInsert(trx, {
      table: 'documents',
      constant: { collection_id: collectionId },
      columns: [
        { name: 'doc_id', type: 'text', value: (d: DocumentInput) => d.docId },
        { name: 'title', type: 'text', value: (d) => d.title ?? null },
        { name: 'text', type: 'text', value: (d) => d.text },
        { name: 'metadata', type: 'jsonb', value: (d) => d.metadata ?? {} },
      ],
      rows: documents,
      ...options,
    });
  });
}

/** One document by docno, if stored. */
export async function getDocument(
  db: Queryable,
  collectionId: number,
  docId: string,
): Promise<StoredDocument | undefined> {
  const row = await db
    .selectFrom('documents')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('doc_id', '=', docId)
    .executeTakeFirst();
  return row && toStoredDocument(row);
}

/** The stored documents among `docIds`, by docno (missing ones are absent from the map). */
export async function getDocuments(
  db: Queryable,
  collectionId: number,
  docIds: readonly string[],
): Promise<Map<string, StoredDocument>> {
  const found = new Map<string, StoredDocument>();
  const unique = [...new Set(docIds)];
  for (let start = 0; start < unique.length; start += 10_000) {
    const batch = unique.slice(start, start + 10_000);
    const rows = await db
      .selectFrom('documents')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where(sql<boolean>`doc_id = any(${batch}::text[])`)
      .execute();
    for (const row of rows) found.set(row.doc_id, toStoredDocument(row));
  }
  return found;
}

/**
 * The docnos among `docIds` the collection holds, asked 10,000 at a time (a Set is read as
 * it is, without a copy: a million docnos are never gathered or sent in one piece).
 */
export async function heldDocIds(
  db: Queryable,
  collectionId: number,
  docIds: Iterable<string>,
): Promise<Set<string>> {
  const held = new Set<string>();
  for (const batch of batches(docIds instanceof Set ? docIds : new Set(docIds), 10_000)) {
    const rows = await db
      .selectFrom('documents')
      .select('doc_id')
      .where('collection_id', '=', collectionId)
      .where(sql<boolean>`doc_id = any(${batch}::text[])`)
      .execute();
    for (const row of rows) held.add(row.doc_id);
  }
  return held;
}

/** A page of a collection's documents in docno byte order. */
export async function listDocuments(
  db: Queryable,
  collectionId: number,
  page: DocumentPage = {},
): Promise<StoredDocument[]> {
  const limit = Math.min(Math.max(Math.trunc(page.limit ?? 100), 1), 10_001);
  let query = db
    .selectFrom('documents')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .orderBy(sql`doc_id collate "C"`)
    .limit(limit);
  if (page.after !== undefined) {
    query = query.where(sql<boolean>`doc_id collate "C" > ${page.after}`);
  }
  if (page.offset) query = query.offset(Math.max(Math.trunc(page.offset), 0));
  return (await query.execute()).map(toStoredDocument);
}
