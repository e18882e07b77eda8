import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { listJudgeLeaseOwners, processAlive, releaseJudgeTasks, type Queryable } from '@assay/db';

/** A worker's identity: host, process id and a random part (several workers per process). */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Releases the leases of workers that ran on this machine and whose process is gone (a
 * killed `assay judge` or `assay worker`, a zombie its parent has not reaped included), so
 * a rerun does not wait for their leases to expire. Workers of other machines are left to their leases. Returns tasks released.
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

/** Puts every task a worker holds back to pending (a stopped worker's items in flight); how many. */
export function releaseWorkerTasks(db: Queryable, workerId: string): Promise<number> {
  return releaseJudgeTasks(db, workerId);
}
