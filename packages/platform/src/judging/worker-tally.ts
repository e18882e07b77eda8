import type { JudgeTaskKey } from '@assay/db';
import type { WriteOutcome } from './result-writer.js';
import type { JudgeTaskResult } from './task.js';
import type { JudgeWorkerProgress, JudgeWorkerResult } from './worker.js';

/** A worker run's counters: what was paid, and what became of each item. */
export class WorkerTally {
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
