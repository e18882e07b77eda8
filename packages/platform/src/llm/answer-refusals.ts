// A model's answer the database cannot store (a NUL character in it) must fail the one
// item it answers, never the run: the judge worker's writer keeps such a call without its
// answer and fails the task, and the steps that judge through a call store directly (RAG
// assessments, nugget banks, answer scoring) do the same through this store.
import type { JudgeOutcome } from '@assay/judge';
import type { CallStore, LlmCallRecord } from '@assay/llm';
import { describeDataError } from '../core/errors.js';

/** Why an answer holding a NUL character is not kept (the database's own words for it). */
const NUL_REASON = describeDataError('22021')!;

/** Whether a parsed answer holds a NUL character in a string or key (no text column takes one). */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).some(([key, v]) => key.includes('\0') || holdsNul(v));
  return false;
}

/**
 * A call store that keeps going when the database refuses an answer: the call is stored
 * without it, its error saying why, and {@link kept} then fails the item that answer
 * judged. Any other failure to store is thrown as before.
 */
export class AnswerRefusingStore implements CallStore {
  /** Request hash → why its answer was not stored. */
  private readonly refused = new Map<string, string>();

  constructor(private readonly inner: CallStore) {}

  get(hash: string): Promise<LlmCallRecord | undefined> {
    return this.inner.get(hash);
  }

  async put(record: LlmCallRecord): Promise<void> {
    try {
      await this.inner.put(record);
    } catch (error) {
      const reason = describeDataError((error as { code?: unknown }).code);
      if (reason === undefined || (record.response === undefined && record.logprobs === undefined))
        throw error;
      this.refused.set(record.hash, reason);
      const { response: _response, logprobs: _logprobs, ...rest } = record;
      await this.inner.put({ ...rest, error: `the answer could not be stored: ${reason}` });
    }
  }

  /**
   * The outcome as it can be stored: a label read from an answer the store refused, or
   * holding a NUL character itself, fails with the reason (a label never stands on an
   * answer that is not kept); a failure's raw answer holding a NUL is left out, and its
   * reason says so.
   */
  kept(outcome: JudgeOutcome): JudgeOutcome {
    if (outcome.status === 'labelled') {
      const refused = this.refused.get(outcome.call.hash);
      const reason = refused ?? (holdsNul(outcome.judgment.fields) ? NUL_REASON : undefined);
      if (reason === undefined) return outcome;
      return {
        status: 'failed',
        cause: 'unreadable',
        reason: `the answer could not be stored: ${reason}`,
        paidCalls: outcome.paidCalls,
        callHash: outcome.call.hash,
        // The raw answer is kept with the item when it can be (only the label could not).
        ...(refused === undefined && outcome.call.response !== undefined
          ? { raw: outcome.call.response }
          : {}),
      };
    }
    if (outcome.status === 'failed' && outcome.raw !== undefined && holdsNul(outcome.raw)) {
      const { raw: _raw, ...rest } = outcome;
      return {
        ...rest,
        reason: `${outcome.reason} (the raw answer could not be stored: ${NUL_REASON})`,
      };
    }
    return outcome;
  }
}
