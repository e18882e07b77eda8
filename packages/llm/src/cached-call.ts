import { callCost, DEFAULT_PRICES } from './cost.js';
import { requestHash } from './request-hash.js';
import { withRetries, type AttemptFailure } from './retry.js';
import { type ChatRequest } from './chat-client.js';
import { type LlmCallRecord } from './call-store.js';
import type { CallDeps } from './call-deps.js';

/** What one endpoint answered, before it is recorded. */
export interface SentAnswer {
  /** The answer as stored: message content, or the JSON of vectors or scores. */
  response: string;
  promptTokens: number;
  completionTokens: number;
}

/** A call answered from the store or the endpoint. */
export interface CallResult {
  record: LlmCallRecord;
  /** True when the answer came from the store (nothing was paid). */
  cached: boolean;
}

/**
 * One recorded call to an endpoint (`chat.completions`, `embeddings`, `rerank`): a stored
 * answer for the same request is reused; otherwise the request is sent (paced, retried
 * with backoff) and recorded, answered or failed. The request body is what is hashed and
 * stored, with the endpoint's name, so equal requests to different endpoints never meet.
 */
export async function cachedCall(
  endpointName: string,
  request: Record<string, unknown> & { model: string },
  send: () => Promise<SentAnswer>,
  classify: (error: unknown) => AttemptFailure,
  deps: CallDeps,
  estimatedTokens = 0,
): Promise<CallResult> {
  const now = deps.now ?? Date.now;
  const hash = requestHash({ endpoint: endpointName, ...request });
  const stored = await deps.store.get(hash);
  if (stored) return { record: stored, cached: true };
  deps.beforePaidCall?.();
  // The store's record shape names chat requests; other endpoints store their own body.
  const storedRequest = request as unknown as ChatRequest;
  const once = async (): Promise<LlmCallRecord> => {
    const started = now();
    const answer = await send();
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
    const cost = callCost(request.model, answer, deps.prices ?? DEFAULT_PRICES);
    if (cost !== undefined) record.costUsd = cost;
    return record;
  };
  const run = () =>
    withRetries(once, classify, {
      ...(deps.retry ? { policy: deps.retry } : {}),
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
      ...(deps.random ? { random: deps.random } : {}),
    });
  let record: LlmCallRecord;
  try {
    record = await (deps.limiter ? deps.limiter.run(estimatedTokens, run) : run());
  } catch (error) {
    const failed: LlmCallRecord = {
      hash,
      model: request.model,
      request: storedRequest,
      promptTokens: 0,
      completionTokens: 0,
      latencyMs: 0,
      error: error instanceof Error ? error.message : String(error),
      createdAt: new Date(now()).toISOString(),
    };
    await deps.store.put(failed);
    deps.onPaidCall?.(failed);
    throw error;
  }
  await deps.store.put(record);
  deps.onPaidCall?.(record);
  return { record, cached: false };
}
