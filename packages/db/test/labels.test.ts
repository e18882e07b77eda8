import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  createCollection,
  createLabelSet,
  createUser,
  deleteLabelSet,
  findLabelSetByName,
  getLabelGrades,
  getLabelSet,
  insertLabels,
  listLabelRevisions,
  listLabels,
  listLabelSets,
  recordLabelRevision,
  userProducer,
  type LabelInput,
} from '../src/index.js';
import { forEachDatabase } from '@assay/test-support/database';

forEachDatabase('label sets and labels', (database) => {
  async function setUp(scaleMin = 0, scaleMax = 3) {
    const collection = await createCollection(database.db, { name: 'dl20' });
    const set = await createLabelSet(database.db, {
      collectionId: collection.id,
      name: 'umbrela-gpt4o',
      kind: 'llm_judge',
      scaleMin,
      scaleMax,
      config: { judge: 'umbrela', model: 'gpt-4o', promptHash: 'ab12' },
    });
    return { collection, set };
  }

  it('creates, finds and lists label sets with counts', async () => {
    const { db } = database;
    const { collection, set } = await setUp();
    expect(set).toMatchObject({
      collectionId: collection.id,
      name: 'umbrela-gpt4o',
      kind: 'llm_judge',
      scaleMin: 0,
      scaleMax: 3,
      config: { judge: 'umbrela', model: 'gpt-4o', promptHash: 'ab12' },
    });
    const qrels = await createLabelSet(db, {
      collectionId: collection.id,
      name: 'nist-qrels',
      kind: 'human_qrels',
      scaleMin: -2,
      scaleMax: 3,
    });
    expect(qrels.config).toEqual({});
    await insertLabels(db, set.id, [
      { topicId: '1', docId: 'a', grade: 3 },
      { topicId: '1', docId: 'b', grade: 0 },
      { topicId: '2', docId: 'a', grade: 1 },
    ]);
    expect(await getLabelSet(db, set.id)).toEqual(set);
    expect(await findLabelSetByName(db, collection.id, 'nist-qrels')).toEqual(qrels);
    expect(await findLabelSetByName(db, collection.id, 'nope')).toBeUndefined();
    const listed = await listLabelSets(db, collection.id);
    expect(listed.map((s) => [s.name, s.labelCount, s.topicCount])).toEqual([
      ['nist-qrels', 0, 0],
      ['umbrela-gpt4o', 3, 2],
    ]);
  });

  it('enforces kind, scale and unique names', async () => {
    const { db } = database;
    const { collection } = await setUp();
    const base = { collectionId: collection.id, scaleMin: 0, scaleMax: 1 };
    await expect(
      createLabelSet(db, { ...base, name: 'x', kind: 'guess' as 'import' }),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      createLabelSet(db, { ...base, name: 'y', kind: 'import', scaleMin: 3, scaleMax: 1 }),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      createLabelSet(db, { ...base, name: 'umbrela-gpt4o', kind: 'import' }),
    ).rejects.toMatchObject({ code: '23505' });
  });

  it('bulk-inserts labels and returns them as topic → docno → grade', async () => {
    const { db } = database;
    const { set } = await setUp();
    const labels: LabelInput[] = Array.from({ length: 3_000 }, (_, i) => ({
      topicId: String(i % 7),
      docId: `doc${i}`,
      grade: i % 4,
      producedBy: 'gpt-4o',
      rationale: i === 5 ? 'mentions "the answer", partially' : null,
    }));
    expect(await insertLabels(db, set.id, labels, { batchSize: 400 })).toBe(3_000);
    const grades = await getLabelGrades(db, set.id);
    expect(grades.size).toBe(7);
    expect(grades.get('5')?.get('doc5')).toBe(1);
    expect([...grades.values()].reduce((sum, docs) => sum + docs.size, 0)).toBe(3_000);
    const some = await getLabelGrades(db, set.id, { topicIds: ['0', 'x'] });
    expect([...some.keys()]).toEqual(['0']);

    const topic5 = await listLabels(db, set.id, { topicId: '5' });
    expect(topic5).toHaveLength(Math.ceil((3_000 - 5) / 7));
    expect(topic5.find((label) => label.docId === 'doc5')).toMatchObject({
      labelSetId: set.id,
      grade: 1,
      producedBy: 'gpt-4o',
      rationale: 'mentions "the answer", partially',
    });
    expect((await listLabels(db, set.id)).length).toBe(3_000);
  });

  it('rejects grades outside the scale and duplicates, keeping nothing of the call', async () => {
    const { db } = database;
    const { set } = await setUp();
    const good = Array.from({ length: 500 }, (_, i) => ({
      topicId: '1',
      docId: `d${i}`,
      grade: 2,
    }));
    await expect(
      insertLabels(db, set.id, [...good, { topicId: '2', docId: 'x', grade: 4 }], {
        batchSize: 100,
      }),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      insertLabels(db, set.id, [{ topicId: '2', docId: 'x', grade: -1 }]),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      insertLabels(db, set.id, [...good, { topicId: '1', docId: 'd0', grade: 1 }]),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await getLabelGrades(db, set.id)).size).toBe(0);

    await insertLabels(db, set.id, good);
    await expect(
      db.updateTable('labels').set({ grade: 9 }).where('doc_id', '=', 'd1').execute(),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      db.updateTable('label_sets').set({ scale_max: 1 }).where('id', '=', set.id).execute(),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('replaces existing labels when asked to', async () => {
    const { db } = database;
    const { set } = await setUp();
    await insertLabels(db, set.id, [
      { topicId: '1', docId: 'a', grade: 0, producedBy: 'v1' },
      { topicId: '1', docId: 'b', grade: 1, producedBy: 'v1' },
    ]);
    await insertLabels(
      db,
      set.id,
      [{ topicId: '1', docId: 'a', grade: 3, producedBy: 'v2', rationale: 'clearly' }],
      { replace: true },
    );
    const labels = await listLabels(db, set.id);
    expect(labels.map((l) => [l.docId, l.grade, l.producedBy, l.rationale])).toEqual([
      ['a', 3, 'v2', 'clearly'],
      ['b', 1, 'v1', null],
    ]);
  });

  it('records human labels as append-only revisions; labels show the latest', async () => {
    const { db } = database;
    const { collection } = await setUp();
    const campaign = await createLabelSet(db, {
      collectionId: collection.id,
      name: 'campaign-1',
      kind: 'campaign',
      scaleMin: 0,
      scaleMax: 2,
    });
    const ann = await createUser(db, { name: 'ann', role: 'annotator' });
    const bob = await createUser(db, { name: 'bob', role: 'annotator' });
    const item = { labelSetId: campaign.id, topicId: '7', docId: 'p1' };

    const first = await recordLabelRevision(db, { ...item, grade: 2, userId: ann.id });
    expect(first).toMatchObject({ ...item, grade: 2, userId: ann.id, rationale: null });
    expect((await getLabelGrades(db, campaign.id)).get('7')?.get('p1')).toBe(2);

    await recordLabelRevision(db, { ...item, grade: 1, userId: bob.id, rationale: 'partial' });
    expect(await listLabels(db, campaign.id)).toMatchObject([
      { ...item, grade: 1, producedBy: userProducer(bob.id), rationale: 'partial' },
    ]);

    await recordLabelRevision(db, { ...item, grade: null, userId: bob.id });
    expect((await getLabelGrades(db, campaign.id)).size).toBe(0);

    // Undo of the clear: record the earlier grade again.
    await recordLabelRevision(db, { ...item, grade: 1, userId: bob.id, rationale: 'undo' });
    const history = await listLabelRevisions(db, campaign.id, { topicId: '7', docId: 'p1' });
    expect(history.map((revision) => revision.grade)).toEqual([2, 1, null, 1]);
    expect(history.map((revision) => revision.userId)).toEqual([ann.id, bob.id, bob.id, bob.id]);
    expect((await getLabelGrades(db, campaign.id)).get('7')?.get('p1')).toBe(1);

    await expect(
      recordLabelRevision(db, { ...item, grade: 5, userId: ann.id }),
    ).rejects.toMatchObject({ code: '23514' });
    expect(await listLabelRevisions(db, campaign.id)).toHaveLength(4);

    await expect(
      db.updateTable('label_revisions').set({ grade: 0 }).where('id', '=', first.id).execute(),
    ).rejects.toMatchObject({ code: '23001' });
    await expect(
      db.deleteFrom('label_revisions').where('id', '=', first.id).execute(),
    ).rejects.toMatchObject({ code: '23001' });
    await expect(db.deleteFrom('users').where('id', '=', ann.id).execute()).rejects.toMatchObject({
      code: '23503',
    });
  });

  it('keeps labels equal to the latest revision under concurrent edits', async () => {
    const { db } = database;
    const { set } = await setUp(0, 20);
    const user = await createUser(db, { name: 'racer', role: 'annotator' });
    const item = { labelSetId: set.id, topicId: '1', docId: 'hot' };
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        recordLabelRevision(db, { ...item, grade: i % 3 === 2 ? null : i, userId: user.id }),
      ),
    );
    const history = await listLabelRevisions(db, set.id);
    expect(history).toHaveLength(20);
    const latest = history.at(-1)?.grade ?? null;
    const current = (await getLabelGrades(db, set.id)).get('1')?.get('hot') ?? null;
    expect(current).toBe(latest);
  });

  it('deletes a label set with its labels and revisions', async () => {
    const { db } = database;
    const { collection, set } = await setUp();
    const other = await createLabelSet(db, {
      collectionId: collection.id,
      name: 'other',
      kind: 'import',
      scaleMin: 0,
      scaleMax: 1,
    });
    const user = await createUser(db, { name: 'u', role: 'admin' });
    for (const s of [set, other]) {
      await insertLabels(db, s.id, [{ topicId: '1', docId: 'a', grade: 1 }]);
      await recordLabelRevision(db, {
        labelSetId: s.id,
        topicId: '1',
        docId: 'b',
        grade: 0,
        userId: user.id,
      });
    }
    expect(await deleteLabelSet(db, set.id)).toBe(true);
    expect(await deleteLabelSet(db, set.id)).toBe(false);
    const counts = await sql<{ labels: number; revisions: number }>`
      select (select count(*) from labels) as labels,
             (select count(*) from label_revisions) as revisions`.execute(db);
    expect(counts.rows[0]).toEqual({ labels: 2, revisions: 1 });
    expect(await getLabelSet(db, set.id)).toBeUndefined();
  });
});
