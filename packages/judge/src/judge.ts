import {
  callCost,
  type CallStore,
  type ChatClient,
  type ChatRequest,
  chatRequestHash,
  classifyChatError,
  DEFAULT_PRICES,
  estimateTokens,
  type LlmCallRecord,
  type ModelPrice,
  type RateLimiter,
  type RetryPolicy,
  type TokenLogprob,
  withRetries,
} from '@assay/llm';
import { parseJudgeOutput, type ParsedJudgment } from './parse-output.js';
import { renderTemplate, type JudgeTemplate, type TemplateValues } from './template.js';

/** Model settings of one judge configuration. */
export interface JudgeSettings {
  model: string;
  temperature?: number;
  /** Nucleus sampling (`top_p`); absent, the endpoint's default. */
  topP?: number;
  maxTokens?: number;
  /** Ask for structured output with the template's schema (default true). */
  structuredOutput?: boolean;
  /** Ask for log-probabilities to keep the grade distribution (default false). */
  logprobs?: boolean;
  /** Answers that do not parse are asked again up to this many times in all (default 3). */
  maxParseAttempts?: number;
  /**
   * Sent as the request's `seed` (a re-ask adds attempt − 1). Repeated trials of the same
   * prompt use different seeds so each is its own request and its own cache entry.
   */
  seed?: number;
}

/** What judging needs: the endpoint, where calls are kept, pacing and retry policy. */
export interface JudgeDeps {
  client: ChatClient;
  store: CallStore;
  limiter?: RateLimiter;
  retry?: RetryPolicy;
  prices?: Readonly<Record<string, ModelPrice>>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** The outcome of judging one item: labelled, or failed with the reason and raw text. */
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
      /** Calls paid for this time (retries and re-asks included). */
      paidCalls: LlmCallRecord[];
    }
  | { status: 'failed'; reason: string; raw?: string; paidCalls: LlmCallRecord[] };

/** Builds the request for one item (attempt > 1 marks a re-ask after an unreadable answer). */
export function buildJudgeRequest(
  template: JudgeTemplate,
  values: TemplateValues,
  settings: JudgeSettings,
  attempt = 1,
): ChatRequest {
  const prompt = renderTemplate(template, values);
  const request: ChatRequest = {
    model: settings.model,
    messages: [
      { role: 'system', content: prompt.system },
      { role: 'user', content: prompt.user },
    ],
    temperature: settings.temperature ?? template.model.temperature ?? 0,
  };
  if (settings.topP !== undefined) request.top_p = settings.topP;
  const maxTokens = settings.maxTokens ?? template.model.maxTokens;
  if (maxTokens !== undefined) request.max_tokens = maxTokens;
  if (settings.structuredOutput ?? true) {
    request.response_format = {
      type: 'json_schema',
      json_schema: { name: template.id.replace(/-/g, '_'), schema: template.schema, strict: true },
    };
  }
  if (settings.logprobs) {
    request.logprobs = true;
    request.top_logprobs = 5;
  }
  // A re-ask must not hit the cached unreadable answer: the seed makes it a new request.
  if (settings.seed !== undefined) request.seed = settings.seed + attempt - 1;
  else if (attempt > 1) request.seed = attempt;
  return request;
}

/**
 * Judges one item: renders the template, reuses a stored answer for the same request or
 * calls the endpoint (paced, retried with backoff that honours Retry-After), records every
 * call, and reads the answer. An answer that cannot be read is asked again, then reported
 * as failed with its raw text — never turned into a grade.
 */
export async function judgeItem(
  template: JudgeTemplate,
  values: TemplateValues,
  settings: JudgeSettings,
  deps: JudgeDeps,
): Promise<JudgeOutcome> {
  const now = deps.now ?? Date.now;
  const paidCalls: LlmCallRecord[] = [];
  const maxParseAttempts = settings.maxParseAttempts ?? 3;
  let lastRaw: string | undefined;
  let lastReason = 'no answer';
  for (let attempt = 1; attempt <= maxParseAttempts; attempt++) {
    const request = buildJudgeRequest(template, values, settings, attempt);
    const hash = chatRequestHash(request);
    let call = await deps.store.get(hash);
    const cached = call !== undefined;
    if (!call) {
      try {
        call = await callEndpoint(request, hash, deps, now);
      } catch (error) {
        const failed = failedRecord(request, hash, error, now);
        await deps.store.put(failed);
        paidCalls.push(failed);
        return { status: 'failed', reason: failed.error!, paidCalls };
      }
      await deps.store.put(call);
      paidCalls.push(call);
    }
    const raw = call.response ?? '';
    const parsed = parseJudgeOutput(raw, template);
    if (parsed.ok) {
      const outcome: JudgeOutcome = {
        status: 'labelled',
        judgment: parsed.judgment,
        call,
        cached,
        paidCalls,
      };
      const distribution =
        call.logprobs && template.gradeField
          ? gradeDistribution(call.logprobs, template)
          : undefined;
      if (distribution) outcome.distribution = distribution;
      return outcome;
    }
    lastRaw = raw;
    lastReason = parsed.reason;
  }
  const failure: JudgeOutcome = {
    status: 'failed',
    reason: `unreadable answer after ${maxParseAttempts} attempts: ${lastReason}`,
    paidCalls,
  };
  if (lastRaw !== undefined) failure.raw = lastRaw;
  return failure;
}

async function callEndpoint(
  request: ChatRequest,
  hash: string,
  deps: JudgeDeps,
  now: () => number,
): Promise<LlmCallRecord> {
  const tokens =
    request.messages.reduce((s, m) => s + estimateTokens(m.content), 0) +
    (request.max_tokens ?? 256);
  const once = async () => {
    const started = now();
    const response = await deps.client.complete(request);
    const record: LlmCallRecord = {
      hash,
      model: request.model,
      request,
      response: response.content,
      promptTokens: response.promptTokens,
      completionTokens: response.completionTokens,
      latencyMs: now() - started,
      createdAt: new Date(now()).toISOString(),
    };
    if (response.logprobs) record.logprobs = response.logprobs;
    const cost = callCost(request.model, response, deps.prices ?? DEFAULT_PRICES);
    if (cost !== undefined) record.costUsd = cost;
    return record;
  };
  const run = () =>
    withRetries(once, classifyChatError, {
      ...(deps.retry ? { policy: deps.retry } : {}),
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
      ...(deps.random ? { random: deps.random } : {}),
    });
  return deps.limiter ? deps.limiter.run(tokens, run) : run();
}

function failedRecord(
  request: ChatRequest,
  hash: string,
  error: unknown,
  now: () => number,
): LlmCallRecord {
  return {
    hash,
    model: request.model,
    request,
    promptTokens: 0,
    completionTokens: 0,
    latencyMs: 0,
    error: error instanceof Error ? error.message : String(error),
    createdAt: new Date(now()).toISOString(),
  };
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
