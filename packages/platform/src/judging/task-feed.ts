import {
  claimJudgeTasks,
  isDatabaseUnavailable,
  releaseJudgeTasks,
  renewJudgeTaskLeases,
  type ClaimedJudgeTask,
  type Queryable,
} from '@assay/db';
import { claimBatchSize } from './claims.js';

/** Options of {@link JudgeTaskFeed}. */
export interface JudgeTaskFeedOptions {
  /** The lease owner. */
  owner: string;
  /** Lease length in ms; renewed every third of it while tasks are held. */
  leaseMs: number;
  /** Items judged at once: the feed keeps two batches of a quarter of it claimed ahead. */
  concurrency: number;
  /** Claim only from these jobs (default: the jobs open to workers). */
  jobIds?: readonly number[] | undefined;
  /** Claim only from jobs recorded at this endpoint (see claimJudgeTasks). */
  endpoint?: string | undefined;
  /** Claim only from jobs of these models. */
  models?: readonly string[] | undefined;
  /** Runs on each claimed batch before it is handed out (looking up stored answers). */
  prepare?: (tasks: readonly ClaimedJudgeTask[]) => Promise<void>;
  /** Told when a claim waits because the database cannot be reached. */
  onUnavailable?: (error: unknown) => void;
  /** Told when a claim reached the database. */
  onReachable?: () => void;
  /** Told about every change (a claim answered): the worker looks again. */
  onChange: () => void;
  /** Whether the worker holds tasks being judged (leases are renewed only while tasks are held). */
  judging: () => boolean;
}

/**
 * The tasks a judge worker judges: claimed in priority order under the worker's lease, in
 * batches, in the background, keeping a few ready so a free slot never waits for a claim
 * (on PGlite a claim may queue behind a group commit); leases renewed while tasks are held.
 * After a claim found nothing it claims again only once another item has finished (or,
 * when following, after a poll interval). While the database cannot be reached it claims
 * nothing and tries again after a pause. Tasks claimed but never handed out go back to
 * pending when it closes.
 */
export class JudgeTaskFeed {
  private readonly ready: ClaimedJudgeTask[] = [];
  private claiming: Promise<void> | undefined;
  private readonly batch: number;
  private readonly heartbeat: NodeJS.Timeout;
  private heartbeatBusy = false;
  /** Items finished, and the count when a claim last found nothing. */
  private finished = 0;
  private exhaustedAt: number | undefined;
  /** Until when claims pause because the database could not be reached. */
  private unavailableUntil = 0;
  private unavailableWait = 250;
  private pauseTimer: NodeJS.Timeout | undefined;
  /** A failure that is not the database being out of reach: the worker stops on it. */
  failure: unknown;

  constructor(
    private readonly db: Queryable,
    private readonly options: JudgeTaskFeedOptions,
  ) {
    this.batch = claimBatchSize(options.concurrency);
    this.heartbeat = setInterval(() => this.renew(), Math.max(50, options.leaseMs / 3));
    this.heartbeat.unref();
  }

  /** The next claimed task, if one is ready. */
  take(): ClaimedJudgeTask | undefined {
    return this.ready.shift();
  }

  /** Whether a claim is in flight. */
  get busy(): boolean {
    return this.claiming !== undefined;
  }

  /** Whether the last claim found nothing and no item finished since. */
  get exhausted(): boolean {
    return this.exhaustedAt === this.finished && this.ready.length === 0 && !this.claiming;
  }

  /** Whether claims are paused while the database cannot be reached. */
  get waitingForDatabase(): boolean {
    return Date.now() < this.unavailableUntil;
  }

  /** Tasks held but not handed out. */
  get held(): number {
    return this.ready.length;
  }

  /** An item finished: a claim that found nothing may find something now. */
  itemFinished(): void {
    this.finished++;
  }

  /** Forget that the last claim found nothing (a poll interval passed). */
  poll(): void {
    this.exhaustedAt = undefined;
  }

  /** Claims more in the background when fewer than a batch is ready and `free` slots wait. */
  refill(free: number): void {
    if (this.claiming || this.exhaustedAt === this.finished || this.waitingForDatabase) return;
    if (this.ready.length > this.batch) return;
    const wanted = free + 2 * this.batch - this.ready.length;
    if (wanted <= 0) return;
    this.claiming = claimJudgeTasks(this.db, {
      owner: this.options.owner,
      leaseMs: this.options.leaseMs,
      limit: wanted,
      jobIds: this.options.jobIds,
      endpoint: this.options.endpoint,
      models: this.options.models,
    })
      .then(async (claimed) => {
        this.unavailableWait = 250;
        this.options.onReachable?.();
        if (claimed.length > 0) await this.options.prepare?.(claimed);
        this.ready.push(...claimed);
        this.exhaustedAt = claimed.length === 0 ? this.finished : undefined;
      })
      .catch((error: unknown) => {
        if (!isDatabaseUnavailable(error)) {
          this.failure ??= error;
          return;
        }
        this.options.onUnavailable?.(error);
        this.unavailableUntil = Date.now() + this.unavailableWait;
        clearTimeout(this.pauseTimer);
        this.pauseTimer = setTimeout(() => this.options.onChange(), this.unavailableWait);
        this.unavailableWait = Math.min(this.unavailableWait * 2, 5_000);
      })
      .finally(() => {
        this.claiming = undefined;
        this.options.onChange();
      });
  }

  private renew(): void {
    if (this.heartbeatBusy || (this.ready.length === 0 && !this.options.judging())) return;
    this.heartbeatBusy = true;
    renewJudgeTaskLeases(this.db, this.options.owner, this.options.leaseMs)
      .catch(() => {})
      .finally(() => (this.heartbeatBusy = false));
  }

  /** Puts the tasks claimed but not handed out back to pending (a pause); never throws. */
  async putBack(): Promise<void> {
    const unstarted = this.ready.splice(0);
    if (unstarted.length > 0)
      await releaseJudgeTasks(this.db, this.options.owner, unstarted).catch(() => 0);
  }

  /**
   * Stops claiming and renewing; puts the tasks never handed out back to pending (all the
   * worker's tasks with `all`, after a failure). Never throws.
   */
  async close(all = false): Promise<void> {
    clearInterval(this.heartbeat);
    clearTimeout(this.pauseTimer);
    await this.claiming;
    const unstarted = this.ready.splice(0);
    if (all) await releaseJudgeTasks(this.db, this.options.owner).catch(() => 0);
    else if (unstarted.length > 0)
      await releaseJudgeTasks(this.db, this.options.owner, unstarted).catch(() => 0);
  }
}
