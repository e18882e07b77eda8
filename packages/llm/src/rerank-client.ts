import { estimateTokens } from './cost.js';
import type { CallDeps } from './call-deps.js';
import { cachedCall } from './cached-call.js';
import { classifyHttpError, LlmHttpError, postJson, type HttpEndpoint } from './http-json.js';

/** One reranked document: its position in the list sent and the reranker's score. */
export interface RerankResult {
  index: number;
  score: number;
}

/**
 * A client for the `/v1/rerank` endpoint served by vLLM, TEI, llama.cpp and hosted
 * rerankers (cross-encoders such as ms-marco-MiniLM-L-6-v2). Every call is recorded
 * through the call store, so reranking the same list again costs nothing.
 */
export class RerankClient {
  constructor(
    private readonly endpoint: HttpEndpoint,
    private readonly deps: CallDeps,
  ) {}

  /** Scores of every document for the query, best first (ties: lower index first). */
  async rerank(
    model: string,
    query: string,
    documents: readonly string[],
  ): Promise<RerankResult[]> {
    if (documents.length === 0) return [];
    const body = { model, query, documents: [...documents] };
    const { record } = await cachedCall(
      'rerank',
      body,
      async (signal) => {
        const answer = await postJson(this.endpoint, '/rerank', body, this.deps.now, signal);
        const results = readRerank(answer, documents.length);
        return {
          response: JSON.stringify(results),
          promptTokens: readUsage(answer),
          completionTokens: 0,
        };
      },
      classifyHttpError,
      this.deps,
      estimateTokens(query) * documents.length +
        documents.reduce((s, d) => s + estimateTokens(d), 0),
    );
    return JSON.parse(record.response!) as RerankResult[];
  }
}

/**
 * The results of a rerank answer (`results: [{index, relevance_score}]`, also accepted as
 * `score`), checked: every document scored once. Sorted best first, ties by index.
 */
export function readRerank(answer: unknown, expected: number): RerankResult[] {
  const results = (answer as { results?: unknown })?.results;
  if (!Array.isArray(results))
    throw new LlmHttpError('rerank answer has no results', { retryable: true });
  const seen = new Set<number>();
  const out: RerankResult[] = [];
  for (const item of results as Array<Record<string, unknown>>) {
    const index = item?.index;
    const score = item?.relevance_score ?? item?.score;
    if (
      typeof index !== 'number' ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= expected ||
      seen.has(index) ||
      typeof score !== 'number' ||
      !Number.isFinite(score)
    )
      throw new LlmHttpError('rerank answer holds a malformed result', { retryable: true });
    seen.add(index);
    out.push({ index, score });
  }
  if (out.length !== expected)
    throw new LlmHttpError(`rerank answer scores ${out.length} of ${expected} documents`, {
      retryable: true,
    });
  return out.sort((a, b) => b.score - a.score || a.index - b.index);
}

function readUsage(answer: unknown): number {
  const usage = (answer as { usage?: { prompt_tokens?: unknown; total_tokens?: unknown } })?.usage;
  const tokens = usage?.prompt_tokens ?? usage?.total_tokens;
  return typeof tokens === 'number' ? tokens : 0;
}
