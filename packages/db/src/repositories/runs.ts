import { sql } from 'kysely';
import {
  COPY_CHUNK_CHARS,
  CopyUnsupportedError,
  bulkCopy,
  copyChunks,
  copyText,
  withTransaction,
  type Queryable,
} from '../bulk.js';
import { whereIdOrName, type IdOrName } from '../id-or-name.js';
import type { Row } from '../schema.js';
import { seek, type Seek } from '../keyset.js';

/** One line of a run: a document retrieved for a topic at a rank with a score. */
export interface RunEntry {
  topicId: string;
  docId: string;
  rank: number;
  score: number;
}

/** A stored run (without its entries). */
export interface Run {
  id: number;
  collectionId: number;
  name: string;
  tag: string | null;
  description: string | null;
  createdAt: Date;
}

/** A run with how many entries and topics it has. */
export interface RunSummary extends Run {
  entryCount: number;
  topicCount: number;
}

/** A run with its entries grouped by topic, each topic's entries in rank order. */
export interface RunWithEntries extends Run {
  entriesByTopic: Map<string, RunEntry[]>;
}

/** One topic's entry of a run as a parsed run file holds it (the topic is the map's key). */
export interface TopicEntry {
  docno: string;
  rank: number;
  score: number;
}

/** A run's entries topic by topic (a parsed run's `topics`). */
export type EntriesByTopic = ReadonlyMap<string, readonly TopicEntry[]>;

/** Takes one entry of a streamed run. */
export type AddRunEntry = (topicId: string, docId: string, rank: number, score: number) => void;

/**
 * A run's entries made while they are written (e.g. parsed from a file as the database
 * loads what came before): none is kept once written.
 */
export interface StreamedEntries {
  /**
   * Hands every entry to `add`, some at each step of the iteration (e.g. a slice of a
   * file's lines); the next step is taken when the database has room for more.
   */
  feed(add: AddRunEntry): AsyncIterable<unknown>;
  /**
   * Asked after the last step: true when the feed did not itself refuse every docno
   * repeated within a topic (a topic's entries came apart); the stored entries are then
   * checked for repeats (an error with code 23505 if one is found).
   */
  unchecked(): boolean;
}

/** Fields of a new run, with all its entries. */
export interface NewRun {
  collectionId: number;
  name: string;
  tag?: string | null;
  description?: string | null;
  /**
   * The entries: a flat list, or grouped by topic as parsed, which is inserted batch by
   * batch without building one object per entry (a million-line upload stays cheap).
   */
  entries: readonly RunEntry[] | EntriesByTopic | StreamedEntries;
}

export function toRun(row: Row<'runs'>): Run {
  return {
    id: row.id,
    collectionId: row.collection_id,
    name: row.name,
    tag: row.tag,
    description: row.description,
    createdAt: row.created_at,
  };
}

/**
 * Creates a run and bulk-loads its entries (COPY) in one transaction (or in `db` if it is
 * one): a duplicate (topic, docno) or a taken name leaves nothing behind (both fail with
 * code 23505, unique_violation).
 */
export async function createRun(
  db: Queryable,
  input: NewRun,
  options: { chunkChars?: number } = {},
): Promise<RunSummary> {
  return withTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('runs')
      .values({
        collection_id: input.collectionId,
        name: input.name,
        tag: input.tag ?? null,
        description: input.description ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const entries = input.entries;
    if (isStreamed(entries)) {
      const { entryCount, topicCount } = await insertStreamed(trx, row.id, entries, options);
      await trx
        .updateTable('runs')
        .set({ entry_count: entryCount, topic_count: topicCount })
        .where('id', '=', row.id)
        .execute();
      return { ...toRun(row), entryCount, topicCount };
    }
    const byTopic = !Array.isArray(entries);
    // The run is new in this transaction: no other writer can delete it before we commit.
    // No index checks the entries' uniqueness (see migration 0015): they are checked here.
    const entryCount = await insertEntries(
      trx,
      row.id,
      byTopic ? flatten(entries as EntriesByTopic) : checkedOnce(entries as readonly RunEntry[]),
      options,
    );
    const topicCount = byTopic
      ? countTopics(entries as EntriesByTopic)
      : countTopics(entries as readonly RunEntry[]);
    // Stored now, so that no read counts the entries again.
    await trx
      .updateTable('runs')
      .set({ entry_count: entryCount, topic_count: topicCount })
      .where('id', '=', row.id)
      .execute();
    return { ...toRun(row), entryCount, topicCount };
  });
}

/**
 * Adds entries to an existing run (COPY) and brings the run's stored entry and topic counts
 * up to date; returns how many entries were added. The run is locked first, against
 * deletion (as a foreign key would, once instead of per row) and against other writers
 * adding entries to it; an error with code 23503 (foreign_key_violation) when it does not
 * exist, and with code 23505 (unique_violation) when a document then appears twice for a
 * topic of the run.
 */
export async function insertRunEntries(
  db: Queryable,
  runId: number,
  entries: readonly RunEntry[],
  options: { chunkChars?: number } = {},
): Promise<number> {
  return withTransaction(db, async (trx) => {
    const run = await sql`select id from runs where id = ${runId} for no key update`.execute(trx);
    // What the foreign key reported when it checked each row (SQLSTATE foreign_key_violation).
    if (run.rows.length === 0)
      throw Object.assign(new Error(`run ${runId} does not exist: no entries written`), {
        code: '23503',
      });
    const written = await insertEntries(trx, runId, entries, options);
    // No index checks uniqueness (see migration 0015): the run's entries are checked once.
    await refuseRepeats(trx, runId);
    // Counted once per write (one run's entries, through its index), never on a read.
    await sql`
      update runs set
        entry_count = (select count(*) from run_entries where run_id = ${runId}),
        topic_count = (select count(distinct topic_id) from run_entries where run_id = ${runId})
      where id = ${runId}`.execute(trx);
    return written;
  });
}

function isStreamed(entries: NewRun['entries']): entries is StreamedEntries {
  return typeof (entries as Partial<StreamedEntries>).feed === 'function';
}

/**
 * Writes streamed entries with COPY: each step of the feed adds rows to the COPY text,
 * handed to the server whenever about a chunk's worth has gathered (the feed waits
 * meanwhile), so no entry outlives its chunk. Returns the entry and topic counts.
 */
async function insertStreamed(
  trx: Queryable,
  runId: number,
  entries: StreamedEntries,
  options: { chunkChars?: number },
): Promise<{ entryCount: number; topicCount: number }> {
  const chunkChars = options.chunkChars ?? COPY_CHUNK_CHARS;
  const prefix = `${runId}\t`;
  const topics = new Set<string>();
  let entryCount = 0;
  let topicId: string | undefined;
  let topicText = '';
  let parts: string[] = [];
  let size = 0;
  const add: AddRunEntry = (topic, docId, rank, score) => {
    if (topic !== topicId) {
      topicId = topic;
      topics.add(topic);
      topicText = prefix + copyText(topic) + '\t';
    }
    // Numbers: String() is the shortest text that reads back to the same double.
    const line = `${topicText}${copyText(docId)}\t${rank}\t${score}\n`;
    parts.push(line);
    size += line.length;
    entryCount++;
  };
  async function* chunks(): AsyncGenerator<string> {
    for await (const _ of entries.feed(add)) {
      if (size < chunkChars) continue;
      const chunk = parts.join('');
      parts = [];
      size = 0;
      yield chunk;
    }
    if (size > 0) yield parts.join('');
  }
  const names = ['run_id', 'topic_id', 'doc_id', 'rank', 'score'];
  try {
    await copyChunks(trx, 'run_entries', names, chunks());
  } catch (error) {
    if (!(error instanceof CopyUnsupportedError)) throw error;
    // No entry was read yet: they go in by INSERT instead, all gathered first.
    const all: RunEntry[] = [];
    for await (const _ of entries.feed((t, docId, rank, score) =>
      all.push({ topicId: t, docId, rank, score }),
    ));
    return {
      entryCount: await insertEntries(trx, runId, all, options),
      topicCount: countTopics(all),
    };
  }
  if (entries.unchecked()) {
    // No index checks uniqueness (see migration 0015): the run's entries are checked once.
    await refuseRepeats(trx, runId);
  }
  return { entryCount, topicCount: topics.size };
}

/**
 * The entries of each topic as rows, made one at a time as the bulk load reads them; throws
 * {@link duplicateEntry} at a docno repeated within its topic.
 */
function* flatten(byTopic: EntriesByTopic): Generator<RunEntry> {
  for (const [topicId, list] of byTopic) {
    const docnos = new Set<string>();
    for (const e of list) {
      const before = docnos.size;
      docnos.add(e.docno);
      if (docnos.size === before) throw duplicateEntry(topicId, e.docno);
      yield { topicId, docId: e.docno, rank: e.rank, score: e.score };
    }
  }
}

/** The entries as they are; throws {@link duplicateEntry} at a (topic, docno) seen before. */
function* checkedOnce(entries: readonly RunEntry[]): Generator<RunEntry> {
  const byTopic = new Map<string, Set<string>>();
  for (const entry of entries) {
    let docnos = byTopic.get(entry.topicId);
    if (docnos === undefined) byTopic.set(entry.topicId, (docnos = new Set()));
    const before = docnos.size;
    docnos.add(entry.docId);
    if (docnos.size === before) throw duplicateEntry(entry.topicId, entry.docId);
    yield entry;
  }
}

/** Throws {@link duplicateEntry} when a document appears twice for a topic of the run. */
async function refuseRepeats(trx: Queryable, runId: number): Promise<void> {
  const repeated = await sql<{ topic_id: string; doc_id: string }>`
    select topic_id, doc_id from run_entries where run_id = ${runId}
    group by topic_id, doc_id having count(*) > 1 limit 1`.execute(trx);
  const twice = repeated.rows[0];
  if (twice !== undefined) throw duplicateEntry(twice.topic_id, twice.doc_id);
}

/** What a unique index on (run, topic, docno) reported (SQLSTATE unique_violation). */
function duplicateEntry(topicId: string, docId: string): Error {
  return Object.assign(
    new Error(`document "${docId}" appears twice for topic "${topicId}" in the run`),
    { code: '23505' },
  );
}

/** How many topics have at least one entry. */
function countTopics(entries: EntriesByTopic | readonly RunEntry[]): number {
  if (!Array.isArray(entries)) {
    let topics = 0;
    for (const list of (entries as EntriesByTopic).values()) if (list.length > 0) topics++;
    return topics;
  }
  const seen = new Set<string>();
  for (const entry of entries as readonly RunEntry[]) seen.add(entry.topicId);
  return seen.size;
}

/** The bulk load of a run's entries, without touching its stored counts. */
function insertEntries(
  trx: Queryable,
  runId: number,
  entries: readonly RunEntry[] | Iterable<RunEntry>,
  options: { chunkChars?: number },
): Promise<number> {
  // Entries come topic by topic: a topic id is escaped once for its run of entries.
  let topicId: string | undefined;
  let topicText = '';
  return bulkCopy(trx, {
    table: 'run_entries',
    constant: { run_id: runId },
    columns: [
      { name: 'topic_id', type: 'text', value: (e: RunEntry) => e.topicId },
      { name: 'doc_id', type: 'text', value: (e) => e.docId },
      { name: 'rank', type: 'int4', value: (e) => e.rank },
      { name: 'score', type: 'float8', value: (e) => e.score },
    ],
    rows: entries,
    encode: (e) => {
      if (e.topicId !== topicId) {
        topicId = e.topicId;
        topicText = copyText(topicId);
      }
      // Numbers: String() is the shortest text that reads back to the same double.
      return `${topicText}\t${copyText(e.docId)}\t${e.rank}\t${e.score}`;
    },
    ...options,
  });
}

/** The runs of a collection with their stored entry and topic counts. */
function runSummaries(db: Queryable, collectionId: number) {
  return db.selectFrom('runs as r').selectAll('r').where('r.collection_id', '=', collectionId);
}

function toRunSummary(row: Row<'runs'>): RunSummary {
  return {
    ...toRun(row),
    entryCount: Number(row.entry_count),
    topicCount: Number(row.topic_count),
  };
}

/**
 * A collection's runs by (name, id), with entry and topic counts; given a page, those after
 * its key (name, id) and at most limit + 1 of them.
 */
export async function listRuns(
  db: Queryable,
  collectionId: number,
  page?: Seek,
): Promise<RunSummary[]> {
  const keys = [sql.ref('r.name'), sql.ref('r.id')];
  const rows = await seek(runSummaries(db, collectionId), keys, page).execute();
  return rows.map(toRunSummary);
}

/**
 * The run of a collection named by `ref`, in one query: the run whose id is `ref.id` when
 * there is one, else the run called `ref.name`.
 */
export async function findRun(
  db: Queryable,
  collectionId: number,
  ref: IdOrName,
): Promise<Run | undefined> {
  const query = db
    .selectFrom('runs as r')
    .selectAll('r')
    .where('r.collection_id', '=', collectionId);
  const row = await whereIdOrName(query, 'r', ref).executeTakeFirst();
  return row && toRun(row);
}

/** A run with its stored entry and topic counts. */
export async function getRunSummary(db: Queryable, runId: number): Promise<RunSummary | undefined> {
  const row = await db
    .selectFrom('runs as r')
    .selectAll('r')
    .where('r.id', '=', runId)
    .executeTakeFirst();
  return row && toRunSummary(row);
}

/** The run with this id (without entries), if any. */
export async function getRun(db: Queryable, runId: number): Promise<Run | undefined> {
  const row = await db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirst();
  return row && toRun(row);
}

/** The run of a collection with this name, if any. */
export async function findRunByName(
  db: Queryable,
  collectionId: number,
  name: string,
): Promise<Run | undefined> {
  const row = await db
    .selectFrom('runs')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('name', '=', name)
    .executeTakeFirst();
  return row && toRun(row);
}

/** The topics a run retrieved for, in qid byte order. */
export async function listRunTopicIds(db: Queryable, runId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('run_entries')
    .select('topic_id')
    .where('run_id', '=', runId)
    .groupBy('topic_id')
    .orderBy(sql`topic_id collate "C"`)
    .execute();
  return rows.map((r) => r.topic_id);
}

/**
 * A run's entries grouped by topic (topics in qid byte order), each topic's entries in
 * rank order, ties by score descending then docno. Optionally only some topics.
 */
export async function getRunEntries(
  db: Queryable,
  runId: number,
  options: { topicIds?: readonly string[] } = {},
): Promise<Map<string, RunEntry[]>> {
  let query = db
    .selectFrom('run_entries')
    .select(['topic_id', 'doc_id', 'rank', 'score'])
    .where('run_id', '=', runId)
    .orderBy(sql`topic_id collate "C"`)
    .orderBy('rank')
    .orderBy('score', 'desc')
    .orderBy(sql`doc_id collate "C"`);
  if (options.topicIds) {
    query = query.where(sql<boolean>`topic_id = any(${[...options.topicIds]}::text[])`);
  }
  const byTopic = new Map<string, RunEntry[]>();
  for (const row of await query.execute()) {
    let entries = byTopic.get(row.topic_id);
    if (!entries) byTopic.set(row.topic_id, (entries = []));
    entries.push({ topicId: row.topic_id, docId: row.doc_id, rank: row.rank, score: row.score });
  }
  return byTopic;
}

/** Where a page of run entries continues: the last entry of the previous page. */
export interface RunEntryKey {
  topicId: string;
  rank: number;
  score: number;
  docId: string;
}

/**
 * One page of a run's entries in the order of {@link getRunEntries} (topic byte order,
 * rank, score descending, docno byte order), starting after `after` (keyset paging: each
 * page costs the same however deep it is).
 */
export async function getRunEntryPage(
  db: Queryable,
  runId: number,
  options: { topicIds?: readonly string[]; limit: number; after?: RunEntryKey },
): Promise<RunEntry[]> {
  let query = db
    .selectFrom('run_entries')
    .select(['topic_id', 'doc_id', 'rank', 'score'])
    .where('run_id', '=', runId)
    .orderBy(sql`topic_id collate "C"`)
    .orderBy('rank')
    .orderBy('score', 'desc')
    .orderBy(sql`doc_id collate "C"`)
    .limit(options.limit);
  if (options.topicIds) {
    query = query.where(sql<boolean>`topic_id = any(${[...options.topicIds]}::text[])`);
  }
  const a = options.after;
  if (a) {
    const t = sql`topic_id collate "C"`;
    const d = sql`doc_id collate "C"`;
    query = query.where(
      sql<boolean>`(${t} > ${a.topicId} or (${t} = ${a.topicId} and (rank > ${a.rank} or (rank = ${a.rank} and (score < ${a.score} or (score = ${a.score} and ${d} > ${a.docId}))))))`,
    );
  }
  return (await query.execute()).map((row) => ({
    topicId: row.topic_id,
    docId: row.doc_id,
    rank: row.rank,
    score: row.score,
  }));
}

/** A run with all its entries grouped by topic, if the run exists. */
export async function getRunWithEntries(
  db: Queryable,
  runId: number,
): Promise<RunWithEntries | undefined> {
  const run = await getRun(db, runId);
  if (!run) return undefined;
  return { ...run, entriesByTopic: await getRunEntries(db, runId) };
}

/** Deletes a run and its entries; false if absent. */
export async function deleteRun(db: Queryable, runId: number): Promise<boolean> {
  const result = await db.deleteFrom('runs').where('id', '=', runId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
