import { sql } from 'kysely';
import { batches, bulkInsert, withTransaction, type Queryable } from '../bulk.js';
import type { Row, TopicContext } from '../schema.js';
import { seek, type Seek } from '../keyset.js';

/** A topic to store. */
export interface TopicInput {
  topicId: string;
  query: string;
  description?: string | null;
  narrative?: string | null;
  /** Conversational topics: earlier turns and user background statements. */
  context?: TopicContext | null;
}

/** A stored topic. */
export interface Topic {
  collectionId: number;
  topicId: string;
  query: string;
  description: string | null;
  narrative: string | null;
  context: TopicContext | null;
}

export function toTopic(row: Row<'topics'>): Topic {
  return {
    collectionId: row.collection_id,
    topicId: row.topic_id,
    query: row.query,
    description: row.description,
    narrative: row.narrative,
    context: row.context,
  };
}

/** Stores topics in batched multi-row inserts in one transaction; returns how many. */
export async function insertTopics(
  db: Queryable,
  collectionId: number,
  topics: readonly TopicInput[],
  options: { batchSize?: number } = {},
): Promise<number> {
  return withTransaction(db, (trx) =>
    bulkInsert(trx, {
      table: 'topics',
      constant: { collection_id: collectionId },
      columns: [
        { name: 'topic_id', type: 'text', value: (t: TopicInput) => t.topicId },
        { name: 'query', type: 'text', value: (t) => t.query },
        { name: 'description', type: 'text', value: (t) => t.description ?? null },
        { name: 'narrative', type: 'text', value: (t) => t.narrative ?? null },
        { name: 'context', type: 'jsonb', value: (t) => t.context ?? null },
      ],
      rows: topics,
      ...options,
    }),
  );
}

/**
 * A collection's topics in qid byte order (as trec_eval orders them); given a page, those
 * after its key (qid) and at most limit + 1 of them.
 */
export async function listTopics(
  db: Queryable,
  collectionId: number,
  page?: Seek,
): Promise<Topic[]> {
  const query = db.selectFrom('topics').selectAll().where('collection_id', '=', collectionId);
  const rows = await seek(query, [sql`topic_id collate "C"`], page).execute();
  return rows.map(toTopic);
}

/**
 * The qids among `topicIds` the collection holds, asked 10,000 at a time (a Set is read as
 * it is, without a copy).
 */
export async function heldTopicIds(
  db: Queryable,
  collectionId: number,
  topicIds: Iterable<string>,
): Promise<Set<string>> {
  const held = new Set<string>();
  for (const batch of batches(topicIds instanceof Set ? topicIds : new Set(topicIds), 10_000)) {
    const rows = await db
      .selectFrom('topics')
      .select('topic_id')
      .where('collection_id', '=', collectionId)
      .where(sql<boolean>`topic_id = any(${batch}::text[])`)
      .execute();
    for (const row of rows) held.add(row.topic_id);
  }
  return held;
}

/** One topic by qid, if stored. */
export async function getTopic(
  db: Queryable,
  collectionId: number,
  topicId: string,
): Promise<Topic | undefined> {
  const row = await db
    .selectFrom('topics')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('topic_id', '=', topicId)
    .executeTakeFirst();
  return row && toTopic(row);
}
