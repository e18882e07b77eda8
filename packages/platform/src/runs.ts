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

/** A stored run's entries, topics in qid byte order and each in rank order; optionally one topic. */
export async function listRunEntries(
  db: Queryable,
  collectionRef: CollectionRef,
  runRef: ItemRef,
  options: { topic?: string } = {},
): Promise<RunEntry[]> {
  const collection = await resolveCollection(db, collectionRef);
  const run = await resolveRun(db, collection, runRef);
  const byTopic = await store.getRunEntries(
    db,
    run.id,
    options.topic === undefined ? {} : { topicIds: [options.topic] },
  );
  return [...byTopic.values()].flat();
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
