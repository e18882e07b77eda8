import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { bulkCopy } from '../src/bulk.js';
import {
  createCollection,
  createRun,
  deleteCollection,
  getRunEntries,
  withTransaction,
  type RunEntry,
} from '../src/index.js';
import { forEachDatabase } from '@assay/test-support/database';

async function count(db: Parameters<typeof withTransaction>[0], table: string): Promise<number> {
  const result = await sql<{
    n: number;
  }>`select count(*)::int as n from ${sql.table(table)}`.execute(db);
  return Number(result.rows[0]?.n);
}

forEachDatabase('bulk COPY', (database) => {
  it('stores docnos with tabs, backslashes, quotes, newlines and non-ASCII as given', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'c' });
    const entries: RunEntry[] = [
      { topicId: 'q\t1', docId: 'tab\there', rank: 1, score: 3 },
      { topicId: 'q\t1', docId: 'back\\slash\\', rank: 2, score: 2.5 },
      { topicId: 'q\t1', docId: '\\N', rank: 3, score: 2 },
      { topicId: 'q\t1', docId: '\\.', rank: 4, score: 1.5 },
      { topicId: 'q\t1', docId: `quotes "double" and 'single'`, rank: 5, score: 1 },
      { topicId: 'q\t1', docId: 'line\nbreak\r\nand cr', rank: 6, score: 0.5 },
      { topicId: 'q\t1', docId: 'héllo wörld ✓ 𝄞 日本', rank: 7, score: -1e-300 },
      { topicId: 'q\t1', docId: '\\t is not a tab', rank: 8, score: 1.7976931348623157e308 },
    ];
    const run = await createRun(db, { collectionId, name: 'escaped', entries });
    const stored = (await getRunEntries(db, run.id)).get('q\t1')!;
    // In rank order, byte for byte as given.
    expect(stored.map((e) => [e.docId, e.rank, e.score])).toEqual([
      ['tab\there', 1, 3],
      ['back\\slash\\', 2, 2.5],
      ['\\N', 3, 2],
      ['\\.', 4, 1.5],
      [`quotes "double" and 'single'`, 5, 1],
      ['line\nbreak\r\nand cr', 6, 0.5],
      ['héllo wörld ✓ 𝄞 日本', 7, -1e-300],
      ['\\t is not a tab', 8, 1.7976931348623157e308],
    ]);
    const lengths = await sql<{ n: number }>`
      select octet_length(doc_id) as n from run_entries where run_id = ${run.id} and rank = 7
    `.execute(db);
    // UTF-8 bytes: héllo 6, space 1, wörld 6, space 1, ✓ 3, space 1, 𝄞 4, space 1, 日本 6.
    expect(lengths.rows[0]?.n).toBe(29);
  });

  it('writes nulls and JSON in COPY text', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'c' });
    await bulkCopy(db, {
      table: 'topics',
      constant: { collection_id: collectionId },
      columns: [
        { name: 'topic_id', type: 'text', value: (r: { id: string }) => r.id },
        { name: 'query', type: 'text', value: () => 'q\\uery\t1' },
        { name: 'description', type: 'text', value: () => null },
        {
          name: 'context',
          type: 'jsonb',
          value: (r) => (r.id === 't1' ? { turn: 'a\tb\\"c\n' } : null),
        },
      ],
      rows: [{ id: 't1' }, { id: 't2' }],
    });
    const rows = await sql`
      select topic_id, query, description, context from topics order by topic_id
    `.execute(db);
    expect(rows.rows).toEqual([
      { topic_id: 't1', query: 'q\\uery\t1', description: null, context: { turn: 'a\tb\\"c\n' } },
      { topic_id: 't2', query: 'q\\uery\t1', description: null, context: null },
    ]);
  });

  it('leaves nothing when the rows stop with an error after several chunks', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'c' });
    function* rows(): Generator<RunEntry> {
      for (let i = 1; i <= 9_000; i++) {
        // As a parser streaming a file fails on a bad line well into it.
        if (i === 9_000) throw new Error('run.txt:9000: score "high" is not a finite number');
        yield { topicId: String(Math.ceil(i / 1000)), docId: `d${i}`, rank: i, score: 1 / i };
      }
    }
    await expect(
      withTransaction(db, async (trx) => {
        const run = await createRun(trx, { collectionId, name: 'r', entries: [] });
        await bulkCopy(trx, {
          table: 'run_entries',
          constant: { run_id: run.id },
          columns: [
            { name: 'topic_id', type: 'text', value: (e: RunEntry) => e.topicId },
            { name: 'doc_id', type: 'text', value: (e) => e.docId },
            { name: 'rank', type: 'int4', value: (e) => e.rank },
            { name: 'score', type: 'float8', value: (e) => e.score },
          ],
          rows: rows(),
          // About 1,000 rows a chunk: eight chunks went to the database before the error.
          chunkChars: 20_000,
        });
      }),
    ).rejects.toThrow('run.txt:9000');
    expect([await count(db, 'runs'), await count(db, 'run_entries')]).toEqual([0, 0]);
    // The connection is usable afterwards.
    expect(await count(db, 'collections')).toBe(1);
  });

  it('leaves nothing when the database refuses a row in a late chunk', async () => {
    const { db } = database;
    const { id: collectionId } = await createCollection(db, { name: 'c' });
    const entries: RunEntry[] = [];
    for (let i = 1; i <= 9_000; i++)
      entries.push({ topicId: String(Math.ceil(i / 1000)), docId: `d${i}`, rank: i, score: 1 });
    // rank is int4: 2^31 is refused by the database, not by the writer.
    entries.push({ topicId: '9', docId: 'late', rank: 2 ** 31, score: 1 });
    await expect(
      createRun(db, { collectionId, name: 'r', entries }, { chunkChars: 20_000 }),
    ).rejects.toMatchObject({ code: '22003' });
    expect([await count(db, 'runs'), await count(db, 'run_entries')]).toEqual([0, 0]);
  });

  it('deletes the entries of a run deleted with its collection', async () => {
    const { db } = database;
    const a = await createCollection(db, { name: 'a' });
    const b = await createCollection(db, { name: 'b' });
    const entry = { topicId: '1', docId: 'd', rank: 1, score: 1 };
    await createRun(db, { collectionId: a.id, name: 'r', entries: [entry] });
    await createRun(db, {
      collectionId: a.id,
      name: 's',
      entries: [entry, { ...entry, docId: 'e' }],
    });
    const kept = await createRun(db, { collectionId: b.id, name: 'r', entries: [entry] });
    expect(await count(db, 'run_entries')).toBe(4);
    await deleteCollection(db, a.id);
    expect(await count(db, 'run_entries')).toBe(1);
    expect((await getRunEntries(db, kept.id)).get('1')).toHaveLength(1);
  });
});
