import { bulkInsert, withTransaction, type Queryable } from '../bulk.js';
import type { JsonObject } from '../schema.js';

/** One stored trace entry of a run: a generated text (or the query built) of one topic. */
export interface RunTraceEntry {
  /** Place in the run's trace, from 0. */
  position: number;
  topicId: string;
  step: string;
  /** The whole entry as the method traced it (topic, method, step, text, prompt …). */
  entry: JsonObject;
}

/** Stores a run's trace in order (positions 0, 1, …); returns how many entries. */
export function insertRunTrace(
  db: Queryable,
  runId: number,
  entries: readonly { topicId: string; step: string; entry: JsonObject }[],
): Promise<number> {
  const rows = entries.map((e, position) => ({ ...e, position }));
  return withTransaction(db, (trx) =>
    bulkInsert(trx, {
      table: 'run_traces',
      constant: { run_id: runId },
      columns: [
        { name: 'position', type: 'int4', value: (r: (typeof rows)[number]) => r.position },
        { name: 'topic_id', type: 'text', value: (r) => r.topicId },
        { name: 'step', type: 'text', value: (r) => r.step },
        { name: 'entry', type: 'jsonb', value: (r) => r.entry },
      ],
      rows,
    }),
  );
}

/**
 * A page of a run's trace in order: entries after position `after` (exclusive), at most
 * `limit`, optionally only one topic's.
 */
export async function listRunTrace(
  db: Queryable,
  runId: number,
  options: { limit: number; after?: number; topicId?: string },
): Promise<RunTraceEntry[]> {
  let query = db
    .selectFrom('run_traces')
    .select(['position', 'topic_id', 'step', 'entry'])
    .where('run_id', '=', runId)
    .orderBy('position')
    .limit(options.limit);
  if (options.after !== undefined) query = query.where('position', '>', options.after);
  if (options.topicId !== undefined) query = query.where('topic_id', '=', options.topicId);
  const rows = await query.execute();
  return rows.map((r) => ({
    position: r.position,
    topicId: r.topic_id,
    step: r.step,
    entry: r.entry,
  }));
}
