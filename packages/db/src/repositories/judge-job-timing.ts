import { sql } from 'kysely';
import type { Queryable } from '../bulk.js';

/** When a judge job's items were finished (labelled or failed), by the database's clock. */
export interface JudgeJobTiming {
  /** The database's clock now (rates and ETAs compare against it, never a client's). */
  now: Date;
  /** Items finished (labelled or failed). */
  finished: number;
  /** When the first and the last of them were finished; null before any. */
  firstFinishedAt: Date | null;
  lastFinishedAt: Date | null;
  /** The finish times of the most recent items, newest first (at most `recent`). */
  recentFinishedAt: Date[];
}

/**
 * The finish times of a judge job's items, from its tasks' `updated_at` (set when a task
 * is labelled or fails): the first, the last, and the `recent` newest (default 50).
 */
export async function getJudgeJobTiming(
  db: Queryable,
  jobId: number,
  recent = 50,
): Promise<JudgeJobTiming> {
  const summary = await sql<{
    now: Date;
    finished: number | string;
    first: Date | null;
    last: Date | null;
  }>`
    select clock_timestamp() as now, count(*) as finished,
           min(updated_at) as first, max(updated_at) as last
      from judge_tasks
     where job_id = ${jobId} and status in ('labelled', 'failed')`.execute(db);
  const row = summary.rows[0]!;
  const latest = await db
    .selectFrom('judge_tasks')
    .select('updated_at')
    .where('job_id', '=', jobId)
    .where('status', 'in', ['labelled', 'failed'])
    .orderBy('updated_at', 'desc')
    .limit(recent)
    .execute();
  return {
    now: new Date(row.now),
    finished: Number(row.finished),
    firstFinishedAt: row.first === null ? null : new Date(row.first),
    lastFinishedAt: row.last === null ? null : new Date(row.last),
    recentFinishedAt: latest.map((r) => new Date(r.updated_at)),
  };
}
