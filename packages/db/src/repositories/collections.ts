import { sql } from 'kysely';
import type { Queryable } from '../bulk.js';
import { whereIdOrName, type IdOrName } from '../id-or-name.js';
import type { Row } from '../schema.js';
import { seek, type Seek } from '../keyset.js';

/** A test collection. */
export interface Collection {
  id: number;
  name: string;
  description: string | null;
  createdAt: Date;
}

/** A collection with how many documents and topics it holds. */
export interface CollectionSummary extends Collection {
  documentCount: number;
  topicCount: number;
}

/** Fields of a new collection. */
export interface NewCollection {
  name: string;
  description?: string | null;
}

export function toCollection(row: Row<'collections'>): Collection {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    createdAt: row.created_at,
  };
}

/** Creates a collection; fails with a unique violation (23505) if the name is taken. */
export async function createCollection(db: Queryable, input: NewCollection): Promise<Collection> {
  const row = await db
    .insertInto('collections')
    .values({ name: input.name, description: input.description ?? null })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toCollection(row);
}

/** Collections with their document and topic counts. */
function collectionSummaries(db: Queryable) {
  return db
    .selectFrom('collections as c')
    .selectAll('c')
    .select((eb) => [
      eb
        .selectFrom('documents as d')
        .whereRef('d.collection_id', '=', 'c.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('document_count'),
      eb
        .selectFrom('topics as t')
        .whereRef('t.collection_id', '=', 'c.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('topic_count'),
    ]);
}

function toCollectionSummary(
  row: Row<'collections'> & { document_count: number | null; topic_count: number | null },
): CollectionSummary {
  return {
    ...toCollection(row),
    documentCount: Number(row.document_count ?? 0),
    topicCount: Number(row.topic_count ?? 0),
  };
}

/**
 * All collections by (name, id), with their document and topic counts; given a page, those
 * after its key (name, id) and at most limit + 1 of them.
 */
export async function listCollections(db: Queryable, page?: Seek): Promise<CollectionSummary[]> {
  const rows = await seek(
    collectionSummaries(db),
    [sql.ref('c.name'), sql.ref('c.id')],
    page,
  ).execute();
  return rows.map(toCollectionSummary);
}

/**
 * The collection named by `ref`, in one query: the collection whose id is `ref.id` when
 * there is one, else the collection called `ref.name`.
 */
export async function findCollection(
  db: Queryable,
  ref: IdOrName,
): Promise<Collection | undefined> {
  const row = await whereIdOrName(
    db.selectFrom('collections as c').selectAll('c'),
    'c',
    ref,
  ).executeTakeFirst();
  return row && toCollection(row);
}

/** A collection with its document and topic counts. */
export async function getCollectionSummary(
  db: Queryable,
  id: number,
): Promise<CollectionSummary | undefined> {
  const row = await collectionSummaries(db).where('c.id', '=', id).executeTakeFirst();
  return row && toCollectionSummary(row);
}

/** The collection with this id, if any. */
export async function getCollection(db: Queryable, id: number): Promise<Collection | undefined> {
  const row = await db
    .selectFrom('collections')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toCollection(row);
}

/** The collection with this name, if any. */
export async function getCollectionByName(
  db: Queryable,
  name: string,
): Promise<Collection | undefined> {
  const row = await db
    .selectFrom('collections')
    .selectAll()
    .where('name', '=', name)
    .executeTakeFirst();
  return row && toCollection(row);
}

/** Deletes a collection with its documents, topics, runs and label sets; false if absent. */
export async function deleteCollection(db: Queryable, id: number): Promise<boolean> {
  const result = await db.deleteFrom('collections').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Holds a collection until the transaction ends, so that it is not deleted under a write
 * into it: FOR KEY SHARE, the lock a foreign key check takes, taken first instead of
 * halfway through the write. Writers in one collection do not wait for each other; a
 * delete in progress ({@link lockCollectionContents}) is waited for. False when there is
 * no such collection (any more).
 */
export async function holdCollection(db: Queryable, id: number): Promise<boolean> {
  const found = await db
    .selectFrom('collections')
    .select('id')
    .where('id', '=', id)
    .forKeyShare()
    .executeTakeFirst();
  return found !== undefined;
}

/** What deleting a collection takes with it. */
export interface CollectionContents {
  runs: number;
  labelSets: number;
  reports: number;
  /** Slugs of the published leaderboards of its reports, sorted. */
  leaderboards: string[];
}

/**
 * Locks a collection and its reports until the transaction ends (writes holding the
 * collection, see {@link holdCollection}, and a publication in progress finish first; later
 * ones wait, then find the collection or report gone) and counts
 * what a delete would remove. Undefined when there is no such collection.
 */
export async function lockCollectionContents(
  db: Queryable,
  id: number,
): Promise<CollectionContents | undefined> {
  const found = await db
    .selectFrom('collections')
    .select('id')
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!found) return undefined;
  await db.selectFrom('reports').select('id').where('collection_id', '=', id).forUpdate().execute();
  const counts = await sql<{ runs: string; label_sets: string; reports: string }>`
    select (select count(*) from runs where collection_id = ${id}) as runs,
           (select count(*) from label_sets where collection_id = ${id}) as label_sets,
           (select count(*) from reports where collection_id = ${id}) as reports`.execute(db);
  const slugs = await db
    .selectFrom('publications as p')
    .innerJoin('reports as r', 'r.id', 'p.report_id')
    .select('p.slug')
    .where('r.collection_id', '=', id)
    .orderBy('p.slug')
    .execute();
  const row = counts.rows[0]!;
  return {
    runs: Number(row.runs),
    labelSets: Number(row.label_sets),
    reports: Number(row.reports),
    leaderboards: slugs.map((s) => s.slug),
  };
}

/** The recorded fingerprint of a collection's documents, and the version of its documents. */
export interface DocumentsFingerprint {
  /** Null until computed, and again after a write into the documents. */
  fingerprint: string | null;
  version: number;
}

/** The recorded fingerprint of a collection's documents; undefined when there is no such collection. */
export async function getDocumentsFingerprint(
  db: Queryable,
  collectionId: number,
): Promise<DocumentsFingerprint | undefined> {
  const row = await db
    .selectFrom('collections')
    .select(['documents_fingerprint', 'documents_version'])
    .where('id', '=', collectionId)
    .executeTakeFirst();
  return row && { fingerprint: row.documents_fingerprint, version: row.documents_version };
}

/**
 * Records the fingerprint of a collection's documents as read at `version`; not when they
 * were written since (false then).
 */
export async function recordDocumentsFingerprint(
  db: Queryable,
  collectionId: number,
  version: number,
  fingerprint: string,
): Promise<boolean> {
  const result = await db
    .updateTable('collections')
    .set({ documents_fingerprint: fingerprint })
    .where('id', '=', collectionId)
    .where('documents_version', '=', version)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
