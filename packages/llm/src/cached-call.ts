import { callCost, DEFAULT_PRICES } from './cost.js';
import { requestHash } from './request-hash.js';
import { CallStoppedError, withRetries, type AttemptFailure } from './retry.js';
import type { ChatRequest, TokenLogprob } from './chat-client.js';
import type { LlmCallRecord } from './call-store.js';
import type { CallDeps } from './call-deps.js';

/** What one endpoint answered, before it is recorded. */
export interface SentAnswer {
  /** The answer as stored: message content, or the JSON of vectors or scores. */
  response: string;
  promptTokens: number;
  completionTokens: number;
  logprobs?: TokenLogprob[];
}

/** A call answered from the store or the endpoint. */
export interface CallResult {
  record: LlmCallRecord;
  /** True when the answer came from the store (nothing was paid). */
  cached: boolean;
}

/** The most tokens one call may report (the call store keeps them as 32-bit integers). */
export const MAX_CALL_TOKENS = 2_147_483_647;

/** An answer whose reported token usage cannot be true (negative, fractional, absurdly large). */
export class ImpossibleUsageError extends Error {
  constructor(field: string, value: number) {
    super(
      `the endpoint reported impossible token usage (${field} = ${value}); the answer is not used`,
    );
    this.name = 'ImpossibleUsageError';
  }
}

/** Throws an {@link ImpossibleUsageError} unless both counts are whole numbers in range. */
function checkUsage(answer: SentAnswer): void {
  for (const [field, value] of [
    ['prompt_tokens', answer.promptTokens],
    ['completion_tokens', answer.completionTokens],
  ] as const)
    if (!Number.isInteger(value) || value < 0 || value > MAX_CALL_TOKENS)
      throw new ImpossibleUsageError(field, value);
}

/**
 * One recorded call to an endpoint (`chat.completions`, `embeddings`, `rerank`): a stored
 * answer for the same request is reused; otherwise the request is sent (paced, retried
 * with backoff) and every attempt is recorded, answered or failed. The request body is
 * what is hashed and stored, with the endpoint's name, so equal requests to different
 * endpoints never meet. An answer whose token usage is impossible counts as a failed
 * attempt (not retried). With `deps.stop` aborted nothing is sent or retried, and with
 * `deps.cancel` aborted the attempt in flight is cut off: both end in a CallStoppedError.
 */
export async function cachedCall(
  endpointName: string,
  request: Record<string, unknown> & { model: string },
  send: (signal: AbortSignal | undefined) => Promise<SentAnswer>,
  classify: (error: unknown) => AttemptFailure,
  deps: CallDeps,
  estimatedTokens = 0,
): Promise<CallResult> {
  const now = deps.now ?? Date.now;
  const hash = requestHash({ endpoint: endpointName, ...request });
  const stored = await deps.store.get(hash);
  if (stored) return { record: stored, cached: true };
  if (deps.stop?.aborted || deps.cancel?.aborted) throw new CallStoppedError();
  deps.beforePaidCall?.();
  // The store's record shape names chat requests; other endpoints store their own body.
  const storedRequest = request as unknown as ChatRequest;
  let lastFailure: LlmCallRecord | undefined;
  const once = async (): Promise<LlmCallRecord> => {
    // Waiting for the limiter may outlast the run: a stopping run sends nothing new.
    if (deps.stop?.aborted || deps.cancel?.aborted) throw new CallStoppedError();
    const started = now();
    try {
      const answer = await send(deps.cancel);
      checkUsage(answer);
      const record: LlmCallRecord = {
        hash,
        model: request.model,
        request: storedRequest,
        response: answer.response,
        promptTokens: answer.promptTokens,
        completionTokens: answer.completionTokens,
        latencyMs: now() - started,
        createdAt: new Date(now()).toISOString(),
      };
      if (answer.logprobs) record.logprobs = answer.logprobs;
      const cost = callCost(request.model, answer, deps.prices ?? DEFAULT_PRICES);
      if (cost !== undefined) record.costUsd = cost;
      return record;
    } catch (error) {
      // Every failed attempt is kept, with its latency and reason.
      lastFailure = {
        hash,
        model: request.model,
        request: storedRequest,
        promptTokens: 0,
        completionTokens: 0,
        latencyMs: now() - started,
        error: deps.cancel?.aborted
          ? 'cut off: the run was stopping'
          : error instanceof Error
            ? error.message
            : String(error),
        createdAt: new Date(now()).toISOString(),
      };
      await deps.store.put(lastFailure);
      if (deps.cancel?.aborted) throw new CallStoppedError({ cause: error });
      throw error;
    }
  };
  const run = () =>
    withRetries(once, classify, {
      ...(deps.retry ? { policy: deps.retry } : {}),
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
      ...(deps.random ? { random: deps.random } : {}),
      ...(deps.stop ? { signal: deps.stop } : {}),
      ...(deps.onRetry ? { onRetry: ({ error }: { error: unknown }) => deps.onRetry!(error) } : {}),
    });
  let record: LlmCallRecord;
  try {
    record = await (deps.limiter ? deps.limiter.run(estimatedTokens, run) : run());
  } catch (error) {
    if (lastFailure) deps.onPaidCall?.(lastFailure);
    throw error;
  }
  await deps.store.put(record);
  deps.onPaidCall?.(record);
  return { record, cached: false };
}
