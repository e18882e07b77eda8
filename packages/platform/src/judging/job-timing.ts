import {
  getJudgeJobTiming,
  type JudgeJobTiming,
  type JudgeTaskCounts,
  type Queryable,
} from '@assay/db';

/** Finished items needed before a job has a rate (and an ETA). */
export const MIN_ITEMS_FOR_RATE = 5;

/** A judge job's state, finish time, rate and ETA. */
export interface JudgeJobPace {
  /** `done` once no item is pending or running (each labelled or failed); else as stored. */
  status: 'active' | 'paused' | 'done';
  /** When the last item was finished, for a done job; else null. */
  finishedAt: Date | null;
  /**
   * Items finished per second: for a done job over the whole job (first to last finished
   * item), else over its most recent items up to now, so a stalled job's rate falls. Null
   * before {@link MIN_ITEMS_FOR_RATE} items are finished.
   */
  itemsPerSecond: number | null;
  /** Seconds until the pending and running items are finished at that rate: active jobs only. */
  etaSeconds: number | null;
}

/** A job's pace from its counts and finish times (pure: no database, no clock). */
export function judgeJobPace(
  stored: 'active' | 'paused',
  progress: JudgeTaskCounts,
  timing: JudgeJobTiming,
): JudgeJobPace {
  const left = progress.pending + progress.running;
  const done = left === 0;
  let itemsPerSecond: number | null = null;
  if (timing.finished >= MIN_ITEMS_FOR_RATE) {
    if (done && timing.firstFinishedAt && timing.lastFinishedAt) {
      const seconds = (timing.lastFinishedAt.getTime() - timing.firstFinishedAt.getTime()) / 1000;
      if (seconds > 0) itemsPerSecond = (timing.finished - 1) / seconds;
    } else if (!done) {
      const oldest = timing.recentFinishedAt.at(-1);
      const seconds = oldest ? (timing.now.getTime() - oldest.getTime()) / 1000 : 0;
      if (seconds > 0) itemsPerSecond = (timing.recentFinishedAt.length - 1) / seconds;
    }
  }
  return {
    status: done ? 'done' : stored,
    finishedAt: done ? timing.lastFinishedAt : null,
    itemsPerSecond,
    etaSeconds: !done && stored === 'active' && itemsPerSecond ? left / itemsPerSecond : null,
  };
}

/** Reads a job's finish times and returns its pace. */
export async function readJudgeJobPace(
  db: Queryable,
  jobId: number,
  stored: 'active' | 'paused',
  progress: JudgeTaskCounts,
): Promise<JudgeJobPace> {
  return judgeJobPace(stored, progress, await getJudgeJobTiming(db, jobId));
}
