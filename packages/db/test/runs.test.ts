import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  createCollection,
  createRun,
  deleteRun,
  findRunByName,
  getRun,
  getRunEntries,
  getRunWithEntries,
  insertRunEntries,
  listRuns,
  withTransaction,
  type RunEntry,
} from '../src/index.js';
import { forEachDatabase } from '@assay/test-support/database';

/** A run of `topics` × `depth` entries, rank 1..depth with falling scores. */
function makeEntries(topics: string[], depth: number): RunEntry[] {
  return topics.flatMap((topicId) =>
    Array.from({ length: depth }, (_, i) => ({
      topicId,
      docId: `${topicId}-doc${i}`,
      rank: i + 1,
      score: 10 - i / 10,
    })),
  );
}

async function countEntries(db: Parameters<typeof getRun>[0]): Promise<number> {
  const result = await sql<{ n: number }>`select count(*) as n from run_entries`.execute(db);
  return Number(result.rows[0]?.n);
}

forEachDatabase('runs', (database) => {
  it('creates a run from entries grouped by topic, loaded in chunks as they are read', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'grouped' });
    // 2 topics × 1,500 entries in chunks of 16 KB: a chunk spans the two topics.
    const depth = 1_500;
    const topic = (qid: string) =>
      Array.from({ length: depth }, (_, i) => ({
        docno: `${qid}-d${i}`,
        rank: i + 1,
        score: depth - i,
      }));
    const byTopic = new Map([
      ['q2', topic('q2')],
      ['q1', topic('q1')],
    ]);
    const run = await createRun(
      db,
      { collectionId, name: 'grouped', entries: byTopic },
      { chunkChars: 16_384 },
    );
    expect(run).toMatchObject({ entryCount: 3_000, topicCount: 2 });
    const stored = await getRunEntries(db, run.id);
    expect([...stored.keys()]).toEqual(['q1', 'q2']);
    expect(stored.get('q2')!.length).toBe(depth);
    expect(stored.get('q1')![1_499]).toEqual({
      topicId: 'q1',
      docId: 'q1-d1499',
      rank: 1_500,
      score: 1,
    });
  });

  it('creates a run with its entries in bulk and lists runs with counts', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'dl19' });
    const bm25 = await createRun(
      db,
      {
        collectionId,
        name: 'bm25',
        tag: 'anserini-bm25',
        description: 'k1=0.9 b=0.4',
        entries: makeEntries(['1', '2', '3'], 1_000),
      },
      { chunkChars: 10_000 },
    );
    expect(bm25).toMatchObject({
      collectionId,
      name: 'bm25',
      tag: 'anserini-bm25',
      description: 'k1=0.9 b=0.4',
      entryCount: 3_000,
      topicCount: 3,
    });
    const empty = await createRun(db, { collectionId, name: 'empty', entries: [] });
    expect(empty).toMatchObject({ entryCount: 0, topicCount: 0, tag: null });

    const listed = await listRuns(db, collectionId);
    expect(listed.map((run) => [run.name, run.entryCount, run.topicCount])).toEqual([
      ['bm25', 3_000, 3],
      ['empty', 0, 0],
    ]);
    const { entryCount: _e, topicCount: _t, ...plain } = bm25;
    expect(await getRun(db, bm25.id)).toEqual(plain);
    expect(await findRunByName(db, collectionId, 'bm25')).toEqual(plain);
    expect(await findRunByName(db, collectionId, 'nope')).toBeUndefined();
    expect(await getRun(db, 999_999)).toBeUndefined();
  });

  it('returns entries grouped by topic in rank order, optionally for some topics', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'c' });
    const entries: RunEntry[] = [
      { topicId: '10', docId: 'z', rank: 2, score: 0.5 },
      { topicId: '10', docId: 'y', rank: 1, score: 0.9 },
      { topicId: '2', docId: 'b', rank: 1, score: 0.1 + 0.2 },
      { topicId: '2', docId: 'a', rank: 1, score: 1.7976931348623157e308 },
      { topicId: '2', docId: 'c', rank: 3, score: -5e-324 },
    ];
    const run = await createRun(db, { collectionId, name: 'r', entries });
    const byTopic = await getRunEntries(db, run.id);
    expect([...byTopic.keys()]).toEqual(['10', '2']);
    expect(byTopic.get('10')?.map((e) => e.docId)).toEqual(['y', 'z']);
    expect(byTopic.get('2')).toEqual([
      { topicId: '2', docId: 'a', rank: 1, score: 1.7976931348623157e308 },
      { topicId: '2', docId: 'b', rank: 1, score: 0.30000000000000004 },
      { topicId: '2', docId: 'c', rank: 3, score: -5e-324 },
    ]);
    const some = await getRunEntries(db, run.id, { topicIds: ['2', 'missing'] });
    expect([...some.keys()]).toEqual(['2']);

    const full = await getRunWithEntries(db, run.id);
    expect(full?.name).toBe('r');
    expect(full?.entriesByTopic).toEqual(byTopic);
    expect(await getRunWithEntries(db, 999_999)).toBeUndefined();
  });

  it('keeps nothing when a run import fails: duplicate entry, taken name, aborted transaction', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'c' });
    const entries = makeEntries(['1', '2'], 600);
    entries.push({ topicId: '2', docId: '2-doc3', rank: 601, score: 0 });
    await expect(
      createRun(db, { collectionId, name: 'dup-entry', entries }, { chunkChars: 4_096 }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await findRunByName(db, collectionId, 'dup-entry')).toBeUndefined();
    expect(await countEntries(db)).toBe(0);
    // Grouped by topic as a parsed run is: the same docno under another topic is no repeat.
    const grouped = new Map([
      ['1', [{ docno: 'a', rank: 1, score: 2 }]],
      [
        '2',
        [
          { docno: 'a', rank: 1, score: 2 },
          { docno: 'b', rank: 2, score: 1 },
          { docno: 'a', rank: 3, score: 0 },
        ],
      ],
    ]);
    await expect(
      createRun(db, { collectionId, name: 'dup-grouped', entries: grouped }),
    ).rejects.toMatchObject({ code: '23505', message: expect.stringContaining('"a"') });
    grouped.get('2')!.pop();
    const distinct = await createRun(db, { collectionId, name: 'dup-grouped', entries: grouped });
    expect([distinct.entryCount, distinct.topicCount]).toEqual([3, 2]);
    await deleteRun(db, distinct.id);
    expect(await countEntries(db)).toBe(0);

    await createRun(db, { collectionId, name: 'taken', entries: makeEntries(['1'], 5) });
    await expect(
      createRun(db, { collectionId, name: 'taken', entries: makeEntries(['1'], 5) }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await countEntries(db)).toBe(5);

    await expect(
      withTransaction(db, async (trx) => {
        const run = await createRun(trx, {
          collectionId,
          name: 'aborted',
          entries: makeEntries(['1', '2', '3'], 400),
        });
        await insertRunEntries(trx, run.id, makeEntries(['4'], 10));
        throw new Error('a later file failed to parse');
      }),
    ).rejects.toThrow('later file');
    expect(await findRunByName(db, collectionId, 'aborted')).toBeUndefined();
    expect(await countEntries(db)).toBe(5);
  });

  it('allows the same run name in another collection', async () => {
    const { db } = database;
    const a = await createCollection(db, { name: 'a' });
    const b = await createCollection(db, { name: 'b' });
    await createRun(db, { collectionId: a.id, name: 'bm25', entries: [] });
    const other = await createRun(db, { collectionId: b.id, name: 'bm25', entries: [] });
    expect((await findRunByName(db, b.id, 'bm25'))?.id).toBe(other.id);
    expect(await listRuns(db, a.id)).toHaveLength(1);
  });

  it('adds entries to an existing run and deletes a run with its entries', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'c' });
    const run = await createRun(db, { collectionId, name: 'r', entries: makeEntries(['1'], 3) });
    const keep = await createRun(db, { collectionId, name: 'k', entries: makeEntries(['1'], 2) });
    expect(await insertRunEntries(db, run.id, makeEntries(['2'], 4))).toBe(4);
    expect((await listRuns(db, collectionId))[1]).toMatchObject({ entryCount: 7, topicCount: 2 });
    // An entry the run already has (topic 2's doc3) is refused, and nothing of the call stays.
    await expect(
      insertRunEntries(db, run.id, [
        { topicId: '3', docId: 'x', rank: 1, score: 1 },
        { topicId: '2', docId: '2-doc3', rank: 9, score: 0 },
      ]),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await listRuns(db, collectionId))[1]).toMatchObject({ entryCount: 7, topicCount: 2 });
    expect(await countEntries(db)).toBe(9);
    expect(await deleteRun(db, run.id)).toBe(true);
    expect(await deleteRun(db, run.id)).toBe(false);
    expect(await countEntries(db)).toBe(2);
    expect((await getRunEntries(db, keep.id)).get('1')).toHaveLength(2);
    await expect(insertRunEntries(db, run.id, makeEntries(['1'], 1))).rejects.toMatchObject({
      code: '23503',
    });
  });
  it('deletes a run’s entries when the run is deleted from a session with another search path', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'search-path' });
    const run = await createRun(db, { collectionId, name: 'sp', entries: makeEntries(['1'], 3) });
    const before = await countEntries(db);
    await withTransaction(db, async (trx) => {
      const schema = await sql<{ s: string }>`select current_schema() as s`.execute(trx);
      const runs = `"${schema.rows[0]!.s}".runs`;
      // A session that does not see assay's tables by name, as psql might be.
      await sql`set local search_path to pg_catalog`.execute(trx);
      await sql.raw(`delete from ${runs} where id = ${run.id}`).execute(trx);
    });
    expect(await countEntries(db)).toBe(before - 3);
  });
});
