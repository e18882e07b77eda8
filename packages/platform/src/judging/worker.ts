import {
  isDatabaseUnavailable,
  type ClaimedJudgeTask,
  type JudgeTaskKey,
  type Queryable,
} from '@assay/db';
import type { JudgeDeps } from '@assay/judge';
import {
  classifyChatError,
  type CallStore,
  type ChatClient,
  type ModelPrice,
  type RateLimiter,
  type RetryPolicy,
} from '@assay/llm';
import { WorkerCallStore } from '../llm/call-store.js';
import { pause } from '../core/database-retry.js';
import { EndpointGuard } from './endpoint-guard.js';
import { JudgeResultWriter } from './result-writer.js';
import { firstRequestHashes, judgeTask, JudgeJobSpecs, type JudgeTaskResult } from './task.js';
import { JudgeTaskFeed } from './task-feed.js';
import { newWorkerId } from '../core/worker-leases.js';
import { Changes, DatabaseWatch, WorkerStop, type WorkerStopReason } from './worker-stop.js';
import { WorkerTally } from './worker-tally.js';

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
  stoppedBy: WorkerStopReason;
  /** With stoppedBy 'endpoint': what failed, naming the endpoint. */
  endpointError?: string;
  /** With stoppedBy 'endpoint': true when the endpoint was there but did not answer in time. */
  endpointTimedOut?: boolean;
  failures: Array<{ jobId: number; topicId: string; docId: string; reason: string }>;
  /** Answered calls the database could not take before the run gave up waiting for it. */
  unwrittenCalls: number;
}

/** Options of runJudgeWorker. */
export interface JudgeWorkerOptions {
  /** Claim only from these jobs, open to workers or not (default: the jobs open to workers). */
  jobIds?: readonly number[];
  /**
   * The endpoint `deps.client` calls (judgeEndpointIdentity): only jobs recorded there are
   * claimed, and it is recorded on jobs that have none. Absent: jobs at any endpoint (only
   * for a client that is no endpoint, in tests; startJudgeWorker always gives it).
   */
  endpoint?: string;
  /** Claim only jobs of these models (default: any model). */
  models?: readonly string[];
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
   * unknown host; after their retries) or timed out (a call that times out is tried once
   * more) before the run stops with stoppedBy 'endpoint' (default 3); with `follow` it
   * pauses instead (see `endpointPauseMs`) and goes on. Such items go back to pending, not
   * failed; an item that times out again after going back once in the same run fails.
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
 * in priority order under a lease, from the jobs this worker may claim from (its `jobIds`,
 * else the jobs open to workers; at its `endpoint`, of its `models`), {@link judgeTask}
 * judges each (stored answers reused, every call recorded), and a {@link JudgeResultWriter}
 * writes the calls, labels and failures in group transactions guarded by the lease. Never
 * holds a transaction across an LLM call. While the database cannot be reached it waits
 * for it (answered calls are kept until written). When the signal aborts it stops claiming
 * and sending, lets the calls in flight finish (or cuts them off after `cancelAfterMs`) and
 * puts unfinished items back; when the budget is spent it stops claiming and lets
 * in-flight items finish; after `unreachableLimit` items in a row could not reach the
 * endpoint it stops (when following: pauses, then goes on). Apps start it through
 * startJudgeWorker, which builds the client for the configured endpoint.
 */
export async function runJudgeWorker(
  db: Queryable,
  options: JudgeWorkerOptions,
): Promise<JudgeWorkerResult> {
  return new JudgeWorkerRun(db, options).run();
}

/**
 * One run of a judge worker: its parts ({@link WorkerStop}, {@link DatabaseWatch},
 * {@link EndpointGuard}, {@link WorkerTally}, the feed and the writer) and the loop that
 * starts items while slots are free.
 */
class JudgeWorkerRun {
  private readonly tally = new WorkerTally();
  private readonly changes = new Changes();
  private readonly stop: WorkerStop;
  private readonly database: DatabaseWatch;
  private readonly endpoint: EndpointGuard;
  private readonly writer: JudgeResultWriter;
  private readonly jobs: JudgeJobSpecs;
  private readonly deps: JudgeDeps;
  private readonly feed: JudgeTaskFeed;
  private readonly concurrency: number;
  /**
   * Items between their start and their answer, at most `concurrency` (the calls in
   * flight); `pending` holds every started item until its result is written. A slot is
   * free again as soon as the answer is in, while the write joins the next group commit.
   */
  private calling = 0;
  private readonly pending = new Set<Promise<void>>();
  private endpointError: string | undefined;
  private endpointTimedOut = false;
  /**
   * Items put back because their calls timed out, this run (`jobId topic docno`), and
   * whether other items got answers while they waited.
   */
  private readonly timedOutOnce = new Map<string, boolean>();
  /** Items that got an answer this run (labelled, or a paid call). */
  private answered = 0;
  private toldTimeout = false;

  constructor(
    db: Queryable,
    private readonly options: JudgeWorkerOptions,
  ) {
    const owner = options.workerId ?? newWorkerId();
    this.concurrency = Math.max(1, options.concurrency ?? 8);
    this.stop = new WorkerStop({
      cancelAfterMs: options.cancelAfterMs,
      onStop: () => this.changes.notify(),
    });
    this.database = new DatabaseWatch({
      giveUpMs: options.databaseGiveUpMs,
      onNotice: options.onNotice,
      onGiveUp: (error) => {
        this.stop.fail(error);
        this.stop.request('signal');
        this.stop.cutOff();
        this.changes.notify();
      },
    });
    this.endpoint = new EndpointGuard({
      limit: options.unreachableLimit ?? 3,
      follow: options.follow === true,
      firstPauseMs: options.endpointPauseMs ?? 30_000,
    });
    this.writer = new JudgeResultWriter(db, owner, {
      abandon: this.stop.abandon,
      onUnavailable: (error) =>
        this.database.outOfReach(
          error,
          'the database cannot be reached; results wait until it is back',
        ),
      onWritten: () => this.database.reached(),
      onRefused: (what) => options.onNotice?.(what),
    });
    this.jobs = new JudgeJobSpecs(db, this.stop.abandon);
    // With the database store every call goes to the writer (failed attempts too).
    const dbStore = options.deps.store
      ? undefined
      : new WorkerCallStore(db, (call) => this.writer.call(call), this.stop.stop);
    this.deps = {
      ...options.deps,
      store: options.deps.store ?? dbStore!,
      stop: this.stop.stop,
      cancel: this.stop.cancel,
    };
    this.feed = new JudgeTaskFeed(db, {
      owner,
      leaseMs: options.leaseMs ?? 120_000,
      concurrency: this.concurrency,
      jobIds: options.jobIds,
      endpoint: options.endpoint,
      models: options.models,
      prepare: async (tasks) => dbStore?.prefetch(await firstRequestHashes(tasks, this.jobs)),
      onUnavailable: (error) =>
        this.database.outOfReach(
          error,
          'the database cannot be reached; claiming waits until it is back',
        ),
      onReachable: () => this.database.reached(),
      onChange: () => this.changes.notify(),
      judging: () => this.pending.size > 0,
    });
  }

  async run(): Promise<JudgeWorkerResult> {
    const unfollow = this.stop.follow(this.options.signal);
    try {
      await this.loop();
      while (this.pending.size > 0) await Promise.all(this.pending);
    } finally {
      unfollow();
      // Tasks claimed but never started go back at once; so does everything after a failure.
      await this.feed.close(this.stop.fatal !== undefined);
      await this.writer.flushed();
      this.stop.dispose();
      this.database.dispose();
    }
    if (this.stop.fatal) throw this.stop.fatal.error;
    const result: JudgeWorkerResult = {
      ...this.tally.progress,
      inFlight: 0,
      stoppedBy: this.stop.stoppedBy,
      failures: this.tally.failures,
      unwrittenCalls: this.writer.unwrittenCalls,
    };
    if (this.endpointError !== undefined) result.endpointError = this.endpointError;
    if (this.endpointTimedOut) result.endpointTimedOut = true;
    return result;
  }

  /** Starts items while slots are free, until stopped, failed, out of budget or out of work. */
  private async loop(): Promise<void> {
    const { feed, stop } = this;
    for (;;) {
      if (feed.failure !== undefined) stop.fail(feed.failure);
      if (stop.fatal || stop.stop.aborted) return;
      if (this.endpoint.paused) {
        await Promise.race([
          pause(this.endpoint.resumesAt - Date.now(), stop.stop),
          this.changes.next,
        ]);
        continue;
      }
      while (this.calling < this.concurrency && !this.budgetSpent()) {
        const task = feed.take();
        if (!task) break;
        this.start(task);
      }
      if (this.budgetSpent()) {
        if (this.pending.size === 0) return stop.ended('budget');
      } else feed.refill(this.concurrency - this.calling);
      if (this.pending.size === 0 && feed.exhausted) {
        if (!this.options.follow) return;
        await Promise.race([pause(this.options.pollMs ?? 2_000, stop.stop), this.changes.next]);
        feed.poll();
        continue;
      }
      await this.changes.next;
    }
  }

  /** Judges `task` in the background; its slot frees once it is answered. */
  private start(task: ClaimedJudgeTask): void {
    this.calling++;
    const running: Promise<void> = this.judgeAndWrite(task)
      .catch((error: unknown) => this.stop.fail(error))
      .finally(() => {
        this.feed.itemFinished();
        this.pending.delete(running);
        this.tally.progress.inFlight = this.pending.size;
        this.changes.notify();
        this.options.onProgress?.({ ...this.tally.progress });
      });
    this.pending.add(running);
    this.tally.progress.inFlight = this.pending.size;
  }

  private async judgeAndWrite(task: ClaimedJudgeTask): Promise<void> {
    const key = keyOf(task);
    // While a timed-out call waits to be tried again, the item says so (the job's
    // progress counts it), so a hanging endpoint never looks like slow progress.
    const deps: JudgeDeps = { ...this.deps, onRetry: (error) => this.timedOut(key, error) };
    const answeredBefore = this.answered;
    let result: JudgeTaskResult;
    try {
      result = await judgeTask(task, await this.jobs.get(task.jobId), deps);
    } catch (error) {
      // The job could not be read: while the database is out of reach the item waits.
      if (!isDatabaseUnavailable(error)) throw error;
      result = { kind: 'release', why: 'database', paidCalls: [] };
    }
    this.calling--;
    this.changes.notify();
    this.tally.paid(result);
    this.heed(result);
    if (result.kind === 'label' || result.paidCalls.length > 0) this.answered++;
    if (result.kind === 'release' && result.why === 'timeout')
      result = this.afterTimeout(key, result, this.answered > answeredBefore);
    const { writer, tally } = this;
    if (result.kind === 'release') tally.wrote(key, result, await writer.release(key));
    else if (result.kind === 'label')
      tally.wrote(key, result, await writer.label(key, result.label));
    else tally.wrote(key, result, await writer.fail(key, result.failure));
  }

  /** A call of `key` failed and is tried again: a timeout is noted on its task. */
  private timedOut(key: JudgeTaskKey, error: unknown): void {
    if (!classifyChatError(error).timedOut) return;
    const message = error instanceof Error ? error.message : String(error);
    this.writer.noteTimeout(key, `${message}; tried once more`);
    if (this.toldTimeout) return;
    this.toldTimeout = true;
    this.options.onNotice?.(
      `a call timed out (${message}); each call that times out is tried once more, then its item goes back to pending`,
    );
  }

  /**
   * An item whose calls timed out goes back to pending, noted as timed out: a hanging
   * endpoint is no fault of the item's (and the endpoint guard gives it up). Timing out
   * again after going back, while the endpoint answered other items as it waited, it fails:
   * the fault looks like the item's, and the run would otherwise claim it again and again.
   */
  private afterTimeout(
    key: JudgeTaskKey,
    result: Extract<JudgeTaskResult, { kind: 'release' }>,
    othersAnswered: boolean,
  ): JudgeTaskResult {
    const id = `${key.jobId}\t${key.topicId}\t${key.docId}`;
    const error = result.error ?? 'timed out';
    const before = this.timedOutOnce.get(id);
    if (before !== undefined && (before || othersAnswered)) {
      const costUsd = result.paidCalls.reduce((sum, call) => sum + (call.costUsd ?? 0), 0);
      return {
        kind: 'fail',
        failure: {
          error: `${error} (timed out again after going back to pending, while other items were answered)`,
          costUsd,
        },
        paidCalls: result.paidCalls,
      };
    }
    this.timedOutOnce.set(id, othersAnswered);
    this.writer.noteTimeout(key, `${error}; went back to pending`);
    return result;
  }

  /** What an item's result says about the endpoint: go on, stop the run, or pause claiming. */
  private heed(result: JudgeTaskResult): void {
    const verdict = this.endpoint.judged(result, this.stop.stop.aborted);
    if (verdict.action === 'stop') {
      this.endpointError = verdict.why;
      if (verdict.timedOut) this.endpointTimedOut = true;
      this.stop.request('endpoint');
    } else if (verdict.action === 'pause') {
      this.options.onNotice?.(verdict.notice);
      void this.feed.putBack();
      this.changes.notify();
    }
  }

  /** Whether the run has paid its budget, counting the calls in flight at the average cost. */
  private budgetSpent(): boolean {
    const budget = this.options.budgetUsd;
    return budget !== undefined && this.tally.expectedCost(this.calling) >= budget;
  }
}

function keyOf(task: ClaimedJudgeTask): JudgeTaskKey {
  return { jobId: task.jobId, topicId: task.topicId, docId: task.docId };
}
