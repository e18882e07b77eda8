import { estimateTokens } from '@assay/llm';
import type { MethodDefinition } from './method-definition.js';
import { denseOf, type MethodContext, type MethodTopic, type ScoredDoc } from './method-context.js';
import { rrfLists } from './ranked-lists.js';

/** `dense`: the query's embedding against the collection's, by exact cosine. */
export async function denseTopic(context: MethodContext, topic: MethodTopic): Promise<ScoredDoc[]> {
  const dense = denseOf(context);
  const [vector] = await dense.client.embed(dense.model, [topic.text]);
  return dense.index.search(vector!, context.k);
}

/** `hybrid`: RRF (constant `rrfK`) of the BM25 ranking and the dense ranking. */
export async function hybridTopic(
  context: MethodContext,
  topic: MethodTopic,
  rrfK: number,
): Promise<ScoredDoc[]> {
  const dense = await denseTopic(context, topic);
  const sparse = context.bm25.search(topic.text, context.k);
  return rrfLists([sparse, dense], rrfK, context.k);
}

/** `dense`: plain embedding retrieval. */
export const denseMethod: MethodDefinition = {
  name: 'dense',
  needsChat: () => false,
  needsEmbeddings: () => true,
  parameters() {},
  runTopic: (context, topic) => denseTopic(context, topic),
  estimateTopic(topic, _options, sink) {
    sink.embed(1, estimateTokens(topic.text));
  },
};

/** `hybrid`: RRF of BM25 and dense retrieval. */
export const hybridMethod: MethodDefinition = {
  name: 'hybrid',
  needsChat: () => false,
  needsEmbeddings: () => true,
  parameters(options, p) {
    p['hybrid.rrf-k'] = options.rrfK ?? 60;
  },
  runTopic: (context, topic, options) => hybridTopic(context, topic, options.rrfK ?? 60),
  estimateTopic(topic, _options, sink) {
    sink.embed(1, estimateTokens(topic.text));
  },
};
