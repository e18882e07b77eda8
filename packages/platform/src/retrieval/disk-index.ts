// A stored collection's on-disk BM25 index: built under the data directory on request, and
// then searched by the collection's retrievals instead of an index built in memory, for as
// long as it was built from the documents the collection holds.
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  getDocumentsFingerprint,
  listDocuments,
  recordDocumentsFingerprint,
  type Collection,
  type Queryable,
} from '@assay/db';
import {
  DEFAULT_ANALYZER,
  DiskBm25Index,
  DiskIndexBuilder,
  documentDigest,
  readDiskIndexHeader,
  type IndexableDocument,
} from '@assay/retrieval';
import { PlatformError } from '../core/errors.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import { ASSAY_VERSION } from '../core/version.js';

const PAGE = 10_000;
/** Documents indexed between two yields to the event loop while a build reads them. */
const YIELD_EVERY = 1_000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Where the on-disk index of a stored collection lives: `<dataDir>/indexes/collection-<id>.bm25`. */
export function collectionIndexFile(dataDir: string, collection: Collection): string {
  return join(dataDir, 'indexes', `collection-${collection.id}.bm25`);
}

/** How to rebuild a collection's on-disk index, for messages. */
function rebuildHint(collection: Collection): string {
  return `rebuild it with 'assay index build --collection ${collection.name} --on-disk' or POST /api/collections/${collection.id}/index`;
}

/**
 * Every document of a stored collection in docno byte order, a page at a time, yielding to
 * the event loop every {@link YIELD_EVERY} documents so that a server answers meanwhile.
 */
async function forEachStoredDocument(
  db: Queryable,
  collectionId: number,
  each: (doc: IndexableDocument) => void,
  onYield?: () => void,
): Promise<void> {
  let after: string | undefined;
  let read = 0;
  for (;;) {
    const page = await listDocuments(db, collectionId, {
      limit: PAGE,
      ...(after === undefined ? {} : { after }),
    });
    for (const d of page) {
      each({ id: d.docId, text: d.text, ...(d.title ? { title: d.title } : {}) });
      if (++read % YIELD_EVERY === 0) {
        onYield?.();
        await nextTurn();
      }
    }
    if (page.length < PAGE) return;
    after = page.at(-1)!.docId;
  }
}

// Fingerprints being computed, per database and collection, so that concurrent first uses
// read the documents once.
const computing = new WeakMap<object, Map<number, Promise<string>>>();

/**
 * The fingerprint every index records of a stored collection (SHA-256 over each document's
 * digest in docno byte order, as the index builders compute it): the one recorded in the
 * database, else computed from the documents (once, then recorded until they are written
 * again).
 */
export async function collectionFingerprint(
  db: Queryable,
  collection: Collection,
): Promise<string> {
  const recorded = await getDocumentsFingerprint(db, collection.id);
  if (!recorded) throw new PlatformError('not_found', `collection "${collection.name}" not found`);
  if (recorded.fingerprint !== null) return recorded.fingerprint;
  let perDb = computing.get(db);
  if (!perDb) computing.set(db, (perDb = new Map()));
  const running = perDb.get(collection.id);
  if (running) return running;
  const value = (async () => {
    // Pages come in doc_id order under the "C" collation: the byte order the builders sort by.
    const hash = createHash('sha256');
    await forEachStoredDocument(db, collection.id, (doc) => hash.update(documentDigest(doc)));
    const fingerprint = `sha256:${hash.digest('hex')}`;
    await recordDocumentsFingerprint(db, collection.id, recorded.version, fingerprint);
    return fingerprint;
  })();
  perDb.set(collection.id, value);
  const done = () => perDb.delete(collection.id);
  value.then(done, done);
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
  // The documents' version before they are read: the fingerprint of what was read is
  // recorded for the collection unless documents were written meanwhile.
  const before = await getDocumentsFingerprint(db, collection.id);
  let summary;
  try {
    await forEachStoredDocument(
      db,
      collection.id,
      (doc) => builder.add(doc),
      () => input.onProgress?.(builder.size),
    );
    input.onProgress?.(builder.size);
    if (builder.size === 0)
      throw new PlatformError(
        'invalid_input',
        `collection "${collection.name}" has no documents to index`,
      );
    // The merge runs at once, without yielding: the last stretch of a build.
    summary = builder.finish();
  } catch (error) {
    builder.abort();
    rmSync(building, { force: true });
    throw error;
  }
  const replaced = exists(file);
  renameSync(building, file);
  if (before)
    await recordDocumentsFingerprint(db, collection.id, before.version, summary.fingerprint);
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

/** An open on-disk index and how many retrievals are using it. */
interface OpenIndex {
  stamp: string;
  index: DiskBm25Index;
  users: number;
  /** A newer file took its place: closed once its last user is done. */
  replaced: boolean;
}

// Open on-disk indexes by file, reopened when the file is replaced (a rebuild).
const open = new Map<string, OpenIndex>();

/** The file's identity: a rebuild renames a new file over it (another inode). */
function stampOf(file: string): string | undefined {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}

function releaseIndex(entry: OpenIndex): void {
  entry.users--;
  if (entry.replaced && entry.users === 0) entry.index.close();
}

/** A stored collection's on-disk index in use by a retrieval, until it releases it. */
export interface CollectionDiskIndexLease {
  index: DiskBm25Index;
  /** Done with the index: an index replaced by a rebuild is closed when its last user releases it. */
  release(): void;
}

/**
 * The on-disk index of a stored collection when one was built under the data directory,
 * open for search until released, or undefined when none was. An index built from other
 * documents than the collection holds (documents written since, another database using
 * the same data directory, a collection made again under the same id) is refused
 * (conflict) with how to rebuild it.
 */
export async function storedCollectionDiskIndex(
  db: Queryable,
  dataDir: string,
  collection: Collection,
): Promise<CollectionDiskIndexLease | undefined> {
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
    // The replaced index stays open for the retrievals still reading it.
    if (entry) {
      entry.replaced = true;
      if (entry.users === 0) entry.index.close();
    }
    entry = { stamp, index, users: 0, replaced: false };
    open.set(file, entry);
  }
  const held = entry;
  held.users++;
  let released = false;
  const lease = {
    index: held.index,
    release: () => {
      if (released) return;
      released = true;
      releaseIndex(held);
    },
  };
  try {
    const expected = await collectionFingerprint(db, collection);
    if (held.index.header.fingerprint !== expected)
      throw new PlatformError(
        'conflict',
        `the on-disk index ${file} was built from other documents than collection "${collection.name}" holds (index ${held.index.header.fingerprint}, collection ${expected}): ${rebuildHint(collection)}`,
      );
  } catch (error) {
    lease.release();
    throw error;
  }
  return lease;
}

/** A build of a collection's on-disk index running in the background, or the last one that failed. */
interface BackgroundBuild {
  collection: string;
  startedAt: Date;
  documentsRead: number;
  failed?: { reason: string; failedAt: Date };
}

// Background builds by index file (one at a time per file), kept in this process's memory:
// the running one, or the last one when it failed (forgotten once a build succeeds).
const builds = new Map<string, BackgroundBuild>();

/** The state of a stored collection's on-disk index, as the API reports it. */
export type CollectionDiskIndexState =
  | { state: 'absent'; collection: string }
  | { state: 'building'; collection: string; documentsRead: number; startedAt: Date }
  | {
      state: 'ready';
      collection: string;
      file: string;
      bytes: number;
      documents: number;
      terms: number;
      fingerprint: string;
      builtAt: Date;
      /** Built from the documents the collection holds now (their recorded fingerprint). */
      fresh: boolean;
    }
  | { state: 'failed'; collection: string; reason: string; startedAt: Date; failedAt: Date };

function describeRunning(name: string, build: BackgroundBuild): string {
  return `the on-disk index of collection "${name}" is being built (started at ${build.startedAt.toISOString()}, ${build.documentsRead} documents read so far)`;
}

/**
 * Starts building a stored collection's on-disk index in the background of this process
 * (as {@link buildCollectionDiskIndex} does) and answers its state at once; the state is
 * then read with {@link getCollectionDiskIndexState}. A collection without documents is
 * refused, and so is a second build while one runs (conflict). A restart forgets a running
 * build (its partial file is left under a `.building` name; the index in place stays).
 */
export async function startCollectionDiskIndexBuild(
  db: Queryable,
  dataDir: string,
  input: Omit<BuildCollectionDiskIndexInput, 'onProgress'>,
): Promise<CollectionDiskIndexState> {
  const collection = await resolveCollection(db, input.collection);
  const file = collectionIndexFile(dataDir, collection);
  if ((await listDocuments(db, collection.id, { limit: 1 })).length === 0)
    throw new PlatformError(
      'invalid_input',
      `collection "${collection.name}" has no documents to index`,
    );
  // Checked and taken with no await between: two requests cannot both start a build.
  const running = builds.get(file);
  if (running && !running.failed)
    throw new PlatformError('conflict', describeRunning(collection.name, running));
  const build: BackgroundBuild = {
    collection: collection.name,
    startedAt: new Date(),
    documentsRead: 0,
  };
  builds.set(file, build);
  buildCollectionDiskIndex(db, dataDir, {
    ...input,
    collection: collection.id,
    onProgress: (done) => (build.documentsRead = done),
  }).then(
    () => {
      if (builds.get(file) === build) builds.delete(file);
    },
    (error: unknown) => {
      build.failed = {
        reason: error instanceof Error ? error.message : 'the build failed; see the server log',
        failedAt: new Date(),
      };
      if (!(error instanceof PlatformError)) console.error(error);
    },
  );
  return {
    state: 'building',
    collection: collection.name,
    documentsRead: 0,
    startedAt: build.startedAt,
  };
}

/**
 * The state of a stored collection's on-disk index: being built (documents read so far),
 * failed (the last build of this process, with the reason), ready (from the file's header:
 * whether it was built from the documents the collection holds is told by the fingerprint
 * the database records of them, one row read; documents written since make it not fresh),
 * or absent.
 */
export async function getCollectionDiskIndexState(
  db: Queryable,
  dataDir: string,
  ref: CollectionRef,
): Promise<CollectionDiskIndexState> {
  const collection = await resolveCollection(db, ref);
  const file = collectionIndexFile(dataDir, collection);
  const build = builds.get(file);
  if (build?.failed)
    return {
      state: 'failed',
      collection: collection.name,
      reason: build.failed.reason,
      startedAt: build.startedAt,
      failedAt: build.failed.failedAt,
    };
  if (build)
    return {
      state: 'building',
      collection: collection.name,
      documentsRead: build.documentsRead,
      startedAt: build.startedAt,
    };
  let builtAt: Date;
  try {
    builtAt = statSync(file).mtime;
  } catch {
    return { state: 'absent', collection: collection.name };
  }
  let header;
  try {
    header = readDiskIndexHeader(file);
  } catch (error) {
    return {
      state: 'failed',
      collection: collection.name,
      reason: `${(error as Error).message}: ${rebuildHint(collection)}`,
      startedAt: builtAt,
      failedAt: builtAt,
    };
  }
  const recorded = await getDocumentsFingerprint(db, collection.id);
  return {
    state: 'ready',
    collection: collection.name,
    file,
    bytes: header.fileBytes,
    documents: header.documents,
    terms: header.terms,
    fingerprint: header.fingerprint,
    builtAt,
    fresh: recorded?.fingerprint === header.fingerprint,
  };
}
