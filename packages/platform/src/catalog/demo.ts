// The runs of the demo a first start loads: Cranfield retrieved by assay's own methods, so
// that run pages, Judged@k and leaderboards have data without importing anything.
import type { Queryable } from '@assay/db';
import type { RetrievalMethod } from '@assay/retrieval';
import type { CollectionRef } from '../core/resolve.js';
import { retrieveStoredRun } from '../retrieval/retrieval-runs.js';

/** The runs of the demo, by name and retrieval method (default settings). */
const DEMO_RUNS: ReadonlyArray<{ name: string; method: RetrievalMethod }> = [
  { name: 'bm25', method: 'bm25' },
  { name: 'rm3', method: 'rm3' },
  { name: 'rocchio', method: 'rocchio' },
];

/** Documents per topic of each demo run: enough for every cut-off the dashboards show. */
const DEMO_DEPTH = 100;

/**
 * Retrieves every topic of a stored collection (the Cranfield demo) with bm25, rm3 and
 * rocchio at their default settings, 100 documents per topic, and stores each result as a
 * run named after its method. Conflict when a run of that name exists.
 */
export async function storeDemoRuns(
  db: Queryable,
  collection: CollectionRef,
): Promise<Array<{ name: string; entries: number }>> {
  const runs = [];
  for (const run of DEMO_RUNS) {
    const stored = await retrieveStoredRun(db, {
      collection,
      method: run.method,
      params: { k: DEMO_DEPTH },
      tag: run.name,
    });
    runs.push({ name: stored.name, entries: stored.entries });
  }
  return runs;
}
