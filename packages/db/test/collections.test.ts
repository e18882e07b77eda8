import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  createCollection,
  createLabelSet,
  createRun,
  createUser,
  deleteCollection,
  getCollection,
  getCollectionByName,
  insertDocuments,
  insertLabels,
  insertTopics,
  listCollections,
  recordLabelRevision,
} from '../src/index.js';
import { forEachDatabase } from '@assay/test-support/database';

forEachDatabase('collections', (database) => {
  it('creates, gets by id and name, and lists with counts', async () => {
    const { db } = database;
    const robust = await createCollection(db, { name: 'robust04', description: 'TREC 2004' });
    const dl = await createCollection(db, { name: 'dl19' });
    expect(robust).toMatchObject({ name: 'robust04', description: 'TREC 2004' });
    expect(dl.description).toBeNull();
    expect(await getCollection(db, robust.id)).toEqual(robust);
    expect(await getCollectionByName(db, 'dl19')).toEqual(dl);
    expect(await getCollection(db, 999_999)).toBeUndefined();
    expect(await getCollectionByName(db, 'nope')).toBeUndefined();

    await insertDocuments(db, dl.id, [
      { docId: 'd1', text: 'one' },
      { docId: 'd2', text: 'two' },
    ]);
    await insertTopics(db, dl.id, [{ topicId: '19335', query: 'anthropological definition' }]);
    const listed = await listCollections(db);
    expect(listed).toEqual([
      { ...dl, documentCount: 2, topicCount: 1 },
      { ...robust, documentCount: 0, topicCount: 0 },
    ]);
  });

  it('rejects a duplicate or blank name', async () => {
    await createCollection(database.db, { name: 'dup' });
    await expect(createCollection(database.db, { name: 'dup' })).rejects.toMatchObject({
      code: '23505',
    });
    await expect(createCollection(database.db, { name: '  ' })).rejects.toMatchObject({
      code: '23514',
    });
  });

  it('deletes a collection with everything that belongs to it', async () => {
    const { db } = database;
    const doomed = await createCollection(db, { name: 'doomed' });
    const kept = await createCollection(db, { name: 'kept' });
    for (const collection of [doomed, kept]) {
      await insertDocuments(db, collection.id, [{ docId: 'd1', text: 'x' }]);
      await insertTopics(db, collection.id, [{ topicId: '1', query: 'q' }]);
      await createRun(db, {
        collectionId: collection.id,
        name: 'bm25',
        entries: [{ topicId: '1', docId: 'd1', rank: 1, score: 1 }],
      });
      const set = await createLabelSet(db, {
        collectionId: collection.id,
        name: 'qrels',
        kind: 'campaign',
        scaleMin: 0,
        scaleMax: 3,
      });
      await insertLabels(db, set.id, [{ topicId: '1', docId: 'd1', grade: 2 }]);
      const user = await createUser(db, {
        name: `annotator-${collection.name}`,
        role: 'annotator',
      });
      await recordLabelRevision(db, {
        labelSetId: set.id,
        topicId: '1',
        docId: 'd2',
        grade: 1,
        userId: user.id,
      });
    }
    expect(await deleteCollection(db, doomed.id)).toBe(true);
    expect(await deleteCollection(db, doomed.id)).toBe(false);

    const remaining = async (table: string) =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db))
          .rows[0]?.n,
      );
    for (const table of [
      'documents',
      'topics',
      'runs',
      'run_entries',
      'label_sets',
      'label_revisions',
    ] as const) {
      expect(await remaining(table), table).toBe(1);
    }
    expect(await remaining('labels')).toBe(2);
    expect(await remaining('users')).toBe(2);
  });
});
