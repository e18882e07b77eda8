import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  createCollection,
  getDocument,
  getDocuments,
  getTopic,
  insertDocuments,
  insertTopics,
  listDocuments,
  listTopics,
  withTransaction,
  type DocumentInput,
} from '../src/index.js';
import { forEachDatabase } from '@assay/test-support/database';

/** Strings that break naive array-literal or JSON quoting. */
const AWKWARD = [
  '',
  'NULL',
  'null',
  'say "hi"',
  'back\\slash',
  'comma, {braces}',
  "it's",
  'tab\tnew\nline',
  'naïve café 東京 🙂',
  '   padded   ',
];

async function countRows(db: Parameters<typeof getDocument>[0], table: string): Promise<number> {
  const result = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(
    db,
  );
  return Number(result.rows[0]?.n);
}

forEachDatabase('documents and topics', (database) => {
  it('bulk-inserts documents across batches and reads them back exactly', async () => {
    const { db } = database;
    const { id } = await createCollection(db, { name: 'msmarco' });
    const documents: DocumentInput[] = Array.from({ length: 2_500 }, (_, i) => ({
      docId: `doc${String(i).padStart(5, '0')}`,
      title: i % 2 === 0 ? null : (AWKWARD[i % AWKWARD.length] as string),
      text: `${AWKWARD[i % AWKWARD.length]} body ${i}`,
      ...(i % 3 === 0 ? {} : { metadata: { url: `http://x/${i}`, tags: [AWKWARD[i % 10] ?? ''] } }),
    }));
    expect(await insertDocuments(db, id, documents, { batchSize: 300 })).toBe(2_500);
    expect(await countRows(db, 'documents')).toBe(2_500);
    for (const i of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1_234, 2_499]) {
      const input = documents[i] as DocumentInput;
      expect(await getDocument(db, id, input.docId)).toEqual({
        collectionId: id,
        docId: input.docId,
        title: input.title ?? null,
        text: input.text,
        metadata: input.metadata ?? {},
      });
    }
    expect(await getDocument(db, id, 'missing')).toBeUndefined();
  });

  it('fetches many documents at once, leaving out unknown docnos', async () => {
    const { db } = database;
    const { id } = await createCollection(db, { name: 'c' });
    await insertDocuments(db, id, [
      { docId: 'a', text: 'A' },
      { docId: 'b', text: 'B' },
      { docId: 'c', text: 'C' },
    ]);
    const found = await getDocuments(db, id, ['c', 'a', 'zzz', 'a']);
    expect([...found.keys()].sort()).toEqual(['a', 'c']);
    expect(found.get('c')?.text).toBe('C');
    expect((await getDocuments(db, id, [])).size).toBe(0);
  });

  it('pages documents in docno byte order by keyset and by offset', async () => {
    const { db } = database;
    const { id } = await createCollection(db, { name: 'paged' });
    const other = await createCollection(db, { name: 'other' });
    const docIds = ['b', 'B', 'a', 'A', '10', '9', 'a-1', 'a_1'];
    await insertDocuments(
      db,
      id,
      docIds.map((docId) => ({ docId, text: docId })),
    );
    await insertDocuments(db, other.id, [{ docId: 'a', text: 'other' }]);
    const byteOrder = [...docIds].sort();
    expect((await listDocuments(db, id, { limit: 100 })).map((d) => d.docId)).toEqual(byteOrder);
    const first = await listDocuments(db, id, { limit: 3 });
    const second = await listDocuments(db, id, { limit: 3, after: first.at(-1)?.docId as string });
    expect([...first, ...second].map((d) => d.docId)).toEqual(byteOrder.slice(0, 6));
    const byOffset = await listDocuments(db, id, { limit: 3, offset: 3 });
    expect(byOffset.map((d) => d.docId)).toEqual(byteOrder.slice(3, 6));
  });

  it('stores nothing when a bulk insert fails part way', async () => {
    const { db } = database;
    const { id } = await createCollection(db, { name: 'atomic' });
    const documents = Array.from({ length: 1_000 }, (_, i) => ({ docId: `d${i}`, text: 'x' }));
    documents.push({ docId: 'd5', text: 'duplicate in the last batch' });
    await expect(insertDocuments(db, id, documents, { batchSize: 100 })).rejects.toMatchObject({
      code: '23505',
    });
    expect(await countRows(db, 'documents')).toBe(0);

    await expect(
      withTransaction(db, async (trx) => {
        await insertDocuments(trx, id, documents.slice(0, 500), { batchSize: 100 });
        throw new Error('import aborted after parsing');
      }),
    ).rejects.toThrow('import aborted');
    expect(await countRows(db, 'documents')).toBe(0);
  });

  it('keeps docnos unique per collection only', async () => {
    const { db } = database;
    const a = await createCollection(db, { name: 'a' });
    const b = await createCollection(db, { name: 'b' });
    await insertDocuments(db, a.id, [{ docId: 'same', text: '1' }]);
    await insertDocuments(db, b.id, [{ docId: 'same', text: '2' }]);
    await expect(insertDocuments(db, a.id, [{ docId: 'same', text: '3' }])).rejects.toMatchObject({
      code: '23505',
    });
    await expect(insertDocuments(db, 999_999, [{ docId: 'x', text: '' }])).rejects.toMatchObject({
      code: '23503',
    });
  });

  it('bulk-inserts topics with conversational context and lists them in qid byte order', async () => {
    const { db } = database;
    const { id } = await createCollection(db, { name: 'ikat' });
    const context = {
      previousTurns: [
        { role: 'user' as const, text: 'I want to buy a "quiet" car' },
        { role: 'assistant' as const, text: 'Electric cars are quiet.' },
      ],
      userBackground: ['I live in Scotland', 'budget: £20k'],
    };
    expect(
      await insertTopics(
        db,
        id,
        [
          { topicId: '2', query: 'two', description: 'd2', narrative: 'n2' },
          { topicId: '10', query: 'ten' },
          { topicId: '1-3', query: 'which one is cheapest?', context },
          { topicId: '1', query: AWKWARD[3] as string },
        ],
        { batchSize: 2 },
      ),
    ).toBe(4);
    const topics = await listTopics(db, id);
    expect(topics.map((topic) => topic.topicId)).toEqual(['1', '1-3', '10', '2']);
    expect(topics[3]).toEqual({
      collectionId: id,
      topicId: '2',
      query: 'two',
      description: 'd2',
      narrative: 'n2',
      context: null,
    });
    expect((await getTopic(db, id, '1-3'))?.context).toEqual(context);
    expect((await getTopic(db, id, '1'))?.query).toBe('say "hi"');
    expect(await getTopic(db, id, '404')).toBeUndefined();
    await expect(insertTopics(db, id, [{ topicId: '2', query: 'again' }])).rejects.toMatchObject({
      code: '23505',
    });
    expect(await listTopics(db, id)).toHaveLength(4);
  });
});
