import {
  askPrompt,
  buildPromptRequest,
  CallStoppedError,
  ChatCallError,
  UnusableAnswerError,
  type CallDeps,
  type ChatClient,
  type ChatRequest,
  type LlmCallRecord,
  type PromptSettings,
  type TokenLogprob,
} from '@assay/llm';
import { parseJudgeOutput, type ParsedJudgment } from './parse-output.js';
import type { JudgeTemplate, TemplateValues } from './template.js';

/** Model settings of one judge configuration (stored with each judge job). */
export type JudgeSettings = PromptSettings;

/** What judging needs: the endpoint's client and what every call needs (store, pacing, retries). */
export interface JudgeDeps extends CallDeps {
  client: ChatClient;
}

/** The outcome of judging one item: labelled, failed with the reason and raw text, or stopped. */
export type JudgeOutcome =
  | {
      status: 'labelled';
      judgment: ParsedJudgment;
      /** Probability of each grade, when log-probabilities were available. */
      distribution?: Record<number, number>;
      /** The call that gave the answer. */
      call: LlmCallRecord;
      /** True when that call came from the store (nothing was paid this time). */
      cached: boolean;
      /** Calls paid for this time: sent and answered (re-asks included). */
      paidCalls: LlmCallRecord[];
    }
  | {
      status: 'failed';
      /** unreadable: answers came but none could be read; endpoint: no answer came. */
      cause: 'unreadable' | 'endpoint';
      reason: string;
      raw?: string;
      paidCalls: LlmCallRecord[];
      /** The request hash of the last call tried, when one was. */
      callHash?: string;
      /** True when the endpoint could not be reached at all (nothing answered). */
      unreachable?: boolean;
      /** True when the last call waited its whole timeout, twice (the endpoint hangs). */
      timedOut?: boolean;
    }
  | {
      /** The run stopped before the item was answered (nothing to record against it). */
      status: 'stopped';
      paidCalls: LlmCallRecord[];
    };

/** Builds the request for one item (attempt > 1 marks a re-ask after an unreadable answer). */
export function buildJudgeRequest(
  template: JudgeTemplate,
  values: TemplateValues,
  settings: JudgeSettings,
  attempt = 1,
): ChatRequest {
  return buildPromptRequest(template, values, settings, attempt);
}

/**
 * Judges one item through the one ask loop (`askPrompt`): a stored answer for the same
 * request is reused, otherwise the endpoint is called (paced, retried with backoff that
 * honours Retry-After) and every call recorded; the answer is read by
 * {@link parseJudgeOutput}. An answer that cannot be read is asked again, then reported
 * as failed with its raw text — never turned into a grade. `round` counts the times the
 * item was tried again after failing (0 the first time): each round asks with attempt
 * numbers of its own (see `firstAttemptOf`), so a retry sends new requests instead of
 * reading the same unreadable answers from the store.
 */
export async function judgeItem(
  template: JudgeTemplate,
  values: TemplateValues,
  settings: JudgeSettings,
  deps: JudgeDeps,
  round = 0,
): Promise<JudgeOutcome> {
  const sent: LlmCallRecord[] = [];
  const counting: CallDeps = {
    ...deps,
    onPaidCall: (record) => {
      sent.push(record);
      deps.onPaidCall?.(record);
    },
  };
  const paid = () => sent.filter((call) => call.response !== undefined);
  // The last answer that could not be read: when asking again then fails, the item's
  // reason starts with what was wrong with it (an answer missing a required field is no
  // missing answer).
  let unreadable: { problem: string; raw: string } | undefined;
  try {
    const answer = await askPrompt(
      deps.client,
      template,
      values,
      settings,
      counting,
      (raw) => {
        const parsed = parseJudgeOutput(raw, template);
        if (parsed.ok) return { ok: true, value: parsed.judgment };
        unreadable = { problem: parsed.reason, raw };
        return parsed;
      },
      round,
    );
    const outcome: JudgeOutcome = {
      status: 'labelled',
      judgment: answer.value,
      call: answer.call,
      cached: answer.cached,
      paidCalls: paid(),
    };
    const distribution =
      answer.call.logprobs && template.gradeField
        ? gradeDistribution(answer.call.logprobs, template)
        : undefined;
    if (distribution) outcome.distribution = distribution;
    return outcome;
  } catch (error) {
    if (error instanceof CallStoppedError) return { status: 'stopped', paidCalls: paid() };
    const last = sent.at(-1);
    if (error instanceof UnusableAnswerError) {
      const failure: JudgeOutcome = {
        status: 'failed',
        cause: 'unreadable',
        reason: `unreadable answer after ${error.attempts} attempts: ${error.problem}`,
        paidCalls: paid(),
      };
      if (error.raw !== undefined) failure.raw = error.raw;
      if (last) failure.callHash = last.hash;
      return failure;
    }
    // The endpoint failed for good (after its retries): the item fails with the reason, led
    // by what was wrong with the answer before when asking again was what failed.
    if (!last) throw error;
    const why = last.error ?? (error instanceof Error ? error.message : String(error));
    const failure: JudgeOutcome = {
      status: 'failed',
      cause: 'endpoint',
      reason: unreadable ? `unreadable answer: ${unreadable.problem}; asked again: ${why}` : why,
      paidCalls: paid(),
      callHash: last.hash,
    };
    if (unreadable) failure.raw = unreadable.raw;
    if (error instanceof ChatCallError && error.unreachable) failure.unreachable = true;
    if (error instanceof ChatCallError && error.failure.timedOut) failure.timedOut = true;
    return failure;
  }
}

/**
 * The grade distribution from the log-probabilities of the token that carries the grade
 * (the first digit token after the grade field's name), normalised over the grades of the
 * scale that appear among its alternatives.
 */
export function gradeDistribution(
  tokens: readonly TokenLogprob[],
  template: JudgeTemplate,
): Record<number, number> | undefined {
  const field = template.gradeField!;
  let text = '';
  for (const t of tokens) {
    const afterField = new RegExp(`"?${field}"?\\s*[:=]\\s*"?$`).test(text);
    if (afterField && /^\s*-?\d+\s*$/.test(t.token)) {
      const probs = new Map<number, number>();
      for (const alt of [{ token: t.token, logprob: t.logprob }, ...t.top]) {
        const grade = Number(alt.token.trim());
        if (!Number.isInteger(grade) || grade < template.scale.min || grade > template.scale.max)
          continue;
        if (!probs.has(grade)) probs.set(grade, Math.exp(alt.logprob));
      }
      const total = [...probs.values()].reduce((s, p) => s + p, 0);
      if (total <= 0) return undefined;
      return Object.fromEntries(
        [...probs].sort(([a], [b]) => a - b).map(([g, p]) => [g, p / total]),
      );
    }
    text += t.token;
  }
  return undefined;
}
