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
  /** The public base URL of the endpoint it is judged at; null until a worker records one. */
  endpoint: string | null;
  /** Whether workers that do not name the job may claim from it (else only those that do). */
  openToWorkers: boolean;
  createdAt: Date;
}

/** Fields of a new judge job. */
export interface NewJudgeJob {
  labelSetId: number;
  judgeId: string;
  template: JsonObject;
  templateHash: string;
  settings: JsonObject;
  /** Where it is judged (public base URL); absent: recorded by the first worker to claim. */
  endpoint?: string | null;
  /** Default true. */
  openToWorkers?: boolean;
}

/**
 * What a worker may claim: the jobs it names (`jobIds`, open or not), else every job open
 * to workers; in both cases only active jobs recorded at its `endpoint` (when given) and,
 * when `models` is given, only jobs of those models.
 */
export interface JudgeClaimScope {
  jobIds?: readonly number[] | undefined;
  /** The public base URL the worker calls; absent: any endpoint (tests of the queue). */
  endpoint?: string | undefined;
  models?: readonly string[] | undefined;
}

/**
 * The one rule of which jobs a worker may claim from, over the judge_jobs row `alias`
 * (every claim and every listing of a worker's jobs uses it). A job whose endpoint is not
 * recorded matches only with `unrecorded` (a listing of what the worker would take): a
 * claim first records the worker's endpoint on such jobs ({@link recordJudgeJobEndpoints}).
 */
export function claimableJob(scope: JudgeClaimScope, alias = 'j', unrecorded = false) {
  const j = sql.table(alias);
  const whose = scope.jobIds
    ? sql`${j}.id = any(${[...scope.jobIds]}::int8[])`
    : sql`${j}.open_to_workers`;
  const where =
    scope.endpoint === undefined
      ? sql`true`
      : unrecorded
        ? sql`coalesce(${j}.endpoint, ${scope.endpoint}) = ${scope.endpoint}`
        : sql`${j}.endpoint = ${scope.endpoint}`;
  const models = scope.models
    ? sql`${j}.settings->>'model' = any(${[...scope.models]}::text[])`
    : sql`true`;
  return sql<boolean>`(${j}.status = 'active' and ${whose} and ${where} and ${models})`;
}

/**
 * Records the worker's endpoint on the jobs of its scope that have none yet, so the first
 * worker to claim from such a job decides where it is judged (concurrent workers: one
 * wins, the others then find it recorded at another endpoint). Returns how many.
 */
export async function recordJudgeJobEndpoints(
  db: Queryable,
  scope: JudgeClaimScope & { endpoint: string },
): Promise<number> {
  const result = await sql`
    update judge_jobs as j set endpoint = ${scope.endpoint}
     where j.endpoint is null and ${claimableJob({ ...scope, endpoint: undefined })}`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** Records where a job is judged from now on (the command that judges it says so). */
export async function setJudgeJobEndpoint(
  db: Queryable,
  id: number,
  endpoint: string,
): Promise<void> {
  await db.updateTable('judge_jobs').set({ endpoint }).where('id', '=', id).execute();
}

/** Opens a job to every worker at its endpoint (or reserves it for those naming it). */
export async function setJudgeJobOpenToWorkers(
  db: Queryable,
  id: number,
  open: boolean,
): Promise<void> {
  await db.updateTable('judge_jobs').set({ open_to_workers: open }).where('id', '=', id).execute();
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
    endpoint: row.endpoint,
    openToWorkers: row.open_to_workers,
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
      endpoint: input.endpoint ?? null,
      open_to_workers: input.openToWorkers ?? true,
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
 * Judge jobs, oldest first (by id); optionally only those with pending or claimable tasks
 * (`withWork`, of active jobs), only those a worker may claim from (`claimableBy`),
 * or those filling a label set of one collection. Given a page, those after its key (id)
 * and at most limit + 1 of them.
 */
export async function listJudgeJobs(
  db: Queryable,
  options: {
    withWork?: boolean;
    /** Only jobs this worker may claim from, or would once it records its endpoint. */
    claimableBy?: JudgeClaimScope;
    collectionId?: number;
    page?: Seek;
  } = {},
): Promise<JudgeJob[]> {
  let query = db.selectFrom('judge_jobs').selectAll();
  if (options.collectionId !== undefined) {
    const collectionId = options.collectionId;
    query = query.where('label_set_id', 'in', (eb) =>
      eb.selectFrom('label_sets').select('id').where('collection_id', '=', collectionId),
    );
  }
  query = seek(query, [sql.ref('id')], options.page);
  if (options.claimableBy)
    query = query.where(claimableJob(options.claimableBy, 'judge_jobs', true));
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
