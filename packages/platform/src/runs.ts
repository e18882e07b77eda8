import * as store from '@assay/db';
import type { Queryable, Run, RunEntry, RunSummary } from '@assay/db';
import type { Run as TrecRun } from '@assay/trec';
import { PlatformError } from './errors.js';
import { resolveCollection, resolveRun, type CollectionRef, type ItemRef } from './resolve.js';

/** A collection's runs by name, with entry and topic counts. */
export async function listRuns(db: Queryable, ref: CollectionRef): Promise<RunSummary[]> {
  const collection = await resolveCollection(db, ref);
  return store.listRuns(db, collection.id);
}

/** `refs` when given, else every run of the collection (by id, in listing order). */
export async function runsOrAll(
  db: Queryable,
  collection: { id: number },
  refs: Array<string | number> | undefined,
): Promise<Array<string | number>> {
  return refs ?? (await store.listRuns(db, collection.id)).map((r) => r.id);
}

/** A run (by the naming rule) with its entry and topic counts; not_found if absent. */
export async function getRunSummary(
  db: Queryable,
  collectionRef: CollectionRef,
  runRef: ItemRef,
): Promise<RunSummary> {
  const collection = await resolveCollection(db, collectionRef);
  const run = await resolveRun(db, collection, runRef);
  const summary = await store.getRunSummary(db, run.id);
  if (!summary) throw new PlatformError('not_found', `no run ${JSON.stringify(runRef)}`);
  return summary;
}

/** Entries a page of {@link listRunEntries} holds by default, and at most. */
export const RUN_ENTRY_PAGE = { default: 1000, max: 10_000 } as const;

/** A page of a run's entries and the cursor of the next page (null on the last one). */
export interface RunEntryPage {
  entries: RunEntry[];
  next: string | null;
}

/**
 * A page of a stored run's entries, topics in qid byte order and each in rank order;
 * optionally one topic. `after` is the `next` cursor of the previous page (opaque text);
 * a cursor that is not one is invalid_input.
 */
export async function listRunEntries(
  db: Queryable,
  collectionRef: CollectionRef,
  runRef: ItemRef,
  options: { topic?: string; limit?: number; after?: string } = {},
): Promise<RunEntryPage> {
  const limit = options.limit ?? RUN_ENTRY_PAGE.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > RUN_ENTRY_PAGE.max)
    throw new PlatformError(
      'invalid_input',
      `limit must be an integer from 1 to ${RUN_ENTRY_PAGE.max}, not ${limit}`,
    );
  const after = options.after === undefined ? undefined : decodeEntryCursor(options.after);
  const collection = await resolveCollection(db, collectionRef);
  const run = await resolveRun(db, collection, runRef);
  const entries = await store.getRunEntryPage(db, run.id, {
    limit,
    ...(options.topic === undefined ? {} : { topicIds: [options.topic] }),
    ...(after === undefined ? {} : { after }),
  });
  const last = entries.at(-1);
  return {
    entries,
    next: entries.length === limit && last ? encodeEntryCursor(last) : null,
  };
}

function encodeEntryCursor(e: RunEntry): string {
  return Buffer.from(JSON.stringify([e.topicId, e.rank, e.score, e.docId])).toString('base64url');
}

function decodeEntryCursor(text: string): store.RunEntryKey {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (
    Array.isArray(value) &&
    value.length === 4 &&
    typeof value[0] === 'string' &&
    Number.isSafeInteger(value[1]) &&
    typeof value[2] === 'number' &&
    Number.isFinite(value[2]) &&
    typeof value[3] === 'string'
  )
    return { topicId: value[0], rank: value[1] as number, score: value[2], docId: value[3] };
  throw new PlatformError(
    'invalid_input',
    'after must be the `next` cursor of a previous page of this list',
  );
}

/** Deletes a stored run with its entries; not_found if absent. */
export async function deleteRun(
  db: Queryable,
  collectionRef: CollectionRef,
  runRef: ItemRef,
): Promise<void> {
  const collection = await resolveCollection(db, collectionRef);
  const run = await resolveRun(db, collection, runRef);
  await store.deleteRun(db, run.id);
}

/** Which of `names` already name a run of the collection (to refuse an import up front). */
export async function takenRunNames(
  db: Queryable,
  ref: CollectionRef,
  names: Iterable<string>,
): Promise<string[]> {
  const collection = await resolveCollection(db, ref);
  const taken: string[] = [];
  for (const name of names)
    if (await store.findRunByName(db, collection.id, name)) taken.push(name);
  return taken;
}

/**
 * A stored run as a TREC run named after the stored run, with the entries of `topics`
 * only (all topics when absent): an evaluation reads just the judged topics, as trec_eval
 * evaluates only those.
 */
export async function readTrecRun(
  db: Queryable,
  stored: Run,
  topics?: readonly string[],
): Promise<TrecRun> {
  const byTopic = await store.getRunEntries(db, stored.id, topics ? { topicIds: topics } : {});
  const run: TrecRun = { name: stored.name, topics: new Map() };
  for (const [topic, entries] of byTopic)
    run.topics.set(
      topic,
      entries.map((e) => ({ docno: e.docId, rank: e.rank, score: e.score })),
    );
  return run;
}
