import {
  findAnsweredLlmCalls,
  insertLlmCall,
  type JsonObject,
  type JsonValue,
  type LlmCall,
  type LlmCallInput,
  type Queryable,
} from '@assay/db';
import { type CallStore, type LlmCallRecord } from '@assay/llm';
import { whileUnavailable } from '../core/database-retry.js';
import { GroupCommit } from '../core/group-commit.js';

/**
 * The database CallStore: every call goes into `llm_calls`, and an answered call is found
 * again by its request hash, across processes, machines and reruns. Lookups made while an
 * earlier one runs are answered together by one query.
 */
export class DbCallStore implements CallStore {
  private readonly lookups: GroupCommit<string, LlmCallRecord | undefined>;

  constructor(private readonly db: Queryable) {
    this.lookups = new GroupCommit(async (hashes) => {
      const found = await findAnsweredLlmCalls(this.db, hashes);
      return hashes.map((hash) => {
        const call = found.get(hash);
        return call && toRecord(call);
      });
    });
  }

  get(hash: string): Promise<LlmCallRecord | undefined> {
    return this.lookups.add(hash);
  }

  async put(record: LlmCallRecord): Promise<void> {
    await insertLlmCall(this.db, toCallInput(record));
  }
}

/**
 * A judge worker's call store: the stored answers of claimed tasks are looked up with their
 * claim (`prefetch`, one query per claim), so judging an item needs no database round trip
 * before its call; other lookups go to the database, waiting while it cannot be reached
 * (until `signal` aborts). Every call recorded goes to `record` (the worker's writer).
 */
export class WorkerCallStore implements CallStore {
  private readonly prefetched = new Map<string, LlmCallRecord | undefined>();
  private readonly lookups: DbCallStore;

  constructor(
    private readonly db: Queryable,
    private readonly record: (call: LlmCallRecord) => void,
    private readonly signal: AbortSignal,
  ) {
    this.lookups = new DbCallStore(db);
  }

  /** Looks up the answers of these request hashes now; a failure leaves them to `get`. */
  async prefetch(hashes: readonly string[]): Promise<void> {
    try {
      const found = await findAnsweredLlmCalls(this.db, hashes);
      for (const hash of hashes) {
        const call = found.get(hash);
        this.prefetched.set(hash, call && toRecord(call));
      }
    } catch {
      // Looked up when judged instead.
    }
  }

  get(hash: string): Promise<LlmCallRecord | undefined> {
    if (this.prefetched.has(hash)) {
      const call = this.prefetched.get(hash);
      this.prefetched.delete(hash);
      return Promise.resolve(call);
    }
    return whileUnavailable(() => this.lookups.get(hash), { signal: this.signal });
  }

  async put(record: LlmCallRecord): Promise<void> {
    this.record(record);
  }
}

export function toCallInput(record: LlmCallRecord): LlmCallInput {
  return {
    hash: record.hash,
    model: record.model,
    request: record.request as unknown as JsonObject,
    response: record.response ?? null,
    logprobs: (record.logprobs as unknown as JsonValue) ?? null,
    promptTokens: record.promptTokens,
    completionTokens: record.completionTokens,
    costUsd: record.costUsd ?? null,
    latencyMs: record.latencyMs,
    // A call without an answer always carries its reason.
    error: record.error ?? (record.response === undefined ? 'no answer' : null),
    createdAt: record.createdAt,
  };
}

export function toRecord(call: LlmCall): LlmCallRecord {
  const record: LlmCallRecord = {
    hash: call.hash,
    model: call.model,
    request: call.request as unknown as LlmCallRecord['request'],
    promptTokens: call.promptTokens,
    completionTokens: call.completionTokens,
    latencyMs: call.latencyMs,
    createdAt: call.createdAt.toISOString(),
  };
  if (call.response !== null) record.response = call.response;
  if (call.logprobs !== null)
    record.logprobs = call.logprobs as unknown as LlmCallRecord['logprobs'];
  if (call.costUsd !== null) record.costUsd = call.costUsd;
  if (call.error !== null) record.error = call.error;
  return record;
}
