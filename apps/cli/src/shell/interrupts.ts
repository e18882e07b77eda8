import { releaseWorkerTasks } from '@assay/platform';
import { EXIT } from './exit-codes.js';
import type { PlatformCommandIo } from './platform-session.js';

/**
 * Runs `work` with Ctrl-C (SIGINT) and SIGTERM turned into a graceful stop: the first stops
 * claiming and lets items in flight finish; a second puts this worker's tasks back to
 * pending and exits at once (130).
 */
export async function withInterrupts<T>(
  io: PlatformCommandIo,
  db: Parameters<typeof releaseWorkerTasks>[0],
  workerId: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onSignal = () => {
    if (!controller.signal.aborted) {
      io.stderr('\nstopping: finishing the items in flight (press Ctrl-C again to stop now)\n');
      controller.abort();
      return;
    }
    void releaseWorkerTasks(db, workerId)
      .catch(() => 0)
      .then((n) => {
        io.stderr(`stopped; ${n} items in flight put back to pending\n`);
        process.exit(EXIT.interrupted);
      });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
