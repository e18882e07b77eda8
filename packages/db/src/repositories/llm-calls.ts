import { sql } from 'kysely';
import { bulkInsert, type Queryable } from '../bulk.js';
import type { JsonObject, JsonValue, Row } from '../schema.js';

/** One LLM call to record (answered, or failed with the reason). */
export interface LlmCallInput {
  hash: string;
  model: string;
  request: JsonObject;
  response?: string | null;
  logprobs?: JsonValue | null;
  promptTokens: number;
  completionTokens: number;
  costUsd?: number | null;
  latencyMs: number;
  error?: string | null;
  createdAt?: Date | string;
}

/** A recorded LLM call. */
export interface LlmCall {
  id: number;
  hash: string;
  model: string;
  request: JsonObject;
  response: string | null;
  logprobs: JsonValue | null;
  promptTokens: number;
  completionTokens: number;
  costUsd: number | null;
  latencyMs: number;
  error: string | null;
  createdAt: Date;
}

function toLlmCall(row: Row<'llm_calls'>): LlmCall {
  return {
    id: row.id,
    hash: row.hash,
    model: row.model,
    request: row.request,
    response: row.response,
    logprobs: row.logprobs,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    costUsd: row.cost_usd,
    latencyMs: row.latency_ms,
    error: row.error,
    createdAt: row.created_at,
  };
}

/** Records one LLM call (every call is kept, answered or not). */
export async function insertLlmCall(db: Queryable, call: LlmCallInput): Promise<void> {
  await db
    .insertInto('llm_calls')
    .values({
      hash: call.hash,
      model: call.model,
      request: call.request,
      response: call.response ?? null,
      logprobs: call.logprobs ?? null,
      prompt_tokens: call.promptTokens,
      completion_tokens: call.completionTokens,
      cost_usd: call.costUsd ?? null,
      latency_ms: Math.round(call.latencyMs),
      error: call.error ?? null,
      ...(call.createdAt === undefined ? {} : { created_at: call.createdAt }),
    })
    .execute();
}

/** Records many LLM calls in one statement (the worker's group commit). */
export async function insertLlmCalls(
  db: Queryable,
  calls: readonly LlmCallInput[],
): Promise<number> {
  return bulkInsert(db, {
    table: 'llm_calls',
    columns: [
      { name: 'hash', type: 'text', value: (c: LlmCallInput) => c.hash },
      { name: 'model', type: 'text', value: (c) => c.model },
      { name: 'request', type: 'jsonb', value: (c) => c.request },
      { name: 'response', type: 'text', value: (c) => c.response ?? null },
      { name: 'logprobs', type: 'jsonb', value: (c) => c.logprobs ?? null },
      { name: 'prompt_tokens', type: 'int4', value: (c) => c.promptTokens },
      { name: 'completion_tokens', type: 'int4', value: (c) => c.completionTokens },
      { name: 'cost_usd', type: 'float8', value: (c) => c.costUsd ?? null },
      { name: 'latency_ms', type: 'int4', value: (c) => Math.round(c.latencyMs) },
      { name: 'error', type: 'text', value: (c) => c.error ?? null },
    ],
    rows: calls,
  });
}

/** The first answered call with this request hash, if any (the cache lookup). */
export async function findAnsweredLlmCall(
  db: Queryable,
  hash: string,
): Promise<LlmCall | undefined> {
  const row = await db
    .selectFrom('llm_calls')
    .selectAll()
    .where('hash', '=', hash)
    .where('response', 'is not', null)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row && toLlmCall(row);
}

/** The first answered call of each of these hashes that has one, by hash. */
export async function findAnsweredLlmCalls(
  db: Queryable,
  hashes: readonly string[],
): Promise<Map<string, LlmCall>> {
  const found = new Map<string, LlmCall>();
  if (hashes.length === 0) return found;
  const rows = await db
    .selectFrom('llm_calls')
    .selectAll()
    .where(sql<boolean>`hash = any(${[...new Set(hashes)]}::text[])`)
    .where('response', 'is not', null)
    .orderBy('id')
    .execute();
  for (const row of rows) if (!found.has(row.hash)) found.set(row.hash, toLlmCall(row));
  return found;
}

/** Calls recorded with this hash, oldest first (answered and failed). */
export async function listLlmCalls(db: Queryable, hash?: string): Promise<LlmCall[]> {
  let query = db.selectFrom('llm_calls').selectAll().orderBy('id');
  if (hash !== undefined) query = query.where('hash', '=', hash);
  return (await query.execute()).map(toLlmCall);
}
