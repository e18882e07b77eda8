import { RerankClient, type HttpEndpoint } from '@assay/llm';
import { documentText } from '@assay/retrieval';
import { documentOf, type MethodContext, type Reranker, type ScoredDoc } from './method-context.js';

/** Candidates sent in one `/v1/rerank` request by default (TEI's default client batch). */
export const DEFAULT_RERANK_BATCH = 32;

/**
 * A cross-encoder (or monoT5-style) reranker behind an OpenAI-style `/v1/rerank` endpoint
 * (vLLM, TEI, llama.cpp, hosted rerankers): each candidate's `title text` is scored against
 * the query, in batches of `batchSize`, every request kept in the run's call store. The
 * scores are pointwise, so batches are merged by score; ties keep the candidates' order.
 */
export class CrossEncoderReranker implements Reranker {
  readonly name: string;

  constructor(
    private readonly endpoint: HttpEndpoint,
    private readonly model: string,
    private readonly batchSize = DEFAULT_RERANK_BATCH,
  ) {
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new Error(`rerank batch size must be a positive integer, not ${batchSize}`);
    this.name = `cross-encoder:${model}`;
  }

  async rerank(
    query: string,
    candidates: readonly ScoredDoc[],
    context: MethodContext,
  ): Promise<ScoredDoc[]> {
    const texts = candidates.map((c) => documentText(documentOf(context, c.docno)));
    const client = new RerankClient(this.endpoint, context.deps);
    const scored: Array<{ index: number; score: number }> = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const results = await client.rerank(
        this.model,
        query,
        texts.slice(start, start + this.batchSize),
      );
      for (const r of results) scored.push({ index: start + r.index, score: r.score });
    }
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    return scored.map((s) => ({ docno: candidates[s.index]!.docno, score: s.score }));
  }
}
