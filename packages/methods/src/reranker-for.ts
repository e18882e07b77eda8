import type { ChatClient, HttpEndpoint } from '@assay/llm';
import { CrossEncoderReranker } from './cross-encoder-reranker.js';
import type { Reranker } from './method-context.js';
import { RankGptReranker } from './rankgpt-reranker.js';
import type { ModelRetrieveOptions } from './retrieve-options.js';

/**
 * The reranker a run's options name: a cross-encoder over the endpoint's `/v1/rerank` with
 * `rerankerModel`, RankGPT over the chat model, or none. The CLI and the API both use it.
 */
export function rerankerFor(
  options: Pick<ModelRetrieveOptions, 'reranker' | 'rankgpt'>,
  endpoint: HttpEndpoint,
  chat: { client: ChatClient; model: string } | undefined,
  rerankerModel: string | undefined,
): Reranker | undefined {
  if (options.reranker === 'cross-encoder') {
    if (!rerankerModel) throw new Error('the cross-encoder reranker needs a reranker model');
    return new CrossEncoderReranker(endpoint, rerankerModel);
  }
  if (options.reranker === 'rankgpt') {
    if (!chat) throw new Error('the rankgpt reranker needs a chat model');
    return new RankGptReranker(chat, options.rankgpt);
  }
  return undefined;
}
