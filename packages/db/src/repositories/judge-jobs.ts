import { sql } from 'kysely';
import type { Queryable } from '../bulk.js';
import type { JsonObject, Row } from '../schema.js';
import { seek, type Seek } from '../keyset.js';

/** A judge job: a judge configuration writing one LLM label set. */
export interface JudgeJob {
  id: number;
  labelSetId: number;
  judgeId: string;
  /** The judge template as JSON (exactly what workers render). */
  template: JsonObject;
  templateHash: string;
  /** Model settings (model, temperature, max tokens …). */
  settings: JsonObject;
  status: 'active' | 'paused';
  createdAt: Date;
}

/** Fields of a new judge job. */
export interface NewJudgeJob {
  labelSetId: number;
  judgeId: string;
  template: JsonObject;
  templateHash: string;
  settings: JsonObject;
}

function toJudgeJob(row: Row<'judge_jobs'>): JudgeJob {
  return {
    id: row.id,
    labelSetId: row.label_set_id,
    judgeId: row.judge_id,
    template: row.template,
    templateHash: row.template_hash,
    settings: row.settings,
    status: row.status,
    createdAt: row.created_at,
  };
}

/** Creates a judge job for a label set (one job per label set). */
export async function createJudgeJob(db: Queryable, input: NewJudgeJob): Promise<JudgeJob> {
  const row = await db
    .insertInto('judge_jobs')
    .values({
      label_set_id: input.labelSetId,
      judge_id: input.judgeId,
      template: input.template,
      template_hash: input.templateHash,
      settings: input.settings,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toJudgeJob(row);
}

/** The judge job with this id, if any. */
export async function getJudgeJob(db: Queryable, id: number): Promise<JudgeJob | undefined> {
  const row = await db.selectFrom('judge_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toJudgeJob(row);
}

/** The judge job writing this label set, if any. */
export async function findJudgeJobByLabelSet(
  db: Queryable,
  labelSetId: number,
): Promise<JudgeJob | undefined> {
  const row = await db
    .selectFrom('judge_jobs')
    .selectAll()
    .where('label_set_id', '=', labelSetId)
    .executeTakeFirst();
  return row && toJudgeJob(row);
}

/**
 * Judge jobs, oldest first (by id); optionally only those with pending or claimable tasks,
 * or those filling a label set of one collection. Given a page, those after its key (id)
 * and at most limit + 1 of them.
 */
export async function listJudgeJobs(
  db: Queryable,
  options: { withWork?: boolean; collectionId?: number; page?: Seek } = {},
): Promise<JudgeJob[]> {
  let query = db.selectFrom('judge_jobs').selectAll();
  if (options.collectionId !== undefined) {
    const collectionId = options.collectionId;
    query = query.where('label_set_id', 'in', (eb) =>
      eb.selectFrom('label_sets').select('id').where('collection_id', '=', collectionId),
    );
  }
  query = seek(query, [sql.ref('id')], options.page);
  if (options.withWork) {
    query = query.where('status', '=', 'active').where((eb) =>
      eb.exists(
        eb
          .selectFrom('judge_tasks as t')
          .select(sql`1`.as('one'))
          .whereRef('t.job_id', '=', 'judge_jobs.id')
          .where(
            sql<boolean>`(t.status = 'pending' or (t.status = 'running' and t.lease_expires_at < now()))`,
          ),
      ),
    );
  }
  return (await query.execute()).map(toJudgeJob);
}

/** Sets a job's status: paused jobs are never claimed from. */
export async function setJudgeJobStatus(
  db: Queryable,
  id: number,
  status: 'active' | 'paused',
): Promise<boolean> {
  const result = await db
    .updateTable('judge_jobs')
    .set({ status })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
