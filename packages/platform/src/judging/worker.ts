import {
  isDatabaseUnavailable,
  type ClaimedJudgeTask,
  type JudgeTaskKey,
  type Queryable,
} from '@assay/db';
import type { JudgeDeps } from '@assay/judge';
import type { CallStore, ChatClient, ModelPrice, RateLimiter, RetryPolicy } from '@assay/llm';
import { WorkerCallStore } from '../llm/call-store.js';
import { pause } from '../core/database-retry.js';
import { JudgeResultWriter, type WriteOutcome } from './result-writer.js';
import {
  firstRequestHashes,
  judgeTask,
  JudgeJobSpecs,
  type JudgeTaskResult,
} from './task.js';
import { JudgeTaskFeed } from './task-feed.js';
import { newWorkerId } from '../core/worker-leases.js';

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
  /** Items put back to pending unfinished (the run stopping, or nothing could be reached). */
  putBack: number;
  /** Calls answered and paid for (re-asks included; calls that got no answer are not paid). */
  paidCalls: number;
  /** Of the paid calls, those whose model has no price: their cost is unknown, not 0. */
  unpricedCalls: number;
  /** Items answered from stored calls (nothing paid). */
  cachedAnswers: number;
  promptTokens: number;
  completionTokens: number;
  /** USD of the priced calls (see unpricedCalls). */
  costUsd: number;
  /** Tasks being judged right now. */
  inFlight: number;
}

/** How a worker run ended. */
export interface JudgeWorkerResult extends JudgeWorkerProgress {
  /**
   * done: nothing left to claim; budget: the budget was spent; signal: asked to stop;
   * endpoint: the model endpoint could not be reached for several items in a row.
   */
  stoppedBy: 'done' | 'budget' | 'signal' | 'endpoint';
  /** With stoppedBy 'endpoint': what failed, naming the endpoint. */
  endpointError?: string;
  failures: Array<{ jobId: number; topicId: string; docId: string; reason: string }>;
  /** Answered calls the database could not take before the run gave up waiting for it. */
  unwrittenCalls: number;
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
  /**
   * Stop: claim nothing more, send no new call or retry; calls in flight finish (see
   * `cancelAfterMs`), their items are written, the others go back to pending.
   */
  signal?: AbortSignal;
  /**
   * After the signal, cut off the calls still in flight after this many ms and stop
   * waiting for a database that cannot be reached (default: never, they finish).
   */
  cancelAfterMs?: number;
  /** Stop claiming once this many USD have been paid by this run. */
  budgetUsd?: number;
  /** Keep polling for new tasks instead of returning when none are left. */
  follow?: boolean;
  /** Poll interval with `follow` (default 2000 ms). */
  pollMs?: number;
  /**
   * Items in a row whose calls could not reach the endpoint at all (connection refused,
   * unknown host; after their retries) before the run stops with stoppedBy 'endpoint'
   * (default 3); with `follow` it pauses instead (see `endpointPauseMs`) and goes on.
   * Such items go back to pending, never failed.
   */
  unreachableLimit?: number;
  /**
   * With `follow`, how long claiming pauses after the endpoint could not be reached, in ms
   * (default 30 000; doubling up to 10 min while it stays out of reach).
   */
  endpointPauseMs?: number;
  /**
   * Give up on a database that stays out of reach this many ms in a row: calls in flight
   * are cut off, results not yet written are dropped (their items stay pending, so the next
   * run judges them again) and the run fails with the database's last error. Default: wait
   * as long as it takes (a database that restarts is ridden out).
   */
  databaseGiveUpMs?: number;
  onProgress?: (progress: JudgeWorkerProgress) => void;
  /** Told when the database cannot be reached (the worker waits for it) or refuses a record. */
  onNotice?: (message: string) => void;
}

/**
 * Judges tasks until none are left (or until stopped): a {@link JudgeTaskFeed} claims them
 * in priority order under a lease, {@link judgeTask} judges each (stored answers reused,
 * every call recorded), and a {@link JudgeResultWriter} writes the calls, labels and
 * failures in group transactions guarded by the lease. Never holds a transaction across
 * an LLM call. While the database cannot be reached it waits for it (answered calls are
 * kept until written). When the signal aborts it stops claiming and sending, lets the
 * calls in flight finish (or cuts them off after `cancelAfterMs`) and puts unfinished
 * items back; when the budget is spent it stops claiming and lets in-flight items finish;
 * after `unreachableLimit` items in a row could not reach the endpoint it stops (when
 * following: pauses, then goes on).
 */
export async function runJudgeWorker(
  db: Queryable,
  options: JudgeWorkerOptions,
): Promise<JudgeWorkerResult> {
  const owner = options.workerId ?? newWorkerId();
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const unreachableLimit = Math.max(1, options.unreachableLimit ?? 3);
  const tally = new WorkerTally();
  let stoppedBy: JudgeWorkerResult['stoppedBy'] = 'done';
  let endpointError: string | undefined;
  let fatal: unknown;

  // Something changed (a claim came back, an item finished, a stop): the loop looks again.
  let changed!: () => void;
  let change = new Promise<void>((resolve) => (changed = resolve));
  const notify = () => {
    changed();
    change = new Promise<void>((resolve) => (changed = resolve));
  };

  // stop: claim nothing, send no new call or retry; cancel: cut off the calls in flight;
  // abandon: stop waiting for a database that cannot be reached.
  const stop = new AbortController();
  const cancel = new AbortController();
  const abandon = new AbortController();
  let cancelTimer: NodeJS.Timeout | undefined;
  const stopRun = (why: JudgeWorkerResult['stoppedBy']) => {
    if (stop.signal.aborted) return;
    stoppedBy = why;
    stop.abort();
    if (why === 'signal' && options.cancelAfterMs !== undefined)
      cancelTimer = setTimeout(() => {
        cancel.abort();
        abandon.abort();
      }, options.cancelAfterMs);
    notify();
  };
  const onSignal = () => stopRun('signal');
  if (options.signal?.aborted) onSignal();
  else options.signal?.addEventListener('abort', onSignal, { once: true });

  const notices = noticeOnce(options.onNotice);
  // How long the database has been out of reach in a row, and giving up on it when allowed.
  let unreachableSince: number | undefined;
  let giveUpTimer: NodeJS.Timeout | undefined;
  let lastDatabaseError: unknown;
  const databaseOutOfReach = (error: unknown, notice: string) => {
    notices('database', notice);
    lastDatabaseError = error;
    const limit = options.databaseGiveUpMs;
    if (limit === undefined || unreachableSince !== undefined) return;
    unreachableSince = Date.now();
    giveUpTimer = setTimeout(() => {
      if (unreachableSince === undefined) return;
      fatal ??= lastDatabaseError;
      stopRun('signal');
      cancel.abort();
      abandon.abort();
      notify();
    }, limit);
  };
  const databaseReached = () => {
    unreachableSince = undefined;
    clearTimeout(giveUpTimer);
  };
  const writer = new JudgeResultWriter(db, owner, {
    abandon: abandon.signal,
    onUnavailable: (error) =>
      databaseOutOfReach(error, 'the database cannot be reached; results wait until it is back'),
    onWritten: databaseReached,
    onRefused: (what) => options.onNotice?.(what),
  });
  const jobs = new JudgeJobSpecs(db, abandon.signal);
  // With the database store every call goes to the writer (failed attempts too).
  const dbStore = options.deps.store
    ? undefined
    : new WorkerCallStore(db, (call) => writer.call(call), stop.signal);
  const deps: JudgeDeps = {
    ...options.deps,
    store: options.deps.store ?? dbStore!,
    stop: stop.signal,
    cancel: cancel.signal,
  };

  // `calling`: items between their start and their answer, at most `concurrency` (the
  // calls in flight). `pending`: every started item until its result is written; a slot is
  // free again as soon as the answer is in, while the write joins the next group commit.
  let calling = 0;
  const pending = new Set<Promise<void>>();
  let unreachableInARow = 0;
  const feed = new JudgeTaskFeed(db, {
    owner,
    leaseMs: options.leaseMs ?? 120_000,
    concurrency,
    jobIds: options.jobIds,
    prepare: async (tasks) => dbStore?.prefetch(await firstRequestHashes(tasks, jobs)),
    onUnavailable: (error) =>
      databaseOutOfReach(error, 'the database cannot be reached; claiming waits until it is back'),
    onReachable: databaseReached,
    onChange: notify,
    judging: () => pending.size > 0,
  });

  // After too many items in a row found no endpoint: a run stops; a following run pauses
  // claiming (the pause doubling while the endpoint stays out of reach) and goes on.
  const firstPauseMs = options.endpointPauseMs ?? 30_000;
  let pauseMs = firstPauseMs;
  let pausedUntil = 0;
  const paused = () => Date.now() < pausedUntil;
  const judged = (result: JudgeTaskResult) => {
    tally.paid(result);
    if (result.paidCalls.length > 0) pauseMs = firstPauseMs;
    if (result.kind !== 'release' || result.why !== 'endpoint') {
      if (result.kind !== 'release' || result.paidCalls.length > 0) unreachableInARow = 0;
      return;
    }
    unreachableInARow++;
    if (unreachableInARow < unreachableLimit || stop.signal.aborted || paused()) return;
    const why = `${result.error ?? 'the model endpoint cannot be reached'} (${unreachableInARow} items in a row; the items went back to pending)`;
    unreachableInARow = 0;
    if (!options.follow) {
      endpointError = why;
      stopRun('endpoint');
      return;
    }
    pausedUntil = Date.now() + pauseMs;
    options.onNotice?.(`${why}; trying again in ${Math.round(pauseMs / 1000)} s`);
    pauseMs = Math.min(pauseMs * 2, 600_000);
    void feed.putBack();
    notify();
  };

  const start = (task: ClaimedJudgeTask) => {
    calling++;
    const running: Promise<void> = (async () => {
      let result: JudgeTaskResult;
      try {
        result = await judgeTask(task, await jobs.get(task.jobId), deps);
      } catch (error) {
        // The job could not be read: while the database is out of reach the item waits.
        if (!isDatabaseUnavailable(error)) throw error;
        result = { kind: 'release', why: 'database', paidCalls: [] };
      }
      calling--;
      notify();
      judged(result);
      const key = keyOf(task);
      if (result.kind === 'release') tally.wrote(key, result, await writer.release(key));
      else if (result.kind === 'label')
        tally.wrote(key, result, await writer.label(key, result.label));
      else tally.wrote(key, result, await writer.fail(key, result.failure));
    })()
      .catch((error: unknown) => {
        fatal ??= error;
      })
      .finally(() => {
        feed.itemFinished();
        pending.delete(running);
        tally.progress.inFlight = pending.size;
        notify();
        options.onProgress?.({ ...tally.progress });
      });
    pending.add(running);
    tally.progress.inFlight = pending.size;
  };

  const budgetSpent = () =>
    options.budgetUsd !== undefined && tally.expectedCost(calling) >= options.budgetUsd;

  try {
    for (;;) {
      fatal ??= feed.failure;
      if (fatal || stop.signal.aborted) break;
      if (paused()) {
        await Promise.race([pause(pausedUntil - Date.now(), stop.signal), change]);
        continue;
      }
      while (calling < concurrency && !budgetSpent()) {
        const task = feed.take();
        if (!task) break;
        start(task);
      }
      if (budgetSpent()) {
        if (pending.size === 0) {
          stoppedBy = 'budget';
          break;
        }
      } else feed.refill(concurrency - calling);
      if (pending.size === 0 && feed.exhausted) {
        if (!options.follow) break;
        await Promise.race([pause(options.pollMs ?? 2_000, stop.signal), change]);
        feed.poll();
        continue;
      }
      await change;
    }
    while (pending.size > 0) await Promise.all(pending);
  } finally {
    options.signal?.removeEventListener('abort', onSignal);
    // Tasks claimed but never started go back at once; so does everything after a failure.
    await feed.close(fatal !== undefined);
    await writer.flushed();
    clearTimeout(cancelTimer);
    clearTimeout(giveUpTimer);
  }
  if (fatal) throw fatal;
  const result: JudgeWorkerResult = {
    ...tally.progress,
    inFlight: 0,
    stoppedBy,
    failures: tally.failures,
    unwrittenCalls: writer.unwrittenCalls,
  };
  if (endpointError !== undefined) result.endpointError = endpointError;
  return result;
}

/** A worker run's counters: what was paid, and what became of each item. */
class WorkerTally {
  readonly progress: JudgeWorkerProgress = {
    labelled: 0,
    failed: 0,
    lostLeases: 0,
    putBack: 0,
    paidCalls: 0,
    unpricedCalls: 0,
    cachedAnswers: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    inFlight: 0,
  };
  readonly failures: JudgeWorkerResult['failures'] = [];

  /** The calls an item paid for (answered ones), tokens and cost; answers from the store. */
  paid(result: JudgeTaskResult): void {
    const p = this.progress;
    for (const call of result.paidCalls) {
      p.promptTokens += call.promptTokens;
      p.completionTokens += call.completionTokens;
      if (call.costUsd === undefined) p.unpricedCalls++;
      else p.costUsd += call.costUsd;
    }
    p.paidCalls += result.paidCalls.length;
    if (result.kind === 'label' && result.cached) p.cachedAnswers++;
  }

  /** What the writer did with an item's result. */
  wrote(key: JudgeTaskKey, result: JudgeTaskResult, outcome: WriteOutcome): void {
    const p = this.progress;
    if (result.kind === 'release' || outcome === 'unwritten') p.putBack++;
    else if (outcome === 'lost') p.lostLeases++;
    else if (outcome === 'written' && result.kind === 'label') p.labelled++;
    else {
      p.failed++;
      const reason =
        result.kind === 'fail' ? result.failure.error : 'the answer could not be stored';
      this.failures.push({ ...key, reason });
    }
  }

  /** What the run will have paid once `inFlight` more calls (at the average cost) are paid. */
  expectedCost(inFlight: number): number {
    const p = this.progress;
    const average = p.paidCalls > 0 ? p.costUsd / p.paidCalls : 0;
    return p.costUsd + inFlight * average;
  }
}

/** Tells `notice` a message once per kind until the run ends. */
function noticeOnce(notice: ((message: string) => void) | undefined) {
  const told = new Set<string>();
  return (kind: string, message: string) => {
    if (told.has(kind)) return;
    told.add(kind);
    notice?.(message);
  };
}

function keyOf(task: ClaimedJudgeTask): JudgeTaskKey {
  return { jobId: task.jobId, topicId: task.topicId, docId: task.docId };
}
