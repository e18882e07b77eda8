import {
  countJudgeTasks,
  getCollection,
  getDocuments,
  getJudgeJob,
  listJudgeTasks,
  getLabelSet,
  listJudgeJobs,
  listLabelSets,
  listTopics,
  retryFailedJudgeTasks,
  setJudgeJobStatus,
  withTransaction,
  type Collection,
  type JudgeClaimScope,
  type JudgeJob,
  type JudgeTaskCounts,
  type Queryable,
} from '@assay/db';
import { type JudgeSettings, type JudgeTemplate } from '@assay/judge';
import { DEFAULT_PRICES, hasPrice, type ModelPrice } from '@assay/llm';
import { PlatformError } from '../core/errors.js';
import { checkNewName } from '../core/names.js';
import { poolPairs, type CollectionPoolSpec } from '../catalog/pools.js';
import { NOTHING_LEFT_OUT, type LeftOutPairs } from '../catalog/held-pairs.js';
import { ensureJudgeJob, refuseBlankDocuments, type JudgeItemInput } from './ensure-job.js';
import { checkRelevanceTemplate, judgeValues, loadJudgeTemplate } from './templates.js';
import { readJudgeJobPace, type JudgeJobPace } from './job-timing.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import {
  LARGE_PAGE,
  pageOf,
  seekPage,
  SMALL_PAGE,
  type Page,
  type PageOptions,
} from '../core/paging.js';

/** Model settings of a job made through the API (the model may come from configuration). */
export interface JudgeJobSettings {
  model?: string;
  temperature?: number;
  maxTokens?: number;
  structuredOutput?: boolean;
  logprobs?: boolean;
}

/** A judge job over a stored collection: its label set, judge, model and items. */
export interface CreateCollectionJudgeJobInput {
  collection: CollectionRef;
  /** Name of the LLM label set the job writes (created with the job). */
  labelSet: string;
  /** Id of a relevance judge template of the judges folder (e.g. `graded-0-3`). */
  judge: string;
  settings: JudgeJobSettings;
  /** Model when settings.model is absent (e.g. ASSAY_JUDGE_MODEL); else the template's. */
  defaultModel?: string;
  /** Items from a pool of stored runs … */
  pool?: CollectionPoolSpec;
  /** … or given (topic, document) pairs, in judging order. */
  items?: Array<{ topicId: string; docId: string }>;
  /** Pause the job (true) or make it claimable (false); absent leaves an existing job as is. */
  paused?: boolean;
  /** Folder of judge templates (default: the shipped `judges/`). */
  judgesDir?: string;
  /**
   * Where the job is judged (judgeEndpointIdentity of the server's configuration); absent
   * (a server without an endpoint): the first worker that claims from it records its own.
   */
  endpoint?: string | undefined;
  /** The price table the job's cost is told by (default: the list prices). */
  prices?: Prices | undefined;
}

/** A price table (USD per million tokens, by model), as loadPrices reads it. */
type Prices = Readonly<Record<string, ModelPrice>>;

/** A judge job as the API shows it: no template text, no secrets. */
export interface JudgeJobSummary {
  id: number;
  collection: string;
  labelSet: { id: number; name: string };
  judgeId: string;
  templateHash: string;
  model: string;
  settings: Record<string, unknown>;
  /** The endpoint it is judged at (public base URL); null until a worker records one. */
  endpoint: string | null;
  /** Whether any worker at that endpoint may claim its items (else only workers naming it). */
  openToWorkers: boolean;
  /** `done` once every item is labelled or failed; else `active` or `paused` as set. */
  status: JudgeJobPace['status'];
  createdAt: Date;
  /**
   * Tasks per state and what they cost: `costUsd` is null (unknown) from the job's creation
   * on when its model has no price, a number when it has one.
   */
  progress: JudgeTaskCounts;
  /** When the last item finished (done jobs); the rate and ETA (see JudgeJobPace). */
  finishedAt: Date | null;
  itemsPerSecond: number | null;
  etaSeconds: number | null;
}

/** The job createCollectionJudgeJob found or made, and how many items it added. */
export interface CreateCollectionJudgeJobResult {
  job: JudgeJobSummary;
  /** True when the label set and job were created by this call. */
  created: boolean;
  /** Items added by this call (those the job did not have yet). */
  added: number;
  /**
   * The pool's pairs the collection does not hold, left out as the pool API leaves them
   * out (nothing for given items, which must all be held).
   */
  leftOut: LeftOutPairs;
}

/**
 * Creates (or extends) the judge job writing an LLM label set of a stored collection: the
 * judge template comes from the judges folder by id, the items from a pool of stored runs
 * (the pairs the collection holds, as the pool API keeps them, with what it left out) or a
 * given list, and each item's prompt values from the collection's stored topics and
 * documents. An item whose topic or document text is not stored refuses the whole call
 * (nothing written). Posting the same job again adds only items it does not have.
 */
export async function createCollectionJudgeJob(
  db: Queryable,
  input: CreateCollectionJudgeJobInput,
): Promise<CreateCollectionJudgeJobResult> {
  const labelSet = checkNewName(input.labelSet, 'label set name');
  if ((input.pool === undefined) === (input.items === undefined))
    throw new PlatformError('invalid_input', 'give either a pool or items, not both or neither');
  const template = loadJudgeTemplate(input.judge, input.judgesDir);
  checkRelevanceTemplate(template);
  const model = input.settings.model ?? input.defaultModel ?? template.model.name;
  if (!model)
    throw new PlatformError(
      'invalid_input',
      'no model: give settings.model (or set ASSAY_JUDGE_MODEL on the server)',
    );
  const settings: JudgeSettings = { model };
  const { temperature, maxTokens, structuredOutput, logprobs } = input.settings;
  if (temperature !== undefined) settings.temperature = temperature;
  if (maxTokens !== undefined) settings.maxTokens = maxTokens;
  if (structuredOutput !== undefined) settings.structuredOutput = structuredOutput;
  if (logprobs !== undefined) settings.logprobs = logprobs;

  const collection = await resolveCollection(db, input.collection);
  // The same pool means the same items everywhere: a pool's pairs whose topic or document
  // the collection does not hold are left out here as POST …/pools leaves them out.
  const { pairs, leftOut } = input.pool
    ? await poolPairs(db, collection, input.pool, 'held')
    : { pairs: input.items ?? [], leftOut: NOTHING_LEFT_OUT };
  if (pairs.length === 0)
    throw new PlatformError('invalid_input', 'there is nothing to judge: the pool is empty');
  const items = await itemValues(db, collection, template, pairs);
  return withTransaction(db, async (trx) => {
    const ensured = await ensureJudgeJob(trx, {
      collection: collection.name,
      labelSet,
      template,
      settings,
      items,
      endpoint: input.endpoint,
    });
    if (input.paused !== undefined)
      await setJudgeJobStatus(trx, ensured.job.id, input.paused ? 'paused' : 'active');
    return {
      job: await judgeJobStatus(trx, ensured.job.id, input.prices),
      created: ensured.created,
      added: ensured.added,
      leftOut,
    };
  });
}

/** Each pair's prompt values from the stored topic and document; all must be stored. */
async function itemValues(
  db: Queryable,
  collection: Collection,
  template: JudgeTemplate,
  pairs: ReadonlyArray<{ topicId: string; docId: string }>,
): Promise<JudgeItemInput[]> {
  const topics = new Map((await listTopics(db, collection.id)).map((t) => [t.topicId, t]));
  const docs = await getDocuments(
    db,
    collection.id,
    pairs.map((p) => p.docId),
  );
  const items: JudgeItemInput[] = [];
  const missing: string[] = [];
  const blank: Array<{ topicId: string; docId: string }> = [];
  for (const { topicId, docId } of pairs) {
    const topic = topics.get(topicId);
    const doc = docs.get(docId);
    if (!topic || !doc) {
      missing.push(`${topicId}/${docId} (no ${!topic ? 'topic' : 'document'})`);
      continue;
    }
    if (doc.text.trim() === '') blank.push({ topicId, docId });
    items.push({
      topicId,
      docId,
      values: judgeValues(
        template,
        {
          query: topic.query,
          description: topic.description ?? undefined,
          narrative: topic.narrative ?? undefined,
          context: topic.context,
        },
        { title: doc.title ?? undefined, text: doc.text },
      ),
    });
  }
  if (missing.length > 0)
    throw new PlatformError(
      'invalid_input',
      `${missing.length} of ${pairs.length} items have no stored topic or document text in collection "${collection.name}", e.g. ${missing.slice(0, 5).join(', ')}; import them first`,
      { missing: missing.length },
    );
  refuseBlankDocuments(blank, pairs.length);
  return items;
}

/**
 * A judge job with its label set, model, status and progress, its cost told by `prices`
 * (default: the list prices); not_found when absent.
 */
export async function judgeJobStatus(
  db: Queryable,
  id: number,
  prices: Prices = DEFAULT_PRICES,
): Promise<JudgeJobSummary> {
  const job = Number.isSafeInteger(id) ? await getJudgeJob(db, id) : undefined;
  if (!job) throw new PlatformError('not_found', `no judge job ${id}`);
  const labelSet = await getLabelSet(db, job.labelSetId);
  const collection = labelSet && (await getCollection(db, labelSet.collectionId));
  if (!labelSet || !collection) throw new PlatformError('not_found', `no judge job ${id}`);
  return summarise(job, collection.name, labelSet, db, prices);
}

async function summarise(
  job: JudgeJob,
  collection: string,
  labelSet: { id: number; name: string },
  db: Queryable,
  prices: Prices,
): Promise<JudgeJobSummary> {
  const progress = await judgeJobProgress(db, job.id);
  // A priced answer always costs something, so 0 means no priced call was paid: for a model
  // without a price the cost is unknown from the start, not 0 until its first answer.
  if (progress.costUsd === 0 && !hasPrice(String(job.settings.model), prices))
    progress.costUsd = null;
  const pace = await readJudgeJobPace(db, job.id, job.status, progress);
  return {
    id: job.id,
    collection,
    labelSet: { id: labelSet.id, name: labelSet.name },
    judgeId: job.judgeId,
    templateHash: job.templateHash,
    model: String(job.settings.model),
    settings: { ...job.settings },
    endpoint: job.endpoint,
    openToWorkers: job.openToWorkers,
    createdAt: job.createdAt,
    progress,
    ...pace,
  };
}

/**
 * A page of the judge jobs of a collection, oldest first (by id), each with its progress
 * (its cost told by `prices`, see judgeJobStatus).
 */
export async function listCollectionJudgeJobsPage(
  db: Queryable,
  ref: CollectionRef,
  options: PageOptions = {},
  prices: Prices = DEFAULT_PRICES,
): Promise<Page<JudgeJobSummary>> {
  const page = seekPage(options, SMALL_PAGE, ['int']);
  const collection = await resolveCollection(db, ref);
  const rows = await listJudgeJobs(db, { collectionId: collection.id, page });
  const { items, next } = pageOf(
    rows,
    page,
    (job) => [job.id],
    (job) => job,
  );
  return { items: await summariseAll(db, collection, items, prices), next };
}

/** The summaries of some judge jobs of a collection, in the order given. */
async function summariseAll(
  db: Queryable,
  collection: Collection,
  jobs: readonly JudgeJob[],
  prices: Prices,
): Promise<JudgeJobSummary[]> {
  const sets = new Map((await listLabelSets(db, collection.id)).map((s) => [s.id, s]));
  const out = [];
  for (const job of jobs) {
    const set = sets.get(job.labelSetId);
    if (set) out.push(await summarise(job, collection.name, set, db, prices));
  }
  return out;
}

/**
 * Pauses (workers claim nothing more from it; items in flight finish) or resumes a judge
 * job; returns it with its progress (its cost told by `prices`, see judgeJobStatus).
 */
export async function setJudgeJobPaused(
  db: Queryable,
  id: number,
  paused: boolean,
  prices: Prices = DEFAULT_PRICES,
): Promise<JudgeJobSummary> {
  await judgeJobStatus(db, id);
  await setJudgeJobStatus(db, id, paused ? 'paused' : 'active');
  return judgeJobStatus(db, id, prices);
}

/**
 * A page of a judge job's failed items with their reasons and unreadable answers, in
 * priority order (position, topic, docno); not_found when there is no such job.
 */
export async function judgeJobFailuresPage(
  db: Queryable,
  id: number,
  options: PageOptions = {},
): Promise<Page<{ topicId: string; docId: string; error: string; raw: string | null }>> {
  const page = seekPage(options, LARGE_PAGE, ['int', 'text', 'text']);
  await judgeJobStatus(db, id);
  const rows = await listJudgeTasks(db, id, { status: ['failed'], page });
  return pageOf(
    rows,
    page,
    (t) => [t.position, t.topicId, t.docId],
    (t) => ({ topicId: t.topicId, docId: t.docId, error: t.error ?? 'unknown', raw: t.raw }),
  );
}

/**
 * Puts a judge job's failed items back to pending; returns how many and the job (its cost
 * told by `prices`, see judgeJobStatus).
 */
export async function retryJudgeJobFailures(
  db: Queryable,
  id: number,
  prices: Prices = DEFAULT_PRICES,
): Promise<{ retried: number; job: JudgeJobSummary }> {
  await judgeJobStatus(db, id);
  const retried = await retryFailedJudgeTasks(db, id);
  return { retried, job: await judgeJobStatus(db, id, prices) };
}

/** A job's progress: tasks per state and cost so far. */
export async function judgeJobProgress(db: Queryable, jobId: number): Promise<JudgeTaskCounts> {
  return countJudgeTasks(db, jobId);
}

/** A job's failed tasks with their reasons and unreadable answers. */
export async function listJudgeFailures(
  db: Queryable,
  jobId: number,
): Promise<Array<{ topicId: string; docId: string; error: string; raw: string | null }>> {
  return (await listJudgeTasks(db, jobId, { status: ['failed'] })).map((t) => ({
    topicId: t.topicId,
    docId: t.docId,
    error: t.error ?? 'unknown',
    raw: t.raw,
  }));
}

/**
 * The ids of the active judge jobs that have items to judge, oldest first; given a worker's
 * scope, only those it may claim from (a job without a recorded endpoint counts: the
 * worker would record its own).
 */
export async function judgeJobsWithWork(db: Queryable, scope?: JudgeClaimScope): Promise<number[]> {
  const jobs = await listJudgeJobs(db, {
    withWork: true,
    ...(scope ? { claimableBy: scope } : {}),
  });
  return jobs.map((job) => job.id);
}
