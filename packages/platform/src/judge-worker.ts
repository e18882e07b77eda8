import {
  claimJudgeTasks,
  completeJudgeTasks,
  failJudgeTask,
  findAnsweredLlmCalls,
  getJudgeJob,
  insertLlmCalls,
  releaseJudgeTasks,
  renewJudgeTaskLeases,
  withTransaction,
  type ClaimedJudgeTask,
  type JsonObject,
  type JudgeTaskFailure,
  type JudgeTaskKey,
  type JudgeTaskLabel,
  type Queryable,
} from '@assay/db';
import {
  buildJudgeRequest,
  judgeItem,
  type JudgeSettings,
  type JudgeTemplate,
  type TemplateValues,
} from '@assay/judge';
import {
  chatRequestHash,
  type CallStore,
  type ChatClient,
  type LlmCallRecord,
  type ModelPrice,
  type RateLimiter,
  type RetryPolicy,
} from '@assay/llm';
import { DbCallStore, toCallInput, toRecord } from './call-store.js';
import { GroupCommit } from './group-commit.js';
import { claimBatchSize } from './judge-claims.js';
import { newWorkerId } from './worker-leases.js';

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
        hashes.push(chatRequestHash(request));
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
      const written = await writes.add({
        kind: 'label',
        key: keyOf(task),
        label: {
          grade: outcome.judgment.grade!,
          producedBy: settings.model,
          rationale: justificationOf(outcome.judgment.fields),
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
          hash: chatRequestHash(request),
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

/** The answer fields that hold a judge's justification text, in the order they are looked for. */
const JUSTIFICATION_FIELDS = ['justification', 'rationale', 'reasoning', 'explanation'];

/**
 * A label's rationale: the judge's justification text when its answer has one, else null.
 * Other answer fields (sub-grades such as intent_match) stay in the stored call.
 */
function justificationOf(fields: Record<string, unknown>): string | null {
  for (const name of JUSTIFICATION_FIELDS) {
    const value = fields[name];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
}
