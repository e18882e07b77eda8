import {
  findRunByName,
  listDocuments,
  listTopics,
  type Collection,
  type Queryable,
  type Topic,
} from '@assay/db';
import {
  DEFAULT_ANALYZER,
  DEFAULT_BM25,
  DiskBm25Searcher,
  IndexBuilder,
  RETRIEVAL_METHODS,
  retrieveDiskRun,
  retrieveRun,
  type Bm25Index,
  type RetrievalMethod,
  type RetrieveOptions,
} from '@assay/retrieval';
import { storedCollectionDiskIndex } from './disk-index.js';
import { writeInCollection } from '../catalog/collection-writes.js';
import { PlatformError, writing } from '../core/errors.js';
import { createRunUnderName } from '../catalog/run-under-name.js';
import { checkNewName } from '../core/names.js';
import { ASSAY_VERSION } from '../core/version.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';

/** Settings of a stored retrieval; absent ones take the method's defaults. */
export interface RetrieveParams {
  /** Documents per topic (default 1000). */
  k?: number;
  k1?: number;
  b?: number;
  /** Feedback documents (rm3, rocchio) or documents used as queries (qbd). */
  fbDocs?: number;
  /** Expansion terms (rm3, rocchio, rocchio-weighted) or terms per document (qbd). */
  fbTerms?: number;
  /** RM3: weight of the original query. */
  fbWeight?: number;
  alpha?: number;
  beta?: number;
  gamma?: number;
  /** Weighted Rocchio: documents re-ranked by cosine, and how many are positives. */
  fbDepth?: number;
  positives?: number;
}

/** A retrieval over a stored collection whose result is stored as a run. */
export interface RetrieveStoredRunInput {
  collection: CollectionRef;
  method: RetrievalMethod;
  params?: RetrieveParams;
  /** Only these stored topics (default: every topic of the collection). */
  topics?: string[];
  /** Run name and tag. */
  tag: string;
  /** Replace a run of the same name (otherwise conflict). */
  replace?: boolean;
  /** Store the run only when every topic has results (invalid_input naming those without). */
  strict?: boolean;
  /** Called as indexing and retrieval advance. */
  onProgress?: (progress: RetrieveProgress) => void;
  /**
   * The data directory: bm25 searches the collection's on-disk index there when one was
   * built (see `buildCollectionDiskIndex`); the other methods read term vectors in memory.
   */
  dataDir?: string;
}

/**
 * Where a retrieval is: indexing (documents read), retrieving (topics retrieved for, of
 * those asked), storing (entries); once a background job ends, `done` with the topics
 * retrieved for (topics the budget left unrun are not done) of those asked, or `failed`
 * with the topics retrieved for before it failed (0 of 0 when it failed before retrieving).
 */
export interface RetrieveProgress {
  phase: 'indexing' | 'retrieving' | 'storing' | 'done' | 'failed';
  done: number;
  total: number;
}

/** What a stored retrieval produced. */
export interface RetrieveStoredRunResult {
  runId: number;
  name: string;
  entries: number;
  topics: number;
  replaced: boolean;
  /** Every setting that made the run (method, analyzer, BM25 and feedback settings, index). */
  parameters: Record<string, string | number>;
  /** Topics retrieved for. */
  topicsAsked: number;
  /** Every topic without entries, in topic order, with the reason. */
  missing: Array<{ topic: string; reason: string }>;
  /** Topics left unrun because the budget was reached (methods with models). */
  unfinished?: string[];
}

// One index per stored collection and database, kept for the life of the process: the
// documents of a stored collection do not change after import.
/** About how long one slice of topics is retrieved for before other work gets a turn. */
const SLICE_MS = 20;

const indexes = new WeakMap<
  object,
  Map<number, { createdAt: number; index: Promise<Bm25Index> }>
>();

/**
 * The BM25 index of a stored collection (default analyzer), built on first use from its
 * documents in docno byte order and kept in memory for later retrievals.
 */
export async function collectionIndex(
  db: Queryable,
  collection: Collection,
  onProgress?: (done: number, total: number) => void,
): Promise<Bm25Index> {
  let perDb = indexes.get(db);
  if (!perDb) indexes.set(db, (perDb = new Map()));
  const cached = perDb.get(collection.id);
  if (cached && cached.createdAt === collection.createdAt.getTime()) return cached.index;
  const building = buildCollectionIndex(db, collection.id, onProgress);
  perDb.set(collection.id, { createdAt: collection.createdAt.getTime(), index: building });
  building.catch(() => perDb.delete(collection.id));
  return building;
}

async function buildCollectionIndex(
  db: Queryable,
  collectionId: number,
  onProgress?: (done: number, total: number) => void,
): Promise<Bm25Index> {
  const builder = new IndexBuilder(DEFAULT_ANALYZER);
  let after: string | undefined;
  for (;;) {
    const page = await listDocuments(db, collectionId, {
      limit: 10_000,
      ...(after === undefined ? {} : { after }),
    });
    for (const doc of page)
      builder.add({ id: doc.docId, text: doc.text, ...(doc.title ? { title: doc.title } : {}) });
    onProgress?.(builder.size, builder.size);
    if (page.length < 10_000) break;
    after = page.at(-1)!.docId;
  }
  if (builder.size === 0)
    throw new PlatformError('invalid_input', 'the collection has no documents to retrieve from');
  return builder.finish();
}

/** The retrieve options of a method and its params (undefined settings left out). */
function retrieveOptions(method: RetrievalMethod, p: RetrieveParams, tag: string): RetrieveOptions {
  const pick = <T extends object>(o: T) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  return {
    method,
    k: p.k ?? 1000,
    tag,
    bm25: pick({ k1: p.k1, b: p.b }),
    rm3: pick({ fbDocs: p.fbDocs, fbTerms: p.fbTerms, originalQueryWeight: p.fbWeight }),
    rocchio: pick({
      fbDocs: p.fbDocs,
      fbTerms: p.fbTerms,
      alpha: p.alpha,
      beta: p.beta,
      gamma: p.gamma,
    }),
    weightedRocchio: pick({
      fbTerms: p.fbTerms,
      alpha: p.alpha,
      beta: p.beta,
      gamma: p.gamma,
      depth: p.fbDepth,
      positives: p.positives,
    }),
    qbd: pick({ fbDocs: p.fbDocs, fbTerms: p.fbTerms }),
  };
}

/**
 * The stored topics a retrieval asks for: `ids` in the order given, or every topic of the
 * collection. invalid_input naming topics the collection lacks, or when it has none.
 */
export async function selectTopics(
  db: Queryable,
  collection: Collection,
  ids: readonly string[] | undefined,
): Promise<Topic[]> {
  let stored = await listTopics(db, collection.id);
  if (ids) {
    // A topic asked twice would be counted twice among the topics asked and retrieved once.
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined)
      throw new PlatformError('invalid_input', `topic "${twice}" is asked more than once`);
    const byId = new Map(stored.map((t) => [t.topicId, t]));
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length > 0)
      throw new PlatformError(
        'invalid_input',
        `no topic ${missing
          .slice(0, 5)
          .map((m) => `"${m}"`)
          .join(', ')} in collection "${collection.name}"`,
      );
    stored = ids.map((id) => byId.get(id)!);
  }
  if (stored.length === 0)
    throw new PlatformError('invalid_input', `collection "${collection.name}" has no topics`);
  return stored;
}

/**
 * `12 (failed: …), 14 (no document was found)`: the first topics without results, and why
 * (the rest counted).
 */
export function describeMissing(
  missing: ReadonlyArray<{ topic: string; reason: string }>,
  shown = 10,
): string {
  const list = missing
    .slice(0, shown)
    .map((m) => `${m.topic} (${m.reason})`)
    .join(', ');
  return missing.length > shown ? `${list}, … and ${missing.length - shown} more` : list;
}

/**
 * Refuses to store a retrieval that has no topic with results, or (strict) any topic
 * without: invalid_input counting the topics asked and naming those without results and
 * why (the first 20 also in the error's details). `stoppedForBudget`: no topic has results
 * because the budget was reached.
 */
export function refuseUnstorable(
  method: string,
  topicsAsked: number,
  missing: ReadonlyArray<{ topic: string; reason: string }>,
  options: { strict?: boolean; stoppedForBudget?: boolean } = {},
): void {
  const details = { missing: missing.slice(0, 20) };
  const named = describeMissing(missing);
  if (missing.length >= topicsAsked) {
    const none = options.stoppedForBudget
      ? 'the budget was reached before any topic was finished'
      : topicsAsked === 1
        ? 'the one topic has no results'
        : `none of the ${topicsAsked} topics has results`;
    throw new PlatformError(
      'invalid_input',
      `${method}: ${none} (nothing was stored): ${named}`,
      details,
    );
  }
  if (options.strict && missing.length > 0)
    throw new PlatformError(
      'invalid_input',
      `${method}: ${missing.length} of ${topicsAsked} topics have no results (strict: nothing was stored): ${named}`,
      details,
    );
}

/** `key=value; …`, the run description that records how a run was made. */
export function describeRetrieval(parameters: Record<string, string | number>): string {
  return `retrieved by assay: ${Object.entries(parameters)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ')}`;
}

/**
 * Retrieves from a stored collection with one method over its stored topics (or some of
 * them) and stores the result as a run, which pools, judges and evaluations then use like
 * an imported run. The parameters are kept in the run's description.
 */
export async function retrieveStoredRun(
  db: Queryable,
  input: RetrieveStoredRunInput,
): Promise<RetrieveStoredRunResult> {
  if (!(RETRIEVAL_METHODS as readonly string[]).includes(input.method))
    throw new PlatformError(
      'invalid_input',
      `method must be one of ${RETRIEVAL_METHODS.join(', ')}, not "${input.method}"`,
    );
  const name = checkNewName(input.tag, 'tag');
  if (/\s/.test(name))
    throw new PlatformError('invalid_input', 'the tag must be non-empty and without spaces');
  const collection = await resolveCollection(db, input.collection);
  const taken = `run "${name}" already exists in collection "${collection.name}"; use replace to overwrite it`;
  if (!input.replace && (await findRunByName(db, collection.id, name)))
    throw new PlatformError('conflict', taken);
  const stored = await selectTopics(db, collection, input.topics);
  const report = input.onProgress;
  const disk =
    input.method === 'bm25' && input.dataDir !== undefined
      ? await storedCollectionDiskIndex(db, input.dataDir, collection)
      : undefined;
  const topics = stored.map((t) => ({ id: t.topicId, text: t.query }));
  const options = retrieveOptions(input.method, input.params ?? {}, name);
  const entriesByTopic = new Map<string, { docno: string; rank: number; score: number }[]>();
  let parameters: Record<string, string | number> = {};
  let entryCount = 0;
  const missing: RetrieveStoredRunResult['missing'] = [];
  try {
    const index = disk
      ? undefined
      : await collectionIndex(db, collection, (done, total) =>
          report?.({ phase: 'indexing', done, total }),
        );
    // One searcher for every slice: its score buffer is as large as the collection.
    const searcher = disk && new DiskBm25Searcher(disk.index, { ...DEFAULT_BM25, ...options.bm25 });
    report?.({ phase: 'retrieving', done: 0, total: topics.length });
    const retrieve = (slice: typeof topics) =>
      disk
        ? retrieveDiskRun(disk.index, slice, {
            k: options.k!,
            bm25: options.bm25!,
            tag: name,
            searcher: searcher!,
          })
        : retrieveRun(index!, slice, options);
    // Topics in slices, giving the event loop a turn between them, so a server keeps
    // answering while a large retrieval runs. A slice holds as many topics as take about
    // SLICE_MS (RM3 or Rocchio on a big collection: one topic; BM25 on a small one: 25).
    let size = 1;
    for (let from = 0; from < topics.length;) {
      const slice = topics.slice(from, from + size);
      from += slice.length;
      const started = performance.now();
      const part = retrieve(slice);
      const took = performance.now() - started;
      parameters = part.parameters;
      missing.push(...part.missing);
      for (const [id, list] of part.run.topics) {
        entriesByTopic.set(id, list);
        entryCount += list.length;
      }
      report?.({ phase: 'retrieving', done: from, total: topics.length });
      size = Math.max(1, Math.min(25, Math.floor((slice.length * SLICE_MS) / Math.max(took, 1))));
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    disk?.release();
  }
  refuseUnstorable(input.method, topics.length, missing, { strict: input.strict ?? false });
  const run = { name, topics: entriesByTopic };
  const recorded = { ...parameters, assay: ASSAY_VERSION };
  report?.({ phase: 'storing', done: 0, total: entryCount });
  return writing(
    () =>
      writeInCollection(db, collection, async (trx) => {
        const { created, replaced } = await createRunUnderName(
          trx,
          {
            collectionId: collection.id,
            name,
            tag: name,
            description: describeRetrieval(recorded),
            // As retrieved, topic by topic: rows are made batch by batch while written.
            entries: run.topics,
          },
          { replace: input.replace, taken },
        );
        return {
          runId: created.id,
          name: created.name,
          entries: created.entryCount,
          topics: created.topicCount,
          replaced,
          parameters: recorded,
          topicsAsked: topics.length,
          missing,
        };
      }),
    taken,
  );
}

/** A retrieval running in the background (kept in this process's memory). */
export interface RetrieveJob {
  id: number;
  collectionId: number;
  method: string;
  tag: string;
  status: 'running' | 'done' | 'failed';
  progress: RetrieveProgress;
  startedAt: Date;
  finishedAt: Date | null;
  /** The stored run (for methods with models, also trace, answers, failures and spend). */
  result: RetrieveStoredRunResult | null;
  error: { code: string; message: string } | null;
}

const jobs = new Map<number, RetrieveJob>();
let nextJobId = 1;

/**
 * Runs a checked retrieval in the background as a job of this process, recording its
 * progress and then its result or error. A restart forgets running jobs (nothing partial
 * is stored: the run is written in one transaction at the end).
 */
export function runInBackground(
  collectionId: number,
  method: string,
  tag: string,
  work: (onProgress: (progress: RetrieveProgress) => void) => Promise<RetrieveStoredRunResult>,
): RetrieveJob {
  const job: RetrieveJob = {
    id: nextJobId++,
    collectionId,
    method,
    tag,
    status: 'running',
    progress: { phase: 'indexing', done: 0, total: 0 },
    startedAt: new Date(),
    finishedAt: null,
    result: null,
    error: null,
  };
  jobs.set(job.id, job);
  // The topics retrieved for so far, for the final progress: the last phase reported
  // (storing, counted in entries) is not what the finished job did.
  const topics = { done: 0, total: 0 };
  work((progress) => {
    job.progress = progress;
    if (progress.phase === 'retrieving') Object.assign(topics, progress);
  }).then(
    (result) => {
      job.result = result;
      job.status = 'done';
      job.progress = {
        phase: 'done',
        done: result.topicsAsked - (result.unfinished?.length ?? 0),
        total: result.topicsAsked,
      };
      job.finishedAt = new Date();
    },
    (error: unknown) => {
      job.status = 'failed';
      job.progress = { phase: 'failed', done: topics.done, total: topics.total };
      job.finishedAt = new Date();
      job.error =
        error instanceof PlatformError
          ? { code: error.code, message: error.message }
          : { code: 'internal', message: 'the retrieval failed; see the server log' };
      if (!(error instanceof PlatformError)) console.error(error);
    },
  );
  return { ...job };
}

/**
 * Checks a retrieval (collection, method, tag) and runs it in the background; the job's
 * progress and result are read with {@link getRetrieveJob}.
 */
export async function startRetrieveJob(
  db: Queryable,
  input: Omit<RetrieveStoredRunInput, 'onProgress'>,
): Promise<RetrieveJob> {
  const collection = await resolveCollection(db, input.collection);
  if (!(RETRIEVAL_METHODS as readonly string[]).includes(input.method))
    throw new PlatformError(
      'invalid_input',
      `method must be one of ${RETRIEVAL_METHODS.join(', ')}`,
    );
  const name = input.tag.trim();
  if (name !== '') checkNewName(name, 'tag');
  if (!input.replace && name !== '' && (await findRunByName(db, collection.id, name)))
    throw new PlatformError(
      'conflict',
      `run "${name}" already exists in collection "${collection.name}"; use replace to overwrite it`,
    );
  return runInBackground(collection.id, input.method, name, (onProgress) =>
    retrieveStoredRun(db, { ...input, collection: collection.id, onProgress }),
  );
}

/** A background retrieval of a collection by id, or undefined. */
export function getRetrieveJob(collectionId: number, id: number): RetrieveJob | undefined {
  const job = jobs.get(id);
  return job && job.collectionId === collectionId ? { ...job } : undefined;
}
