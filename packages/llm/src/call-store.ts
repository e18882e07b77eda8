import type { ChatRequest, TokenLogprob } from './chat-client.js';

/** One LLM call as assay records it: the request, what came back, what it cost. */
export interface LlmCallRecord {
  /** SHA-256 of the canonical request: the cache key. */
  hash: string;
  model: string;
  request: ChatRequest;
  /** Raw message content (for a call that failed, absent). */
  response?: string;
  logprobs?: TokenLogprob[];
  promptTokens: number;
  completionTokens: number;
  /** USD, when the model has a price. */
  costUsd?: number;
  latencyMs: number;
  /** Why the call failed, for calls that did not return an answer. */
  error?: string;
  createdAt: string;
}

/**
 * Where calls are kept. A stored answer is reused for a request with the same hash, so a
 * rerun never pays twice; the database implementation lives in the platform.
 */
export interface CallStore {
  /** The stored answered call with this hash, if any. */
  get(hash: string): Promise<LlmCallRecord | undefined>;
  /** Records a call (answered or failed). */
  put(record: LlmCallRecord): Promise<void>;
}

/** An in-memory CallStore (one process; useful for tests and dry runs). */
export class MemoryCallStore implements CallStore {
  readonly records: LlmCallRecord[] = [];
  private readonly answered = new Map<string, LlmCallRecord>();

  async get(hash: string): Promise<LlmCallRecord | undefined> {
    return this.answered.get(hash);
  }

  async put(record: LlmCallRecord): Promise<void> {
    this.records.push(record);
    if (record.response !== undefined && !this.answered.has(record.hash))
      this.answered.set(record.hash, record);
  }
}
