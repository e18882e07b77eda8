// The demo a first start loads: the Cranfield collection with its judgments, and runs made
// by assay's own retrieval so that run pages, Judged@k and leaderboards have data at once.
import type { Queryable } from '@assay/db';
import type { RetrievalMethod } from '@assay/retrieval';
import { loadDataset, type LoadDatasetResult } from './datasets.js';
import { retrieveStoredRun } from './retrieval-runs.js';

/** The runs of the demo, by name and retrieval method (default settings). */
const DEMO_RUNS: ReadonlyArray<{ name: string; method: RetrievalMethod }> = [
  { name: 'bm25', method: 'bm25' },
  { name: 'rm3', method: 'rm3' },
  { name: 'rocchio', method: 'rocchio' },
];

/** Documents per topic of each demo run: enough for every cut-off the dashboards show. */
const DEMO_DEPTH = 100;

/** What {@link loadDemo} stored. */
export interface LoadDemoResult extends LoadDatasetResult {
  runs: Array<{ name: string; entries: number }>;
}

/**
 * Loads the Cranfield dataset, then retrieves its topics with each of {@link DEMO_RUNS}
 * (default settings, 100 documents per topic) and stores the results as runs. Conflict
 * when the collection exists already.
 */
export async function loadDemo(
  db: Queryable,
  options: { datasetsDir?: string } = {},
): Promise<LoadDemoResult> {
  const loaded = await loadDataset(db, 'cranfield', options);
  const runs = [];
  for (const run of DEMO_RUNS) {
    const stored = await retrieveStoredRun(db, {
      collection: loaded.collectionId,
      method: run.method,
      params: { k: DEMO_DEPTH },
      tag: run.name,
    });
    runs.push({ name: stored.name, entries: stored.entries });
  }
  return { ...loaded, runs };
}
