import * as store from '@assay/db';
import type { Queryable, Run, RunEntry, RunSummary } from '@assay/db';
import { compareBytewise, formatRun, type Run as TrecRun } from '@assay/trec';
import { writeInCollection } from './collection-writes.js';
import { PlatformError } from '../core/errors.js';
import { runLockName } from '../core/name-locks.js';
import { resolveCollection, resolveRun, type CollectionRef, type ItemRef } from '../core/resolve.js';
import { LARGE_PAGE, pageOf, seekPage, type Page, type PageOptions } from '../core/paging.js';

/** A collection's runs by name, with entry and topic counts. */
export async function listRuns(db: Queryable, ref: CollectionRef): Promise<RunSummary[]> {
  const collection = await resolveCollection(db, ref);
  return store.listRuns(db, collection.id);
}

/** A page of {@link listRuns} (by name, then id). */
export async function listRunsPage(
  db: Queryable,
  ref: CollectionRef,
  options: PageOptions = {},
): Promise<Page<RunSummary>> {
  const page = seekPage(options, LARGE_PAGE, ['text', 'int']);
  const collection = await resolveCollection(db, ref);
  const rows = await store.listRuns(db, collection.id, page);
  return pageOf(
    rows,
    page,
    (r) => [r.name, r.id],
    (r) => r,
  );
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
export const RUN_ENTRY_PAGE = LARGE_PAGE;

/**
 * A page of a stored run's entries, topics in qid byte order and each in rank order (ties:
 * score descending, then docno); optionally one topic. `after` is the `next` cursor of the
 * previous page; a cursor that is not one is invalid_input.
 */
export async function listRunEntries(
  db: Queryable,
  collectionRef: CollectionRef,
  runRef: ItemRef,
  options: PageOptions & { topic?: string } = {},
): Promise<Page<RunEntry>> {
  const page = seekPage(options, RUN_ENTRY_PAGE, ['text', 'int', 'number', 'text']);
  const after = page.after as [string, number, number, string] | undefined;
  const collection = await resolveCollection(db, collectionRef);
  const run = await resolveRun(db, collection, runRef);
  const rows = await store.getRunEntryPage(db, run.id, {
    // The key mixes directions (score descending), so the repository seeks by hand.
    limit: page.limit + 1,
    ...(options.topic === undefined ? {} : { topicIds: [options.topic] }),
    ...(after === undefined
      ? {}
      : { after: { topicId: after[0], rank: after[1], score: after[2], docId: after[3] } }),
  });
  return pageOf(
    rows,
    page,
    (e) => [e.topicId, e.rank, e.score, e.docId],
    (e) => e,
  );
}

/** Deletes a stored run with its entries; not_found if absent. */
export async function deleteRun(
  db: Queryable,
  collectionRef: CollectionRef,
  runRef: ItemRef,
): Promise<void> {
  const collection = await resolveCollection(db, collectionRef);
  await writeInCollection(db, collection, async (trx) => {
    const run = await resolveRun(trx, collection, runRef);
    // An upload replacing it at the same moment goes first or after, never halfway.
    await store.lockName(trx, runLockName(collection.id, run.name));
    if (!(await store.deleteRun(trx, run.id)))
      throw new PlatformError('not_found', `no run ${JSON.stringify(runRef)}`);
  });
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
  // Read a few topics at a time: a million entries never arrive (nor are converted, nor
  // held twice) in one piece, and the server answers others between the reads.
  const wanted = topics
    ? [...new Set(topics)].sort(compareBytewise)
    : await store.listRunTopicIds(db, stored.id);
  const run: TrecRun = { name: stored.name, topics: new Map() };
  for (let i = 0; i < wanted.length; i += TOPICS_PER_READ) {
    const byTopic = await store.getRunEntries(db, stored.id, {
      topicIds: wanted.slice(i, i + TOPICS_PER_READ),
    });
    for (const [topic, entries] of byTopic)
      run.topics.set(
        topic,
        entries.map((e) => ({ docno: e.docId, rank: e.rank, score: e.score })),
      );
  }
  return run;
}

/**
 * A stored run (by the naming rule) as TREC run text: `qid Q0 docno rank score tag` lines,
 * topics in qid byte order, each topic in rank order (ties: score descending, then docno),
 * the rank as stored, the score in the shortest form that reads back to the stored number
 * and the run's stored name as the tag. not_found if the collection or run is absent.
 */
export async function exportRun(
  db: Queryable,
  collectionRef: CollectionRef,
  runRef: ItemRef,
): Promise<{ name: string; text: string; entries: number }> {
  const collection = await resolveCollection(db, collectionRef);
  const stored = await resolveRun(db, collection, runRef);
  const run = await readTrecRun(db, stored);
  let entries = 0;
  for (const list of run.topics.values()) entries += list.length;
  return { name: stored.name, text: formatRun(run), entries };
}

/** Topics {@link readTrecRun} reads per query (a run cut at 1000: 32,000 entries). */
const TOPICS_PER_READ = 32;
