import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  claimJudgeTasks,
  completeJudgeTasks,
  countJudgeTasks,
  createCollection,
  createJudgeJob,
  createLabelSet,
  failJudgeTask,
  findAnsweredLlmCalls,
  findJudgeJobByLabelSet,
  findLabelSetByName,
  getCollectionByName,
  getJudgeJob,
  insertJudgeTasks,
  insertLlmCall,
  insertLlmCalls,
  listJudgeLeaseOwners,
  listJudgeTasks,
  listLabels,
  releaseJudgeTasks,
  renewJudgeTaskLeases,
  withTransaction,
  type ClaimedJudgeTask,
  type JsonObject,
  type JsonValue,
  type JudgeJob,
  type JudgeTaskCounts,
  type JudgeTaskFailure,
  type JudgeTaskKey,
  type JudgeTaskLabel,
  type LabelSet,
  type LlmCall,
  type LlmCallInput,
  type Queryable,
} from '@assay/db';
import {
  buildJudgeRequest,
  callCost,
  canonicalJson,
  DEFAULT_PRICES,
  estimateTokens,
  judgeItem,
  requestHash,
  type CallStore,
  type ChatClient,
  type JudgeSettings,
  type JudgeTemplate,
  type LlmCallRecord,
  type ModelPrice,
  type RateLimiter,
  type RetryPolicy,
  type TemplateValues,
} from '@assay/judge';
import { PlatformError } from './errors.js';
import { claimBatchSize } from './judge-claims.js';

/**
 * The database CallStore: every call goes into `llm_calls`, and an answered call is found
 * again by its request hash, across processes, machines and reruns. Lookups made while an
 * earlier one runs are answered together by one query.
 */
export class DbCallStore implements CallStore {
  private readonly lookups: GroupCommit<string, LlmCallRecord | undefined>;

  constructor(private readonly db: Queryable) {
    this.lookups = new GroupCommit(async (hashes) => {
      const found = await findAnsweredLlmCalls(this.db, hashes);
      return hashes.map((hash) => {
        const call = found.get(hash);
        return call && toRecord(call);
      });
    });
  }

  get(hash: string): Promise<LlmCallRecord | undefined> {
    return this.lookups.add(hash);
  }

  async put(record: LlmCallRecord): Promise<void> {
    await insertLlmCall(this.db, toCallInput(record));
  }
}

function toCallInput(record: LlmCallRecord): LlmCallInput {
  return {
    hash: record.hash,
    model: record.model,
    request: record.request as unknown as JsonObject,
    response: record.response ?? null,
    logprobs: (record.logprobs as unknown as JsonValue) ?? null,
    promptTokens: record.promptTokens,
    completionTokens: record.completionTokens,
    costUsd: record.costUsd ?? null,
    latencyMs: record.latencyMs,
    // A call without an answer always carries its reason.
    error: record.error ?? (record.response === undefined ? 'no answer' : null),
    createdAt: record.createdAt,
  };
}

/**
 * Group commit: `flush` runs on everything added while the previous flush was running (at
 * most `max` at a time), so many concurrent items share one database round trip.
 */
class GroupCommit<T, R> {
  private readonly queue: Array<{
    item: T;
    resolve: (r: R) => void;
    reject: (e: unknown) => void;
  }> = [];
  private running = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly max = 500,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) {
        this.running = true;
        // Let the items started in the same tick join the first flush.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.max);
      try {
        const results = await this.flush(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i] as R));
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.running = false;
  }
}

function toRecord(call: LlmCall): LlmCallRecord {
  const record: LlmCallRecord = {
    hash: call.hash,
    model: call.model,
    request: call.request as unknown as LlmCallRecord['request'],
    promptTokens: call.promptTokens,
    completionTokens: call.completionTokens,
    latencyMs: call.latencyMs,
    createdAt: call.createdAt.toISOString(),
  };
  if (call.response !== null) record.response = call.response;
  if (call.logprobs !== null)
    record.logprobs = call.logprobs as unknown as LlmCallRecord['logprobs'];
  if (call.costUsd !== null) record.costUsd = call.costUsd;
  if (call.error !== null) record.error = call.error;
  return record;
}

/** The `judges/` folder of this assay checkout (the shipped judge templates). */
export function defaultJudgesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'judges');
    if (existsSync(join(candidate, 'graded-0-3.md'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new PlatformError('not_found', 'cannot find the judges/ folder of this assay checkout');
    dir = parent;
  }
}

/** SHA-256 of a judge template's canonical JSON: which prompt a label set was made with. */
export function templateHash(template: JudgeTemplate): string {
  return requestHash(template as unknown as Record<string, unknown>);
}

/** A topic as judging sees it. */
export interface JudgeTopic {
  query: string;
  description?: string | undefined;
  narrative?: string | undefined;
}

/** A document as judging sees it. */
export interface JudgeDocument {
  title?: string | undefined;
  text: string;
}

/**
 * The values a relevance template renders for one (topic, document): `query`,
 * `description`, `narrative`, `passage` (the title, if any, on its own line, then the
 * text) and `title`, limited to the variables the template uses.
 */
export function judgeValues(
  template: JudgeTemplate,
  topic: JudgeTopic,
  doc: JudgeDocument,
): TemplateValues {
  const title = doc.title?.trim();
  const all: TemplateValues = {
    query: topic.query,
    description: topic.description,
    narrative: topic.narrative,
    passage: title ? `${title}\n${doc.text}` : doc.text,
    title,
  };
  const known = new Set([...template.requiredVariables, ...template.optionalVariables]);
  const values: TemplateValues = {};
  for (const [name, value] of Object.entries(all))
    if (known.has(name) && value !== undefined && value !== '') values[name] = value;
  return values;
}

/** Checks that a template can write a label set from topics and documents alone. */
export function checkRelevanceTemplate(template: JudgeTemplate): void {
  if (!template.gradeField)
    throw new PlatformError(
      'invalid_input',
      `judge ${template.id} is a ${template.kind} judge with no single grade; labels need a relevance judge`,
    );
  const available = new Set(['query', 'description', 'narrative', 'passage', 'title']);
  const missing = template.requiredVariables.filter((v) => !available.has(v));
  if (missing.length > 0)
    throw new PlatformError(
      'invalid_input',
      `judge ${template.id} needs ${missing.map((v) => `{{${v}}}`).join(', ')}, which topics and documents do not provide`,
    );
}

/** One pool item to judge, in priority order. */
export interface JudgeItemInput {
  topicId: string;
  docId: string;
  values: TemplateValues;
}

/** What ensureJudgeJob needs: where the label set goes, the judge and the items. */
export interface EnsureJudgeJobInput {
  /** Collection name; created (without documents) when `createCollection` and absent. */
  collection: string;
  createCollection?: boolean;
  /** Name of the LLM label set the job writes. */
  labelSet: string;
  template: JudgeTemplate;
  settings: JudgeSettings;
  /** The pool, in judging priority order. */
  items: readonly JudgeItemInput[];
}

/** The job ensureJudgeJob found or created, and what it added. */
export interface EnsureJudgeJobResult {
  job: JudgeJob;
  labelSet: LabelSet;
  /** True when the label set and job were created by this call. */
  created: boolean;
  /** Tasks added by this call (items the job did not have yet). */
  added: number;
}

/**
 * Finds or creates the judge job for a label set and adds the pool items it does not have
 * yet, in one transaction, so running the same command again finds the same tasks. The
 * label set (kind llm_judge) records the judge id, model, prompt hash and settings; an
 * existing one made with another judge configuration, or an item whose text differs from
 * what the job holds, is a conflict (pick another label set name) — labels are never
 * mixed across prompts or texts.
 */
export async function ensureJudgeJob(
  db: Queryable,
  input: EnsureJudgeJobInput,
): Promise<EnsureJudgeJobResult> {
  checkRelevanceTemplate(input.template);
  const hash = templateHash(input.template);
  const settings = input.settings as unknown as JsonObject;
  const config: JsonObject = {
    judgeId: input.template.id,
    model: input.settings.model,
    promptHash: hash,
    settings,
  };
  return withTransaction(db, async (trx) => {
    let collection = await getCollectionByName(trx, input.collection);
    if (!collection) {
      if (!input.createCollection)
        throw new PlatformError('not_found', `no collection ${JSON.stringify(input.collection)}`);
      collection = await createCollection(trx, {
        name: input.collection,
        description: 'label sets written by assay judge from files',
      });
    }
    let labelSet = await findLabelSetByName(trx, collection.id, input.labelSet);
    let job: JudgeJob | undefined;
    let created = false;
    if (labelSet) {
      job = await findJudgeJobByLabelSet(trx, labelSet.id);
      if (!job || labelSet.kind !== 'llm_judge')
        throw new PlatformError(
          'conflict',
          `label set "${input.labelSet}" already exists and was not written by a judge; choose another label set name`,
        );
      if (job.templateHash !== hash || canonicalJson(job.settings) !== canonicalJson(settings))
        throw new PlatformError(
          'conflict',
          `label set "${input.labelSet}" was written with another judge configuration (${describeJob(job)}); choose another label set name`,
        );
    } else {
      labelSet = await createLabelSet(trx, {
        collectionId: collection.id,
        name: input.labelSet,
        kind: 'llm_judge',
        scaleMin: input.template.scale.min,
        scaleMax: input.template.scale.max,
        config,
      });
      job = await createJudgeJob(trx, {
        labelSetId: labelSet.id,
        judgeId: input.template.id,
        template: input.template as unknown as JsonObject,
        templateHash: hash,
        settings,
      });
      created = true;
    }
    const jobId = job.id;
    const existing = created ? [] : await listJudgeTasks(trx, jobId);
    const known = new Map(existing.map((t) => [`${t.topicId}\t${t.docId}`, t]));
    const offset = existing.reduce((max, t) => Math.max(max, t.position + 1), 0);
    const fresh: Array<{ topicId: string; docId: string; position: number; values: JsonObject }> =
      [];
    const seen = new Set<string>();
    for (const item of input.items) {
      const key = `${item.topicId}\t${item.docId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const values = item.values as JsonObject;
      const old = known.get(key);
      if (old) {
        if (canonicalJson(old.values) !== canonicalJson(values))
          throw new PlatformError(
            'conflict',
            `label set "${input.labelSet}" already judged topic ${item.topicId} document ${item.docId} with a different query or text; choose another label set name`,
          );
        continue;
      }
      fresh.push({ ...item, values, position: offset + fresh.length });
    }
    const added = await insertJudgeTasks(trx, jobId, fresh);
    return { job, labelSet, created, added };
  });
}

function describeJob(job: JudgeJob): string {
  return `judge ${job.judgeId}, model ${String(job.settings.model)}, prompt ${job.templateHash.slice(0, 12)}`;
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

/** A label set as TREC qrels text (`topic 0 docno grade`), topics and docnos in byte order. */
export async function exportLabelsAsQrels(db: Queryable, labelSetId: number): Promise<string> {
  let text = '';
  for (const label of await listLabels(db, labelSetId))
    text += `${label.topicId} 0 ${label.docId} ${label.grade}\n`;
  return text;
}

/** What a dry run expects a job to cost, without sending anything. */
export interface JudgeEstimate {
  /** Pool items given. */
  items: number;
  /** Items the label set already has a label for. */
  alreadyLabelled: number;
  /** Items whose answer is already stored (no call needed). */
  cached: number;
  /** Calls to send (one per remaining item; re-asks of unreadable answers come on top). */
  calls: number;
  /** Estimated prompt tokens of those calls (about four characters per token). */
  promptTokens: number;
  /** Most completion tokens those calls may use (max_tokens each; 256 when unset). */
  completionTokens: number;
  /** Estimated USD at most, when the model has a price. */
  costUsd?: number;
}

/**
 * Estimates a judging run: the calls it would send (items neither labelled in the label
 * set nor answered in the call store), their tokens and cost. Reads only.
 */
export async function estimateJudgeRun(
  db: Queryable,
  input: {
    collection: string;
    labelSet: string;
    template: JudgeTemplate;
    settings: JudgeSettings;
    items: readonly JudgeItemInput[];
    prices?: Readonly<Record<string, ModelPrice>>;
  },
): Promise<JudgeEstimate> {
  checkRelevanceTemplate(input.template);
  const labelled = new Set<string>();
  const collection = await getCollectionByName(db, input.collection);
  const labelSet = collection && (await findLabelSetByName(db, collection.id, input.labelSet));
  if (labelSet)
    for (const l of await listLabels(db, labelSet.id)) labelled.add(`${l.topicId}\t${l.docId}`);
  const todo: Array<{ hash: string; prompt: number; completion: number }> = [];
  const seen = new Set<string>();
  let alreadyLabelled = 0;
  for (const item of input.items) {
    const key = `${item.topicId}\t${item.docId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (labelled.has(key)) {
      alreadyLabelled++;
      continue;
    }
    const request = buildJudgeRequest(input.template, item.values, input.settings);
    todo.push({
      hash: requestHash({ endpoint: 'chat.completions', ...request }),
      prompt: request.messages.reduce((s, m) => s + estimateTokens(m.content), 0),
      completion: request.max_tokens ?? 256,
    });
  }
  const answered = new Set<string>();
  for (let i = 0; i < todo.length; i += 5_000) {
    const found = await findAnsweredLlmCalls(
      db,
      todo.slice(i, i + 5_000).map((t) => t.hash),
    );
    for (const hash of found.keys()) answered.add(hash);
  }
  const calls = todo.filter((t) => !answered.has(t.hash));
  const promptTokens = calls.reduce((s, t) => s + t.prompt, 0);
  const completionTokens = calls.reduce((s, t) => s + t.completion, 0);
  const estimate: JudgeEstimate = {
    items: seen.size,
    alreadyLabelled,
    cached: todo.length - calls.length,
    calls: calls.length,
    promptTokens,
    completionTokens,
  };
  const cost = callCost(
    input.settings.model,
    { promptTokens, completionTokens },
    input.prices ?? DEFAULT_PRICES,
  );
  if (cost !== undefined) estimate.costUsd = cost;
  return estimate;
}

/** A worker's identity: host, process id and a random part (several workers per process). */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Releases the leases of workers that ran on this machine and whose process is gone (a
 * killed `assay judge` or `assay worker`), so a rerun does not wait for their leases to
 * expire. Workers of other machines are left to their leases. Returns tasks released.
 */
export async function releaseDeadLocalLeases(db: Queryable, jobId?: number): Promise<number> {
  let released = 0;
  for (const { owner } of await listJudgeLeaseOwners(db, jobId)) {
    const [host, pidText] = owner.split(':');
    const pid = Number(pidText);
    if (host !== hostname() || !Number.isInteger(pid) || pid === process.pid) continue;
    if (!processAlive(pid)) released += await releaseJudgeTasks(db, owner);
  }
  return released;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a worker needs to call the model: the endpoint client, pacing, retry policy, prices. */
export interface JudgeWorkerDeps {
  client: ChatClient;
  /** Where calls are kept (default: the database). */
  store?: CallStore;
  limiter?: RateLimiter;
  retry?: RetryPolicy;
  prices?: Readonly<Record<string, ModelPrice>>;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** Counters of a worker run, reported as it goes and at the end. */
export interface JudgeWorkerProgress {
  labelled: number;
  failed: number;
  /** Tasks whose lease another worker took over before this one finished (nothing written). */
  lostLeases: number;
  /** Calls sent and paid for (retries and re-asks included). */
  paidCalls: number;
  /** Items answered from stored calls (nothing paid). */
  cachedAnswers: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  /** Tasks being judged right now. */
  inFlight: number;
}

/** How a worker run ended. */
export interface JudgeWorkerResult extends JudgeWorkerProgress {
  /** done: nothing left to claim; budget: the budget was spent; signal: asked to stop. */
  stoppedBy: 'done' | 'budget' | 'signal';
  failures: Array<{ jobId: number; topicId: string; docId: string; reason: string }>;
}

/** Options of runJudgeWorker. */
export interface JudgeWorkerOptions {
  /** Claim only from these jobs (default: every active job). */
  jobIds?: readonly number[];
  /** Lease owner name (default: host:pid:random). */
  workerId?: string;
  deps: JudgeWorkerDeps;
  /** Items judged at once (default 8). */
  concurrency?: number;
  /** Lease length in ms (default 120 000); renewed every third of it while a task runs. */
  leaseMs?: number;
  /** Stop claiming when aborted; in-flight items finish and are written. */
  signal?: AbortSignal;
  /** Stop claiming once this many USD have been paid by this run. */
  budgetUsd?: number;
  /** Keep polling for new tasks instead of returning when none are left. */
  follow?: boolean;
  /** Poll interval with `follow` (default 2000 ms). */
  pollMs?: number;
  onProgress?: (progress: JudgeWorkerProgress) => void;
}

interface LoadedJob {
  template: JudgeTemplate;
  settings: JudgeSettings;
}

/**
 * Judges tasks until none are left (or until stopped): claims them in priority order under
 * a lease, judges each with judgeItem (stored answers reused, every call recorded in the
 * database), and writes each label with its task's status in one transaction guarded by
 * the lease. Never holds a transaction across an LLM call. When the signal aborts or the
 * budget is spent it stops claiming and lets in-flight items finish.
 */
export async function runJudgeWorker(
  db: Queryable,
  options: JudgeWorkerOptions,
): Promise<JudgeWorkerResult> {
  const owner = options.workerId ?? newWorkerId();
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const leaseMs = options.leaseMs ?? 120_000;
  const pollMs = options.pollMs ?? 2_000;
  const jobs = new Map<number, Promise<LoadedJob>>();
  const progress: JudgeWorkerProgress = {
    labelled: 0,
    failed: 0,
    lostLeases: 0,
    paidCalls: 0,
    cachedAnswers: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    inFlight: 0,
  };
  const failures: JudgeWorkerResult['failures'] = [];
  let fatal: unknown;
  type Write =
    | { kind: 'call'; record: LlmCallRecord }
    | { kind: 'label'; key: JudgeTaskKey; label: JudgeTaskLabel }
    | { kind: 'fail'; key: JudgeTaskKey; failure: JudgeTaskFailure };
  // Calls, labels and failures of items finishing together are written in one transaction
  // (a call always in the same transaction as its label, or an earlier one). Each label is
  // written only while this worker holds the task's lease: `true` when it was.
  const writes = new GroupCommit<Write, boolean>((ops) =>
    withTransaction(db, async (trx) => {
      const calls = ops.flatMap((op) => (op.kind === 'call' ? [toCallInput(op.record)] : []));
      if (calls.length > 0) await insertLlmCalls(trx, calls);
      const labels = ops.flatMap((op) => (op.kind === 'label' ? [op] : []));
      const written = await completeJudgeTasks(trx, owner, labels);
      const results: boolean[] = [];
      for (const op of ops) {
        if (op.kind === 'call') results.push(true);
        else if (op.kind === 'label')
          results.push(written.has(`${op.key.jobId}\t${op.key.topicId}\t${op.key.docId}`));
        else results.push(await failJudgeTask(trx, op.key, owner, op.failure));
      }
      return results;
    }),
  );
  const record = (call: LlmCallRecord) => {
    writes.add({ kind: 'call', record: call }).catch((error: unknown) => {
      fatal ??= error;
    });
  };
  const dbStore = new DbCallStore(db);
  // Stored answers of the first request of claimed tasks, looked up with the claim (one
  // query per claim), so judging an item needs no database round trip before its call.
  const prefetched = new Map<string, LlmCallRecord | undefined>();
  const prefetchAnswers = async (tasks: readonly ClaimedJudgeTask[]) => {
    const hashes: string[] = [];
    for (const task of tasks) {
      const { template, settings } = await loadJob(task.jobId);
      try {
        const request = buildJudgeRequest(template, task.values as TemplateValues, settings);
        hashes.push(requestHash({ endpoint: 'chat.completions', ...request }));
      } catch {
        // A template that cannot render this item fails it when judged.
      }
    }
    const found = await findAnsweredLlmCalls(db, hashes);
    for (const hash of hashes) {
      const call = found.get(hash);
      prefetched.set(hash, call && toRecord(call));
    }
  };
  // With the database store every attempt is recorded: failed attempts (429, 5xx, timeouts,
  // dropped connections, retried or not) by the client wrapper, answers by judgeItem.
  const client: ChatClient = options.deps.store
    ? options.deps.client
    : recordingClient(options.deps.client, record);
  const store: CallStore = options.deps.store ?? {
    get: (hash) => {
      if (!prefetched.has(hash)) return dbStore.get(hash);
      const call = prefetched.get(hash);
      prefetched.delete(hash);
      return Promise.resolve(call);
    },
    put: async (call) => {
      // judgeItem's record of a failed call repeats the last attempt the wrapper recorded.
      if (call.response !== undefined) record(call);
    },
  };

  const loadJob = (jobId: number): Promise<LoadedJob> => {
    let loaded = jobs.get(jobId);
    if (!loaded) {
      loaded = getJudgeJob(db, jobId).then((job) => {
        if (!job) throw new Error(`judge job ${jobId} does not exist`);
        return {
          template: job.template as unknown as JudgeTemplate,
          settings: job.settings as unknown as JudgeSettings,
        };
      });
      jobs.set(jobId, loaded);
    }
    return loaded;
  };

  const judgeOne = async (task: ClaimedJudgeTask, answered: () => void): Promise<void> => {
    const { template, settings } = await loadJob(task.jobId);
    let outcome;
    try {
      outcome = await judgeItem(template, task.values as TemplateValues, settings, {
        ...options.deps,
        client,
        store,
      });
    } catch (error) {
      answered();
      // Not an endpoint failure (judgeItem reports those): a template or database error.
      const reason = error instanceof Error ? error.message : String(error);
      if (await writes.add({ kind: 'fail', key: keyOf(task), failure: { error: reason } })) {
        progress.failed++;
        failures.push({ ...keyOf(task), reason });
      } else progress.lostLeases++;
      return;
    }
    answered();
    let cost = 0;
    for (const call of outcome.paidCalls) {
      cost += call.costUsd ?? 0;
      progress.promptTokens += call.promptTokens;
      progress.completionTokens += call.completionTokens;
    }
    progress.paidCalls += outcome.paidCalls.length;
    progress.costUsd += cost;
    if (outcome.status === 'labelled') {
      if (outcome.cached) progress.cachedAnswers++;
      const { [template.gradeField!]: _grade, ...rest } = outcome.judgment.fields;
      const written = await writes.add({
        kind: 'label',
        key: keyOf(task),
        label: {
          grade: outcome.judgment.grade!,
          producedBy: settings.model,
          rationale: Object.keys(rest).length > 0 ? canonicalJson(rest) : null,
          distribution: (outcome.distribution as unknown as JsonObject) ?? null,
          callHash: outcome.call.hash,
          costUsd: cost,
        },
      });
      if (written) progress.labelled++;
      else progress.lostLeases++;
    } else {
      const written = await writes.add({
        kind: 'fail',
        key: keyOf(task),
        failure: {
          error: outcome.reason,
          raw: outcome.raw ?? null,
          callHash: outcome.paidCalls.at(-1)?.hash ?? null,
          costUsd: cost,
        },
      });
      if (written) {
        progress.failed++;
        failures.push({ ...keyOf(task), reason: outcome.reason });
      } else progress.lostLeases++;
    }
  };

  // `calling`: items between their start and their answer, at most `concurrency` (the
  // calls in flight). `pending`: every started item until its label is written; a slot is
  // free again as soon as the answer is in, while the write joins the next group commit.
  let calling = 0;
  const pending = new Set<Promise<void>>();
  // Tasks claimed ahead of a free slot, so a slot never waits for a claim round trip.
  const ready: ClaimedJudgeTask[] = [];
  let changed!: () => void;
  let change = new Promise<void>((resolve) => (changed = resolve));
  const notify = () => {
    changed();
    change = new Promise<void>((resolve) => (changed = resolve));
  };

  const start = (task: ClaimedJudgeTask) => {
    calling++;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      calling--;
      notify();
    };
    const running: Promise<void> = judgeOne(task, free)
      .catch((error: unknown) => {
        fatal ??= error;
      })
      .finally(() => {
        free();
        finished++;
        pending.delete(running);
        progress.inFlight = pending.size;
        notify();
        options.onProgress?.({ ...progress });
      });
    pending.add(running);
    progress.inFlight = pending.size;
  };

  const budgetSpent = () => {
    if (options.budgetUsd === undefined) return false;
    // Calls in flight will cost about what the paid ones cost on average.
    const average = progress.paidCalls > 0 ? progress.costUsd / progress.paidCalls : 0;
    return progress.costUsd + calling * average >= options.budgetUsd;
  };

  let heartbeatBusy = false;
  const heartbeat = setInterval(
    () => {
      if (heartbeatBusy || (pending.size === 0 && ready.length === 0)) return;
      heartbeatBusy = true;
      renewJudgeTaskLeases(db, owner, leaseMs)
        .catch(() => {})
        .finally(() => (heartbeatBusy = false));
    },
    Math.max(50, leaseMs / 3),
  );
  heartbeat.unref();
  const aborted = new Promise<void>((resolve) => {
    if (options.signal?.aborted) resolve();
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  // Claims run in the background, in batches, keeping a few tasks ready: a free slot never
  // waits for a claim (on PGlite a claim may queue behind a group commit).
  const batch = claimBatchSize(concurrency);
  let claiming: Promise<void> | undefined;
  // After a claim found nothing, claim again only once another item has finished.
  let finished = 0;
  let exhaustedAt: number | undefined;
  const refill = () => {
    if (claiming || exhaustedAt === finished) return;
    // Keep up to two batches ready; claim a batch or more at a time.
    if (ready.length > batch) return;
    const wanted = concurrency - calling + 2 * batch - ready.length;
    claiming = claimJudgeTasks(db, {
      owner,
      leaseMs,
      limit: wanted,
      ...(options.jobIds ? { jobIds: options.jobIds } : {}),
    })
      .then(async (claimed) => {
        if (!options.deps.store && claimed.length > 0) await prefetchAnswers(claimed);
        ready.push(...claimed);
        exhaustedAt = claimed.length === 0 ? finished : undefined;
      })
      .catch((error: unknown) => {
        fatal ??= error;
      })
      .finally(() => {
        claiming = undefined;
        notify();
      });
  };
  let stoppedBy: JudgeWorkerResult['stoppedBy'] = 'done';
  try {
    for (;;) {
      if (fatal) break;
      if (options.signal?.aborted) {
        stoppedBy = 'signal';
        break;
      }
      while (calling < concurrency && ready.length > 0 && !budgetSpent()) start(ready.shift()!);
      if (budgetSpent()) {
        if (pending.size === 0) {
          stoppedBy = 'budget';
          break;
        }
      } else refill();
      if (pending.size === 0 && ready.length === 0 && !claiming && exhaustedAt === finished) {
        if (!options.follow) break;
        await Promise.race([sleep(pollMs), aborted]);
        exhaustedAt = undefined;
        continue;
      }
      await Promise.race([change, aborted]);
    }
    await Promise.all(pending);
    await claiming;
  } finally {
    clearInterval(heartbeat);
    // Tasks claimed but never started go back at once; so does everything after a failure.
    if (fatal || pending.size > 0) await releaseJudgeTasks(db, owner).catch(() => 0);
    else if (ready.length > 0) await releaseJudgeTasks(db, owner, ready).catch(() => 0);
  }
  if (fatal) throw fatal;
  return { ...progress, inFlight: 0, stoppedBy, failures };
}

/** A ChatClient that reports every failed attempt, with its latency and error, to `record`. */
function recordingClient(inner: ChatClient, record: (call: LlmCallRecord) => void): ChatClient {
  return {
    async complete(request) {
      const started = performance.now();
      try {
        return await inner.complete(request);
      } catch (error) {
        record({
          hash: requestHash({ endpoint: 'chat.completions', ...request }),
          model: request.model,
          request,
          promptTokens: 0,
          completionTokens: 0,
          latencyMs: performance.now() - started,
          error: error instanceof Error ? error.message : String(error),
          createdAt: new Date().toISOString(),
        });
        throw error;
      }
    },
  };
}

function keyOf(task: ClaimedJudgeTask) {
  return { jobId: task.jobId, topicId: task.topicId, docId: task.docId };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
