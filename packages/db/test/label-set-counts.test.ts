// A label set written whole stores its label and topic counts; sets written label by label
// (campaigns, judge jobs, edits) are counted on read instead (migration 0009).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  createCampaign,
  createCollection,
  createJudgeJob,
  createLabelSet,
  createUser,
  defaultMigrationsDir,
  getLabelSetSummary,
  insertLabels,
  listLabelSets,
  recordLabelRevision,
  setLabel,
  type Queryable,
} from '../src/index.js';
import { forEachDatabase } from '@assay/test-support/database';

async function storedCounts(db: Queryable, id: number) {
  const result = await sql<{ label_count: number | null; topic_count: number | null }>`
    select label_count, topic_count from label_sets where id = ${id}`.execute(db);
  const row = result.rows[0]!;
  return [row.label_count, row.topic_count];
}

// 3 labels over topics 1 and 2.
const THREE = [
  { topicId: '1', docId: 'a', grade: 2 },
  { topicId: '1', docId: 'b', grade: 0 },
  { topicId: '2', docId: 'a', grade: 1 },
];

forEachDatabase('stored label set counts', (database) => {
  async function newSet(
    name: string,
    kind: 'human_qrels' | 'campaign' | 'llm_judge' = 'human_qrels',
  ) {
    const collection =
      (await database.db.selectFrom('collections').select('id').executeTakeFirst()) ??
      (await createCollection(database.db, { name: 'c' }));
    const set = await createLabelSet(database.db, {
      collectionId: collection.id,
      name,
      kind,
      scaleMin: 0,
      scaleMax: 3,
    });
    return { collectionId: collection.id, set };
  }

  it('stores the counts of labels written whole and reads them without counting', async () => {
    const { db } = database;
    const { collectionId, set } = await newSet('qrels');
    await insertLabels(db, set.id, THREE);
    expect(await storedCounts(db, set.id)).toEqual([3, 2]);
    expect(await getLabelSetSummary(db, set.id)).toMatchObject({ labelCount: 3, topicCount: 2 });
    // Reads report the stored columns: changed behind the repository's back, reads follow.
    await sql`update label_sets set label_count = 41, topic_count = 7 where id = ${set.id}`.execute(
      db,
    );
    expect(await getLabelSetSummary(db, set.id)).toMatchObject({ labelCount: 41, topicCount: 7 });
    expect(await listLabelSets(db, collectionId)).toMatchObject([
      { name: 'qrels', labelCount: 41, topicCount: 7 },
    ]);
  });

  it('counts a set written label by label on read, and a set edited after its upload', async () => {
    const { db } = database;
    const { collectionId, set: campaignSet } = await newSet('campaign', 'campaign');
    await setLabel(db, {
      labelSetId: campaignSet.id,
      topicId: '1',
      docId: 'a',
      grade: 2,
      producedBy: 'annotator',
    });
    await setLabel(db, {
      labelSetId: campaignSet.id,
      topicId: '3',
      docId: 'a',
      grade: 1,
      producedBy: 'annotator',
    });
    await setLabel(db, {
      labelSetId: campaignSet.id,
      topicId: '3',
      docId: 'b',
      grade: 1,
      producedBy: 'annotator',
    });
    await setLabel(db, {
      labelSetId: campaignSet.id,
      topicId: '3',
      docId: 'b',
      grade: null,
      producedBy: null,
    });
    // Left: 1/a and 3/a — 2 labels over 2 topics, never stored.
    expect(await storedCounts(db, campaignSet.id)).toEqual([null, null]);
    expect(await getLabelSetSummary(db, campaignSet.id)).toMatchObject({
      labelCount: 2,
      topicCount: 2,
    });

    const { set: edited } = await newSet('edited');
    await insertLabels(db, edited.id, THREE);
    const user = await createUser(db, { name: 'ann', role: 'annotator' });
    // A label for new topic 9: 4 labels over 3 topics.
    await recordLabelRevision(db, {
      labelSetId: edited.id,
      topicId: '9',
      docId: 'z',
      grade: 3,
      userId: user.id,
    });
    expect(await storedCounts(db, edited.id)).toEqual([null, null]);
    expect(await getLabelSetSummary(db, edited.id)).toMatchObject({ labelCount: 4, topicCount: 3 });
    // Clearing topic 2's only label: 3 labels over topics 1 and 9.
    await recordLabelRevision(db, {
      labelSetId: edited.id,
      topicId: '2',
      docId: 'a',
      grade: null,
      userId: user.id,
    });
    expect(
      (await listLabelSets(db, collectionId)).map((s) => [s.name, s.labelCount, s.topicCount]),
    ).toEqual([
      ['campaign', 2, 2],
      ['edited', 3, 2],
    ]);
  });

  it('backfills the sets written whole, leaving campaigns and judge jobs counted on read', async () => {
    const { db } = database;
    const { collectionId, set: qrels } = await newSet('qrels');
    const { set: empty } = await newSet('empty');
    const { set: campaignSet } = await newSet('campaign', 'campaign');
    const { set: judged } = await newSet('judged', 'llm_judge');
    await insertLabels(db, qrels.id, THREE);
    await createCampaign(db, {
      collectionId,
      labelSetId: campaignSet.id,
      name: 'k',
      rubric: 'r',
      grades: [
        { grade: 0, label: 'no' },
        { grade: 1, label: 'yes' },
      ],
      overlap: 1,
      blind: false,
      items: [],
      annotators: [],
      assign: () => [],
    });
    await createJudgeJob(db, {
      labelSetId: judged.id,
      judgeId: 'j',
      template: {},
      templateHash: 'h',
      settings: {},
    });
    await setLabel(db, {
      labelSetId: campaignSet.id,
      topicId: '1',
      docId: 'a',
      grade: 1,
      producedBy: 'annotator',
    });
    await sql`insert into labels (label_set_id, topic_id, doc_id, grade) values
      (${judged.id}, '5', 'a', 1), (${judged.id}, '6', 'a', 0)`.execute(db);
    // As before migration 0009: nothing stored. Then its UPDATE, as the migration runs it.
    await sql`update label_sets set label_count = null, topic_count = null`.execute(db);
    const migration = await readFile(
      join(defaultMigrationsDir(), '0009_store_label_set_counts.sql'),
      'utf8',
    );
    const backfill = migration.slice(migration.indexOf('UPDATE label_sets'));
    await sql.raw(backfill).execute(db);
    expect(await storedCounts(db, qrels.id)).toEqual([3, 2]);
    expect(await storedCounts(db, empty.id)).toEqual([0, 0]);
    expect(await storedCounts(db, campaignSet.id)).toEqual([null, null]);
    expect(await storedCounts(db, judged.id)).toEqual([null, null]);
    expect(
      (await listLabelSets(db, collectionId)).map((s) => [s.name, s.labelCount, s.topicCount]),
    ).toEqual([
      ['campaign', 1, 1],
      ['empty', 0, 0],
      ['judged', 2, 2],
      ['qrels', 3, 2],
    ]);
  });
});
