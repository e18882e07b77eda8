// A stored collection's on-disk BM25 index: built under the data directory on request, and
// then searched by the collection's retrievals instead of an index built in memory, for as
// long as it was built from the documents the collection holds.
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listDocuments, type Collection, type Queryable } from '@assay/db';
import {
  DEFAULT_ANALYZER,
  DiskBm25Index,
  DiskIndexBuilder,
  documentDigest,
  type IndexableDocument,
} from '@assay/retrieval';
import { PlatformError } from './errors.js';
import { resolveCollection, type CollectionRef } from './resolve.js';
import { ASSAY_VERSION } from './version.js';

const PAGE = 10_000;

/** Where the on-disk index of a stored collection lives: `<dataDir>/indexes/collection-<id>.bm25`. */
export function collectionIndexFile(dataDir: string, collection: Collection): string {
  return join(dataDir, 'indexes', `collection-${collection.id}.bm25`);
}

/** How to rebuild a collection's on-disk index, for messages. */
function rebuildHint(collection: Collection): string {
  return `rebuild it with 'assay index build --collection ${collection.name} --on-disk' or POST /api/collections/${collection.id}/index`;
}

/** Every document of a stored collection in docno byte order, a page at a time. */
async function forEachStoredDocument(
  db: Queryable,
  collectionId: number,
  each: (doc: IndexableDocument) => void,
): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const page = await listDocuments(db, collectionId, {
      limit: PAGE,
      ...(after === undefined ? {} : { after }),
    });
    for (const d of page)
      each({ id: d.docId, text: d.text, ...(d.title ? { title: d.title } : {}) });
    if (page.length < PAGE) return;
    after = page.at(-1)!.docId;
  }
}

// The fingerprint of a stored collection's documents, per database and collection: its
// documents do not change after import, so it is read once per process.
const fingerprints = new WeakMap<
  object,
  Map<number, { createdAt: number; value: Promise<string> }>
>();

/**
 * The fingerprint every index records of a stored collection (SHA-256 over each document's
 * digest in docno byte order, as the index builders compute it), read once per process.
 */
export function collectionFingerprint(db: Queryable, collection: Collection): Promise<string> {
  let perDb = fingerprints.get(db);
  if (!perDb) fingerprints.set(db, (perDb = new Map()));
  const cached = perDb.get(collection.id);
  if (cached && cached.createdAt === collection.createdAt.getTime()) return cached.value;
  const value = (async () => {
    // Pages come in doc_id order under the "C" collation: the byte order the builders sort by.
    const hash = createHash('sha256');
    await forEachStoredDocument(db, collection.id, (doc) => hash.update(documentDigest(doc)));
    return `sha256:${hash.digest('hex')}`;
  })();
  perDb.set(collection.id, { createdAt: collection.createdAt.getTime(), value });
  value.catch(() => perDb.delete(collection.id));
  return value;
}

/** What building a stored collection's on-disk index made. */
export interface CollectionDiskIndexBuilt {
  collection: string;
  file: string;
  documents: number;
  terms: number;
  postings: number;
  bytes: number;
  /** Sorted runs spilled to disk and merged (1 when the postings fitted the memory budget). */
  runs: number;
  fingerprint: string;
  /** Whether an index built before was replaced. */
  replaced: boolean;
}

/** A request to build a stored collection's on-disk index. */
export interface BuildCollectionDiskIndexInput {
  collection: CollectionRef;
  /** Bytes of postings buffered before a sorted run is spilled (default 1 GiB). */
  memoryBudget?: number;
  /** Documents read so far. */
  onProgress?: (done: number) => void;
}

/**
 * Builds the on-disk BM25 index of a stored collection (default analyzer, docno byte
 * order) under the data directory, streaming its documents from the database; its
 * retrievals then search it instead of an index built in memory. An index built before is
 * replaced once the new one is complete.
 */
export async function buildCollectionDiskIndex(
  db: Queryable,
  dataDir: string,
  input: BuildCollectionDiskIndexInput,
): Promise<CollectionDiskIndexBuilt> {
  const collection = await resolveCollection(db, input.collection);
  const file = collectionIndexFile(dataDir, collection);
  mkdirSync(join(dataDir, 'indexes'), { recursive: true });
  const building = `${file}.${process.pid}.${Date.now()}.building`;
  const builder = new DiskIndexBuilder(building, {
    analyzer: DEFAULT_ANALYZER,
    ...(input.memoryBudget === undefined ? {} : { memoryBudget: input.memoryBudget }),
    createdBy: { assay: ASSAY_VERSION, collection: collection.name },
  });
  let summary;
  try {
    await forEachStoredDocument(db, collection.id, (doc) => {
      builder.add(doc);
      if (builder.size % PAGE === 0) input.onProgress?.(builder.size);
    });
    input.onProgress?.(builder.size);
    if (builder.size === 0)
      throw new PlatformError(
        'invalid_input',
        `collection "${collection.name}" has no documents to index`,
      );
    summary = builder.finish();
  } catch (error) {
    builder.abort();
    rmSync(building, { force: true });
    throw error;
  }
  const replaced = exists(file);
  renameSync(building, file);
  return {
    collection: collection.name,
    file,
    documents: summary.documents,
    terms: summary.terms,
    postings: summary.postings,
    bytes: summary.bytes,
    runs: summary.runs,
    fingerprint: summary.fingerprint,
    replaced,
  };
}

function exists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

// Open on-disk indexes by file, reopened when the file is replaced (a rebuild).
const open = new Map<string, { stamp: string; index: DiskBm25Index }>();

/** The file's identity: a rebuild renames a new file over it (another inode). */
function stampOf(file: string): string | undefined {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * The on-disk index of a stored collection when one was built under the data directory,
 * open for search, or undefined when none was. An index built from other documents than
 * the collection holds (another database using the same data directory, a collection
 * made again under the same id) is refused (conflict) with how to rebuild it.
 */
export async function storedCollectionDiskIndex(
  db: Queryable,
  dataDir: string,
  collection: Collection,
): Promise<DiskBm25Index | undefined> {
  const file = collectionIndexFile(dataDir, collection);
  const stamp = stampOf(file);
  if (stamp === undefined) return undefined;
  let entry = open.get(file);
  if (!entry || entry.stamp !== stamp) {
    let index: DiskBm25Index;
    try {
      index = DiskBm25Index.open(file);
    } catch (error) {
      throw new PlatformError(
        'conflict',
        `the on-disk index ${file} of collection "${collection.name}" cannot be read (${(error as Error).message}): ${rebuildHint(collection)}`,
      );
    }
    // The replaced index is left to the searches still reading it (its descriptor stays valid).
    entry = { stamp, index };
    open.set(file, entry);
  }
  const expected = await collectionFingerprint(db, collection);
  if (entry.index.header.fingerprint !== expected)
    throw new PlatformError(
      'conflict',
      `the on-disk index ${file} was built from other documents than collection "${collection.name}" holds (index ${entry.index.header.fingerprint}, collection ${expected}): ${rebuildHint(collection)}`,
    );
  return entry.index;
}
