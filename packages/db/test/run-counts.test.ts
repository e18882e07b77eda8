// A run's entry and topic counts are stored when its entries are written and read back
// without counting run_entries again.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  createCollection,
  createRun,
  getRunSummary,
  insertRunEntries,
  listRuns,
} from '../src/index.js';
import { forEachDatabase } from '@assay/test-support/database';

forEachDatabase('stored run counts', (database) => {
  it('stores the counts at write time and reads them without the entries', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'c' });
    // 2 topics: "1" with 3 entries, "2" with 1 — 4 entries.
    const run = await createRun(db, {
      collectionId,
      name: 'r',
      entries: [
        { topicId: '1', docId: 'a', rank: 1, score: 3 },
        { topicId: '1', docId: 'b', rank: 2, score: 2 },
        { topicId: '1', docId: 'c', rank: 3, score: 1 },
        { topicId: '2', docId: 'a', rank: 1, score: 1 },
      ],
    });
    expect(run).toMatchObject({ entryCount: 4, topicCount: 2 });
    // Adding 2 entries, one of them for a new topic "3": 6 entries over 3 topics.
    await insertRunEntries(db, run.id, [
      { topicId: '2', docId: 'b', rank: 2, score: 0.5 },
      { topicId: '3', docId: 'a', rank: 1, score: 1 },
    ]);
    expect(await getRunSummary(db, run.id)).toMatchObject({ entryCount: 6, topicCount: 3 });
    // The stored columns are what reads report: change them behind the repository's back
    // and the reads follow, so nothing is recounted from run_entries.
    await sql`update runs set entry_count = 41, topic_count = 7 where id = ${run.id}`.execute(db);
    expect(await getRunSummary(db, run.id)).toMatchObject({ entryCount: 41, topicCount: 7 });
    expect(await listRuns(db, collectionId)).toMatchObject([{ entryCount: 41, topicCount: 7 }]);
  });
});
