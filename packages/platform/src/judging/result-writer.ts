import {
  completeJudgeTasks,
  failJudgeTask,
  insertLlmCalls,
  isDatabaseUnavailable,
  noteJudgeTaskTimeout,
  releaseJudgeTasks,
  withTransaction,
  type JudgeTaskFailure,
  type JudgeTaskKey,
  type JudgeTaskLabel,
  type Queryable,
} from '@assay/db';
import type { LlmCallRecord } from '@assay/llm';
import { toCallInput } from '../llm/call-store.js';
import { pause } from '../core/database-retry.js';
import { describeDataError } from '../core/errors.js';

/** What became of a label or failure handed to the writer. */
export type WriteOutcome =
  /** Written as asked. */
  | 'written'
  /** The label could not be stored; the task was failed with the reason instead. */
  | 'failed'
  /** Another worker holds the task now (its lease expired): nothing was written. */
  | 'lost'
  /** The writer gave up (the database stayed out of reach until the run stopped). */
  | 'unwritten';

type Op =
  | { kind: 'call'; record: LlmCallRecord }
  | { kind: 'label'; key: JudgeTaskKey; label: JudgeTaskLabel }
  | { kind: 'fail'; key: JudgeTaskKey; failure: JudgeTaskFailure }
  | { kind: 'release'; key: JudgeTaskKey }
  | { kind: 'note'; key: JudgeTaskKey; note: string };

interface Queued {
  op: Op;
  done: (outcome: WriteOutcome) => void;
}

/** Options of {@link JudgeResultWriter}. */
export interface JudgeResultWriterOptions {
  /** When aborted, writes still waiting for the database are given up ('unwritten'). */
  abandon?: AbortSignal;
  /** Told each time a write waits for the database to come back. */
  onUnavailable?: (error: unknown) => void;
  /** Told each time a group was written (the database is in reach). */
  onWritten?: () => void;
  /** Told about a record or label the database refused, and what was done instead. */
  onRefused?: (what: string) => void;
}

/**
 * Writes a judge worker's results: LLM calls, labels, failures, notes of timed-out calls
 * and tasks put back. What is handed in while a write runs goes into the next one (group
 * commit), in one transaction, calls before the labels that use them; labels, failures and
 * notes only while this worker holds the task's lease. While the database cannot be reached, writes wait and
 * try again (answered calls are kept in memory, never lost while the process runs). A
 * record the database refuses is isolated: the others of its group are written, a call
 * whose answer cannot be stored is kept without it (its error says why), and a task whose
 * label cannot be stored is failed with the reason.
 */
export class JudgeResultWriter {
  private readonly queue: Queued[] = [];
  private draining: Promise<void> | undefined;
  /** Calls whose answer the database refused, with the reason: their labels fail instead. */
  private readonly unstorable = new Map<string, string>();

  constructor(
    private readonly db: Queryable,
    private readonly owner: string,
    private readonly options: JudgeResultWriterOptions = {},
  ) {}

  /** Records one LLM call (answered or failed); never fails. */
  call(record: LlmCallRecord): void {
    void this.add({ kind: 'call', record });
  }

  /** Writes a task's label (and its task's status) while this worker holds the lease. */
  label(key: JudgeTaskKey, label: JudgeTaskLabel): Promise<WriteOutcome> {
    return this.add({ kind: 'label', key, label });
  }

  /** Fails a task with the reason (and raw answer) while this worker holds the lease. */
  fail(key: JudgeTaskKey, failure: JudgeTaskFailure): Promise<WriteOutcome> {
    return this.add({ kind: 'fail', key, failure });
  }

  /** Puts a task back to pending (its lease released) for this or another worker. */
  release(key: JudgeTaskKey): Promise<WriteOutcome> {
    return this.add({ kind: 'release', key });
  }

  /** Notes on a task this worker holds that its last call timed out; never fails. */
  noteTimeout(key: JudgeTaskKey, note: string): void {
    void this.add({ kind: 'note', key, note });
  }

  /** Resolves once everything handed in so far has been written (or given up). */
  async flushed(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Answered calls given up (the database stayed out of reach until the run stopped). */
  unwrittenCalls = 0;

  private add(op: Op): Promise<WriteOutcome> {
    return new Promise<WriteOutcome>((done) => {
      this.queue.push({ op, done });
      // Let the items finishing in the same tick join the first write.
      this.draining ??= new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.drain())
        .finally(() => (this.draining = undefined));
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) await this.write(this.queue.splice(0, 500));
  }

  /** Writes a group, waiting for the database as long as allowed; never throws. */
  private async write(group: Queued[]): Promise<void> {
    group = group.map((q) => this.unlessUnstorable(q));
    for (let wait = 250; ; wait = Math.min(wait * 2, 5_000)) {
      try {
        const outcomes = await this.commit(group.map((q) => q.op));
        this.options.onWritten?.();
        group.forEach((q, i) => q.done(outcomes[i]!));
        return;
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          if (this.options.abandon?.aborted) {
            for (const q of group) {
              if (q.op.kind === 'call' && q.op.record.response !== undefined) this.unwrittenCalls++;
              q.done('unwritten');
            }
            return;
          }
          this.options.onUnavailable?.(error);
          await pause(wait, this.options.abandon);
          continue;
        }
        if (group.length > 1) {
          // One record the database refuses must not take the others down with it.
          for (const q of group) await this.write([q]);
          return;
        }
        group[0]!.done(await this.refused(group[0]!.op, error));
        return;
      }
    }
  }

  /**
   * A label whose answer could not be stored is not written: its task fails with the
   * reason (a label must never stand on an answer that is not kept).
   */
  private unlessUnstorable(q: Queued): Queued {
    if (q.op.kind !== 'label' || !q.op.label.callHash) return q;
    const reason = this.unstorable.get(q.op.label.callHash);
    if (reason === undefined) return q;
    return {
      op: {
        kind: 'fail',
        key: q.op.key,
        failure: {
          error: `the answer could not be stored: ${reason}`,
          callHash: q.op.label.callHash,
          costUsd: q.op.label.costUsd ?? 0,
        },
      },
      done: (outcome) => q.done(outcome === 'written' ? 'failed' : outcome),
    };
  }

  /** What to write instead of a record the database refused. */
  private async refused(op: Op, error: unknown): Promise<WriteOutcome> {
    const reason =
      describeDataError((error as { code?: unknown }).code) ??
      (error instanceof Error ? error.message : String(error));
    if (op.kind === 'call') {
      if (op.record.response === undefined && op.record.logprobs === undefined) {
        this.options.onRefused?.(`an LLM call record was refused (${reason}); not kept`);
        return 'written';
      }
      const { response: _response, logprobs: _logprobs, ...rest } = op.record;
      this.unstorable.set(op.record.hash, reason);
      this.options.onRefused?.(
        `the answer of call ${op.record.hash.slice(0, 12)} could not be stored (${reason}); the call is kept without it`,
      );
      return this.retryOnce({
        kind: 'call',
        record: { ...rest, error: `the answer could not be stored: ${reason}` },
      });
    }
    if (op.kind === 'label') {
      this.options.onRefused?.(
        `the label of ${op.key.topicId} ${op.key.docId} could not be stored (${reason}); the item is failed`,
      );
      const outcome = await this.retryOnce({
        kind: 'fail',
        key: op.key,
        failure: {
          error: `the answer could not be stored: ${reason}`,
          callHash: op.label.callHash ?? null,
          costUsd: op.label.costUsd ?? 0,
        },
      });
      return outcome === 'written' ? 'failed' : outcome;
    }
    if (op.kind === 'fail' && op.failure.raw !== null && op.failure.raw !== undefined)
      // The raw answer is what the database refused: keep the reason without it.
      return this.retryOnce({
        kind: 'fail',
        key: op.key,
        failure: {
          ...op.failure,
          error: `${op.failure.error} (the raw answer could not be stored: ${reason})`,
          raw: null,
        },
      });
    // A note only tells what is going on: dropped, it changes nothing else.
    if (op.kind === 'note') return 'written';
    this.options.onRefused?.(`a task could not be updated (${reason}); it goes back to pending`);
    return op.kind === 'release' ? 'written' : this.retryOnce({ kind: 'release', key: op.key });
  }

  /** Writes one replacement record (waiting for the database as usual); a second refusal is given up. */
  private async retryOnce(op: Op): Promise<WriteOutcome> {
    for (let wait = 250; ; wait = Math.min(wait * 2, 5_000)) {
      try {
        return (await this.commit([op]))[0]!;
      } catch (error) {
        if (!isDatabaseUnavailable(error) || this.options.abandon?.aborted) return 'unwritten';
        await pause(wait, this.options.abandon);
      }
    }
  }

  /** One transaction for a group of operations; the outcome of each. */
  private commit(ops: readonly Op[]): Promise<WriteOutcome[]> {
    return withTransaction(this.db, async (trx) => {
      const calls = ops.flatMap((op) => (op.kind === 'call' ? [toCallInput(op.record)] : []));
      if (calls.length > 0) await insertLlmCalls(trx, calls);
      const labels = ops.flatMap((op) => (op.kind === 'label' ? [op] : []));
      const written = await completeJudgeTasks(trx, this.owner, labels);
      const outcomes: WriteOutcome[] = [];
      for (const op of ops) {
        if (op.kind === 'call') outcomes.push('written');
        else if (op.kind === 'label')
          outcomes.push(
            written.has(`${op.key.jobId}\t${op.key.topicId}\t${op.key.docId}`) ? 'written' : 'lost',
          );
        else if (op.kind === 'fail')
          outcomes.push(
            (await failJudgeTask(trx, op.key, this.owner, op.failure)) ? 'written' : 'lost',
          );
        else if (op.kind === 'note')
          outcomes.push(
            (await noteJudgeTaskTimeout(trx, op.key, this.owner, op.note)) ? 'written' : 'lost',
          );
        else {
          await releaseJudgeTasks(trx, this.owner, [op.key]);
          outcomes.push('written');
        }
      }
      return outcomes;
    });
  }
}
