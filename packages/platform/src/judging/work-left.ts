import { listJudgeWorkLeft, type JudgeClaimScope, type Queryable } from '@assay/db';

/** Why a worker does not take a job's pending items. */
export type NotTakenWhy =
  | { reason: 'paused' }
  /** The worker names jobs (`--job`) and not this one. */
  | { reason: 'not-named' }
  /** An `assay judge` run keeps the job for itself (a worker takes it only by naming it). */
  | { reason: 'kept' }
  /** The job is judged at another endpoint. */
  | { reason: 'endpoint'; endpoint: string }
  /** The job's model is none of the worker's. */
  | { reason: 'model'; model: string };

/** What is left once a worker ran out of work: what exists, and why it did not judge it. */
export interface JudgeWorkLeftSummary {
  /** Pending items of the jobs the worker takes (items added since its last claim). */
  pending: number;
  /**
   * Items of those jobs that other workers hold under their leases: live workers are
   * judging them; a dead worker's come back once its lease ends.
   */
  held: {
    items: number;
    jobs: number[];
    /** Of those, items whose lease has ended already (the next claim takes them over). */
    leaseEnded: number;
    /** Seconds until the last of those leases ends (null: none held). */
    lastLeaseEndsInSeconds: number | null;
  };
  /** Pending items of the jobs the worker does not take, by job, with why. */
  notTaken: Array<{ jobId: number; pending: number; why: NotTakenWhy }>;
}

/**
 * What a worker of `scope` (its `jobIds`, endpoint and models, as it claims) owning
 * `owner`'s leases leaves behind when it runs out of work: the pending items of the jobs
 * it takes, the items other workers hold in those jobs (possibly dead workers, whose
 * leases have yet to end), and the pending items of every other job with the reason it
 * does not take them. Which jobs it takes is the claim's own rule (claimableJob); the
 * reasons only explain it.
 */
export async function judgeWorkLeft(
  db: Queryable,
  scope: JudgeClaimScope,
  owner: string,
): Promise<JudgeWorkLeftSummary> {
  const summary: JudgeWorkLeftSummary = {
    pending: 0,
    held: { items: 0, jobs: [], leaseEnded: 0, lastLeaseEndsInSeconds: null },
    notTaken: [],
  };
  const { held } = summary;
  for (const job of await listJudgeWorkLeft(db, scope, owner)) {
    if (!job.claimable) {
      if (job.pending > 0)
        summary.notTaken.push({
          jobId: job.jobId,
          pending: job.pending,
          why: whyNotTaken(job, scope),
        });
      continue;
    }
    summary.pending += job.pending;
    if (job.heldByOthers === 0) continue;
    held.items += job.heldByOthers;
    held.jobs.push(job.jobId);
    held.leaseEnded += job.leaseEnded;
    const ends = job.lastLeaseEndsInSeconds;
    if (ends !== null)
      held.lastLeaseEndsInSeconds = Math.max(held.lastLeaseEndsInSeconds ?? ends, ends);
  }
  return summary;
}

/** The first reason, in claimableJob's terms, that a worker of `scope` does not take `job`. */
function whyNotTaken(
  job: {
    jobId: number;
    status: string;
    openToWorkers: boolean;
    endpoint: string | null;
    model: string;
  },
  scope: JudgeClaimScope,
): NotTakenWhy {
  if (job.status === 'paused') return { reason: 'paused' };
  if (scope.jobIds) {
    if (!scope.jobIds.includes(job.jobId)) return { reason: 'not-named' };
  } else if (!job.openToWorkers) return { reason: 'kept' };
  if (scope.endpoint !== undefined && job.endpoint !== null && job.endpoint !== scope.endpoint)
    return { reason: 'endpoint', endpoint: job.endpoint };
  return { reason: 'model', model: job.model };
}
