import { getCollectionByName, listRuns } from '@assay/db';
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { evaluateRuns, loadDataset, storeDemoRuns } from '../src/index.js';

forEachDatabase('the first-start demo', (t) => {
  it('stores Cranfield with three runs of its 225 topics that reach judged documents', async () => {
    const loaded = await loadDataset(t.db, 'cranfield');
    expect(loaded).toMatchObject({ name: 'cranfield', documents: 1400, topics: 225 });
    const stored = await storeDemoRuns(t.db, loaded.collectionId);
    expect(stored.map((r) => r.name)).toEqual(['bm25', 'rm3', 'rocchio']);

    const collection = await getCollectionByName(t.db, 'cranfield');
    const runs = await listRuns(t.db, collection!.id);
    expect(runs.map((r) => r.name).sort()).toEqual(['bm25', 'rm3', 'rocchio']);
    for (const run of runs) {
      // Every topic has words in the collection, and a run keeps 100 documents per topic.
      expect(run.topicCount).toBe(225);
      expect(run.entryCount).toBeLessThanOrEqual(225 * 100);
      expect(run.entryCount).toBeGreaterThan(225 * 90);
      expect(run.description).toContain(`method=${run.name}`);
    }

    // Judged@10 under the Cranfield judgments: each run's top 10 holds judged documents.
    const judged = await evaluateRuns(t.db, {
      collection: 'cranfield',
      labelSet: 'cranfield-qrels',
      measures: ['Judged@10'],
    });
    expect(judged.runs.map((r) => r.run).sort()).toEqual(['bm25', 'rm3', 'rocchio']);
    for (const r of judged.runs) {
      expect(r.mean['Judged@10']).toBeGreaterThan(0);
      expect(r.mean['Judged@10']).toBeLessThanOrEqual(1);
    }
  }, 120_000);
});
