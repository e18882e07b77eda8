import { sql, type ExpressionBuilder } from 'kysely';
import { bulkInsert, withTransaction, type Queryable } from '../bulk.js';
import type { Database, JsonObject, JudgeTaskStatus, Row } from '../schema.js';
import { seek, type Seek } from '../keyset.js';
import { insertJudgedLabels } from './label-writer.js';
import { claimableJob, recordJudgeJobEndpoints, type JudgeClaimScope } from './judge-jobs.js';

/** A pool item to judge: its key, priority and the values its prompt renders. */
export interface JudgeTaskInput {
  topicId: string;
  docId: string;
  /** Judging priority, lower first (the pool's order). */
  position: number;
  values: JsonObject;
}

/** The key of a task. */
export interface JudgeTaskKey {
  jobId: number;
  topicId: string;
  docId: string;
}

/** A task a worker has claimed: it holds the lease until it completes, fails or releases it. */
export interface ClaimedJudgeTask extends JudgeTaskKey {
  position: number;
  values: JsonObject;
  /** Times the task has been claimed, this claim included. */
  attempts: number;
  /** Times it failed and was put back for another try (0 on its first try). */
  retries: number;
  leaseExpiresAt: Date;
}

/** A task as stored. */
export interface JudgeTask extends JudgeTaskKey {
  position: number;
  values: JsonObject;
  status: JudgeTaskStatus;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  attempts: number;
  /** Times it failed and was put back for another try. */
  retries: number;
  grade: number | null;
  rationale: string | null;
  distribution: JsonObject | null;
  raw: string | null;
  error: string | null;
  callHash: string | null;
  costUsd: number;
  updatedAt: Date;
}

/** How many tasks of a job are in each state, and what the job has cost so far. */
export interface JudgeTaskCounts {
  total: number;
  pending: number;
  running: number;
  labelled: number;
  failed: number;
  /**
   * Items pending or running whose last call timed out (the worker noted it while trying
   * again, or before putting the item back): the endpoint does not answer in time.
   */
  timedOut: number;
  /** USD paid so far; null when calls were answered by a model with no price (cost unknown). */
  costUsd: number | null;
}

/** What a worker writes when an item got its grade. */
export interface JudgeTaskLabel {
  grade: number;
  /** Who produced the label (the model name). */
  producedBy: string;
  rationale?: string | null;
  distribution?: JsonObject | null;
  callHash?: string | null;
  /** USD paid for this item by this claim (retries and re-asks included). */
  costUsd?: number;
}

/** What a worker writes when an item cannot be labelled. */
export interface JudgeTaskFailure {
  error: string;
  /** The unreadable answer, when there was one. */
  raw?: string | null;
  callHash?: string | null;
  costUsd?: number;
}

function toJudgeTask(row: Row<'judge_tasks'>): JudgeTask {
  return {
    jobId: row.job_id,
    topicId: row.topic_id,
    docId: row.doc_id,
    position: row.position,
    values: row.values,
    status: row.status,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    attempts: row.attempts,
    retries: row.retries,
    grade: row.grade,
    rationale: row.rationale,
    distribution: row.distribution,
    raw: row.raw,
    error: row.error,
    callHash: row.call_hash,
    costUsd: row.cost_usd,
    updatedAt: row.updated_at,
  };
}

/**
 * Adds tasks to a job, skipping items it already has (idempotent: the same pool added
 * twice adds nothing). Returns how many were new.
 */
export async function insertJudgeTasks(
  db: Queryable,
  jobId: number,
  tasks: readonly JudgeTaskInput[],
): Promise<number> {
  return withTransaction(db, (trx) =>
    bulkInsert(trx, {
      table: 'judge_tasks',
      constant: { job_id: jobId },
      columns: [
        { name: 'topic_id', type: 'text', value: (t: JudgeTaskInput) => t.topicId },
        { name: 'doc_id', type: 'text', value: (t) => t.docId },
        { name: 'position', type: 'int4', value: (t) => t.position },
        { name: 'values', type: 'jsonb', value: (t) => t.values },
      ],
      rows: tasks,
      suffix: 'on conflict (job_id, topic_id, doc_id) do nothing',
      batchSize: 5_000,
    }),
  );
}

/**
 * A job's tasks in priority order (position, then topic and docno in byte order); optionally
 * only those in some states. Given a page, those after its key (position, topic, docno) and
 * at most limit + 1 of them.
 */
export async function listJudgeTasks(
  db: Queryable,
  jobId: number,
  options: { status?: readonly JudgeTaskStatus[]; page?: Seek } = {},
): Promise<JudgeTask[]> {
  let query = db.selectFrom('judge_tasks').selectAll().where('job_id', '=', jobId);
  if (options.status) query = query.where('status', 'in', [...options.status]);
  const keys = [sql.ref('position'), sql`topic_id collate "C"`, sql`doc_id collate "C"`];
  return (await seek(query, keys, options.page).execute()).map(toJudgeTask);
}

/**
 * The try each of a job's items is on, for the items past their first: those retried, and
 * those failed (the next run retries them). `retries` counts the retries so far.
 */
export async function listRetriedJudgeTasks(
  db: Queryable,
  jobId: number,
): Promise<Array<{ topicId: string; docId: string; status: JudgeTaskStatus; retries: number }>> {
  const rows = await db
    .selectFrom('judge_tasks')
    .select(['topic_id', 'doc_id', 'status', 'retries'])
    .where('job_id', '=', jobId)
    .where((eb) => eb.or([eb('retries', '>', 0), eb('status', '=', 'failed')]))
    .execute();
  return rows.map((r) => ({
    topicId: r.topic_id,
    docId: r.doc_id,
    status: r.status,
    retries: r.retries,
  }));
}

/** How many of a job's tasks are in each state, and their cost so far. */
export async function countJudgeTasks(db: Queryable, jobId: number): Promise<JudgeTaskCounts> {
  const rows = await db
    .selectFrom('judge_tasks')
    .select((eb) => [
      'status',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string>('cost_usd').as('cost'),
      eb.fn.count<number | string>('error').as('noted'),
    ])
    .where('job_id', '=', jobId)
    .groupBy('status')
    .execute();
  const counts: JudgeTaskCounts = {
    total: 0,
    pending: 0,
    running: 0,
    labelled: 0,
    failed: 0,
    timedOut: 0,
    costUsd: 0,
  };
  let cost = 0;
  for (const row of rows) {
    counts[row.status] = Number(row.n);
    counts.total += Number(row.n);
    cost += Number(row.cost ?? 0);
    // A pending or running task carries an error only as the note of a timed-out try.
    if (row.status === 'pending' || row.status === 'running') counts.timedOut += Number(row.noted);
  }
  counts.costUsd = (await hasUnpricedAnswers(db, jobId)) ? null : cost;
  return counts;
}

/** What a job's items cost: items labelled, model requests made (every attempt) and dollars. */
export async function judgeJobUsage(
  db: Queryable,
  jobId: number,
): Promise<{ items: number; calls: number; costUsd: number }> {
  const row = await db
    .selectFrom('judge_tasks')
    .select((eb) => [
      eb.fn.sum<number | string>(sql`case when status = 'labelled' then 1 else 0 end`).as('items'),
      eb.fn.sum<number | string>('attempts').as('calls'),
      eb.fn.sum<number | string>('cost_usd').as('cost'),
    ])
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  return {
    items: Number(row?.items ?? 0),
    calls: Number(row?.calls ?? 0),
    costUsd: Number(row?.cost ?? 0),
  };
}

/**
 * Whether an item of the job was answered by a call with no price (its model was not in
 * the price table): the job's cost is then unknown, not the sum of the priced calls. Only
 * items that cost nothing are looked at (a priced answer always costs something).
 */
async function hasUnpricedAnswers(db: Queryable, jobId: number): Promise<boolean> {
  const row = await sql<{ unpriced: boolean }>`
    select exists (
      select 1 from judge_tasks t
        join llm_calls c on c.hash = t.call_hash and c.response is not null
       where t.job_id = ${jobId}::int8 and t.status in ('labelled', 'failed')
         and t.cost_usd = 0 and c.cost_usd is null) as unpriced`.execute(db);
  return row.rows[0]?.unpriced === true;
}

/** What a claim takes: how many tasks, for whom and for how long, from which jobs. */
export interface JudgeClaimOptions extends JudgeClaimScope {
  owner: string;
  leaseMs: number;
  limit: number;
}

/**
 * Claims up to `limit` tasks for `owner`: first running ones whose lease has expired (their
 * worker died), then pending ones in priority order, from the jobs the worker may claim
 * from (`claimableJob`: active; named in `jobIds`, else open to workers; recorded at its
 * `endpoint`, which is first recorded on the jobs that have none; of its `models`).
 * `FOR UPDATE SKIP LOCKED` lets any number of workers claim at once without waiting on
 * each other or ever getting the same task. The lease runs `leaseMs` on the database clock.
 */
export async function claimJudgeTasks(
  db: Queryable,
  options: JudgeClaimOptions,
): Promise<ClaimedJudgeTask[]> {
  if (options.limit <= 0) return [];
  if (options.endpoint !== undefined)
    await recordJudgeJobEndpoints(db, { ...options, endpoint: options.endpoint });
  const expired = await claimWhere(
    db,
    options,
    options.limit,
    sql`c.status = 'running' and c.lease_expires_at < now()`,
  );
  const pending =
    expired.length < options.limit
      ? await claimWhere(db, options, options.limit - expired.length, sql`c.status = 'pending'`)
      : [];
  return [...expired, ...pending];
}

async function claimWhere(
  db: Queryable,
  options: JudgeClaimOptions,
  limit: number,
  condition: ReturnType<typeof sql>,
): Promise<ClaimedJudgeTask[]> {
  // The jobs named again on the tasks themselves, so the planner can pick them by job.
  const jobFilter = options.jobIds
    ? sql`and c.job_id = any(${[...options.jobIds]}::int8[])`
    : sql``;
  const result = await sql<{
    job_id: number;
    topic_id: string;
    doc_id: string;
    position: number;
    values: JsonObject;
    attempts: number;
    retries: number;
    lease_expires_at: Date;
  }>`
    update judge_tasks t
       set status = 'running',
           lease_owner = ${options.owner},
           lease_expires_at = now() + ${options.leaseMs}::float8 * interval '1 millisecond',
           attempts = t.attempts + 1,
           updated_at = now()
      from (select c.job_id, c.topic_id, c.doc_id
              from judge_tasks c
             where ${condition} ${jobFilter}
               and exists (select 1 from judge_jobs j where j.id = c.job_id and ${claimableJob(options)})
             order by c.position, c.job_id
             limit ${limit}
             for update of c skip locked) picked
     where t.job_id = picked.job_id and t.topic_id = picked.topic_id and t.doc_id = picked.doc_id
    returning t.job_id, t.topic_id, t.doc_id, t.position, t."values", t.attempts, t.retries,
              t.lease_expires_at`.execute(db);
  return result.rows
    .map((row) => ({
      jobId: Number(row.job_id),
      topicId: row.topic_id,
      docId: row.doc_id,
      position: row.position,
      values: row.values,
      attempts: row.attempts,
      retries: row.retries,
      leaseExpiresAt: new Date(row.lease_expires_at),
    }))
    .sort((a, b) => a.position - b.position);
}

/** Extends the leases `owner` holds by `leaseMs` from now; returns how many it still holds. */
export async function renewJudgeTaskLeases(
  db: Queryable,
  owner: string,
  leaseMs: number,
): Promise<number> {
  const result = await db
    .updateTable('judge_tasks')
    .set({
      lease_expires_at: sql`now() + ${leaseMs}::float8 * interval '1 millisecond'`,
    })
    .where('status', '=', 'running')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Puts `owner`'s running tasks (all, or only `keys`) back to pending, so another worker
 * can take them at once instead of waiting for the lease to expire.
 */
export async function releaseJudgeTasks(
  db: Queryable,
  owner: string,
  keys?: readonly JudgeTaskKey[],
): Promise<number> {
  if (keys && keys.length === 0) return 0;
  let query = db
    .updateTable('judge_tasks')
    .set({ status: 'pending', lease_owner: null, lease_expires_at: null, updated_at: sql`now()` })
    .where('status', '=', 'running')
    .where('lease_owner', '=', owner);
  if (keys) {
    query = query.where((eb) =>
      eb.or(
        keys.map((k) =>
          eb.and([
            eb('job_id', '=', k.jobId),
            eb('topic_id', '=', k.topicId),
            eb('doc_id', '=', k.docId),
          ]),
        ),
      ),
    );
  }
  return Number((await query.executeTakeFirst()).numUpdatedRows);
}

/** The items left in one judge job, as a worker that ran out of work sees them. */
export interface JudgeWorkLeft {
  jobId: number;
  status: 'active' | 'paused';
  model: string;
  endpoint: string | null;
  openToWorkers: boolean;
  /** Whether the worker's scope may claim from the job (claimableJob, endpoint unrecorded counts). */
  claimable: boolean;
  pending: number;
  /** Items running under another owner's lease, and of those the ones whose lease has ended. */
  heldByOthers: number;
  leaseEnded: number;
  /** Seconds until the last of those leases ends, by the database's clock (null: none held). */
  lastLeaseEndsInSeconds: number | null;
}

/**
 * Every judge job with items pending or running, oldest first: how many are pending, how
 * many other owners than `owner` hold (their leases: a dead worker's end, and its items
 * are claimed again) and whether `scope` may claim from the job at all.
 */
export async function listJudgeWorkLeft(
  db: Queryable,
  scope: JudgeClaimScope,
  owner: string,
): Promise<JudgeWorkLeft[]> {
  const held = sql`t.status = 'running' and t.lease_owner is distinct from ${owner}::text`;
  const result = await sql<{
    id: number | string;
    status: 'active' | 'paused';
    model: string;
    endpoint: string | null;
    open_to_workers: boolean;
    claimable: boolean;
    pending: number | string;
    held: number | string;
    ended: number | string;
    ends_in: number | string | null;
  }>`
    select j.id, j.status, j.settings->>'model' as model, j.endpoint, j.open_to_workers,
           ${claimableJob(scope, 'j', true)} as claimable,
           count(*) filter (where t.status = 'pending') as pending,
           count(*) filter (where ${held}) as held,
           count(*) filter (where ${held} and t.lease_expires_at < now()) as ended,
           extract(epoch from max(t.lease_expires_at) filter (where ${held}) - now()) as ends_in
      from judge_jobs j join judge_tasks t on t.job_id = j.id
     where t.status in ('pending', 'running')
     group by j.id
     order by j.id`.execute(db);
  return result.rows.map((r) => ({
    jobId: Number(r.id),
    status: r.status,
    model: r.model,
    endpoint: r.endpoint,
    openToWorkers: r.open_to_workers,
    claimable: r.claimable,
    pending: Number(r.pending),
    heldByOthers: Number(r.held),
    leaseEnded: Number(r.ended),
    lastLeaseEndsInSeconds: r.ends_in === null ? null : Number(r.ends_in),
  }));
}

/** Owners of running tasks (of one job, or all), with how many each holds. */
export async function listJudgeLeaseOwners(
  db: Queryable,
  jobId?: number,
): Promise<Array<{ owner: string; tasks: number }>> {
  let query = db
    .selectFrom('judge_tasks')
    .select((eb) => ['lease_owner', eb.fn.countAll<number | string>().as('n')])
    .where('status', '=', 'running')
    .groupBy('lease_owner')
    .orderBy('lease_owner');
  if (jobId !== undefined) query = query.where('job_id', '=', jobId);
  return (await query.execute()).map((r) => ({ owner: r.lease_owner!, tasks: Number(r.n) }));
}

/**
 * Puts a job's failed tasks back to pending for another try, counting the try in `retries`
 * (the next try asks with attempt numbers of its own); returns how many. The answers of
 * the failed tries stay in llm_calls.
 */
export async function retryFailedJudgeTasks(db: Queryable, jobId: number): Promise<number> {
  const result = await db
    .updateTable('judge_tasks')
    .set({
      status: 'pending',
      error: null,
      raw: null,
      retries: sql`retries + 1`,
      updated_at: sql`now()`,
    })
    .where('job_id', '=', jobId)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Records a task's label: the task becomes `labelled` and the grade goes into the job's
 * label set, in one transaction, only while `owner` still holds the task's lease. A worker
 * whose lease was taken over gets false and writes nothing, so an item is never labelled
 * twice. A judge job's label set never stores its counts (counted on read, see migration
 * 0009), so the label set's row is not touched.
 */
export async function completeJudgeTask(
  db: Queryable,
  key: JudgeTaskKey,
  owner: string,
  label: JudgeTaskLabel,
): Promise<boolean> {
  return withTransaction(db, async (trx) => {
    const updated = await trx
      .updateTable('judge_tasks')
      .set({
        status: 'labelled',
        grade: label.grade,
        rationale: label.rationale ?? null,
        distribution: label.distribution ?? null,
        call_hash: label.callHash ?? null,
        cost_usd: sql`cost_usd + ${label.costUsd ?? 0}::float8`,
        lease_owner: null,
        lease_expires_at: null,
        error: null,
        raw: null,
        updated_at: sql`now()`,
      })
      .where(heldBy(key, owner))
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    await insertJudgedLabels(
      sql`select ${key.jobId}::int8 as job_id, ${key.topicId}::text as topic_id,
                 ${key.docId}::text as doc_id, ${label.grade}::int4 as grade,
                 ${label.producedBy}::text as produced_by, ${label.rationale ?? null}::text as rationale`,
    ).execute(trx);
    return true;
  });
}

/** The task `key` while it is running under `owner`'s lease (a lost lease matches nothing). */
function heldBy(key: JudgeTaskKey, owner: string) {
  return (eb: ExpressionBuilder<Database, 'judge_tasks'>) =>
    eb.and([
      eb('job_id', '=', key.jobId),
      eb('topic_id', '=', key.topicId),
      eb('doc_id', '=', key.docId),
      eb('status', '=', 'running'),
      eb('lease_owner', '=', owner),
    ]);
}

/**
 * Notes on a running task, while `owner` holds its lease, that its last call timed out
 * (`note` says so): counted as timed out until it is labelled or failed, also once put back
 * to pending. False when the lease was lost.
 */
export async function noteJudgeTaskTimeout(
  db: Queryable,
  key: JudgeTaskKey,
  owner: string,
  note: string,
): Promise<boolean> {
  const updated = await db
    .updateTable('judge_tasks')
    .set({ error: note })
    .where(heldBy(key, owner))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * Records that a task could not be labelled (with the reason and any unreadable answer),
 * only while `owner` still holds its lease; false when the lease was lost.
 */
export async function failJudgeTask(
  db: Queryable,
  key: JudgeTaskKey,
  owner: string,
  failure: JudgeTaskFailure,
): Promise<boolean> {
  const updated = await db
    .updateTable('judge_tasks')
    .set({
      status: 'failed',
      error: failure.error,
      raw: failure.raw ?? null,
      call_hash: failure.callHash ?? null,
      cost_usd: sql`cost_usd + ${failure.costUsd ?? 0}::float8`,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: sql`now()`,
    })
    .where(heldBy(key, owner))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * Records many tasks' labels in one statement: each task becomes `labelled` and its grade
 * goes into its job's label set, only for the tasks `owner` still holds. Returns the keys
 * written (`jobId topicId docId`, tab-separated); the others lost their lease. As
 * completeJudgeTask, it leaves the label set's row (and its counts, counted on read) alone.
 */
export async function completeJudgeTasks(
  db: Queryable,
  owner: string,
  entries: ReadonlyArray<{ key: JudgeTaskKey; label: JudgeTaskLabel }>,
): Promise<Set<string>> {
  const written = new Set<string>();
  if (entries.length === 0) return written;
  const column = <T>(f: (e: (typeof entries)[number]) => T) => entries.map(f);
  const result = await sql<{ job_id: number; topic_id: string; doc_id: string }>`
    with v as (
      select * from unnest(
        ${column((e) => e.key.jobId)}::int8[], ${column((e) => e.key.topicId)}::text[],
        ${column((e) => e.key.docId)}::text[], ${column((e) => e.label.grade)}::int4[],
        ${column((e) => e.label.producedBy)}::text[], ${column((e) => e.label.rationale ?? null)}::text[],
        ${column((e) => (e.label.distribution ? JSON.stringify(e.label.distribution) : null))}::text[],
        ${column((e) => e.label.callHash ?? null)}::text[], ${column((e) => e.label.costUsd ?? 0)}::float8[]
      ) as v(job_id, topic_id, doc_id, grade, produced_by, rationale, distribution, call_hash, cost_usd)
    ), done as (
      update judge_tasks t
         set status = 'labelled', grade = v.grade, rationale = v.rationale,
             distribution = v.distribution::jsonb, call_hash = v.call_hash,
             cost_usd = t.cost_usd + v.cost_usd, lease_owner = null, lease_expires_at = null,
             error = null, raw = null, updated_at = now()
        from v
       where t.job_id = v.job_id and t.topic_id = v.topic_id and t.doc_id = v.doc_id
         and t.status = 'running' and t.lease_owner = ${owner}
      returning t.job_id, t.topic_id, t.doc_id, t.grade, t.rationale
    ), labelled as (${insertJudgedLabels(
      sql`select d.job_id, d.topic_id, d.doc_id, d.grade, v.produced_by, d.rationale
            from done d
            join v on v.job_id = d.job_id and v.topic_id = d.topic_id and v.doc_id = d.doc_id`,
    )})
    select job_id, topic_id, doc_id from done`.execute(db);
  for (const row of result.rows)
    written.add(`${Number(row.job_id)}\t${row.topic_id}\t${row.doc_id}`);
  return written;
}
