import { denseOf, type MethodContext, type ScoredDoc } from './method-context.js';
import { rrfLists } from './ranked-lists.js';

/** `dense`: the query's embedding against the collection's, by exact cosine. */
export async function denseTopic(
  context: MethodContext,
  topic: { id: string; text: string },
): Promise<ScoredDoc[]> {
  const dense = denseOf(context);
  const [vector] = await dense.client.embed(dense.model, [topic.text]);
  return dense.index.search(vector!, context.k);
}

/** `hybrid`: RRF (constant `rrfK`) of the BM25 ranking and the dense ranking. */
export async function hybridTopic(
  context: MethodContext,
  topic: { id: string; text: string },
  rrfK: number,
): Promise<ScoredDoc[]> {
  const dense = await denseTopic(context, topic);
  const sparse = context.bm25.search(topic.text, context.k);
  return rrfLists([sparse, dense], rrfK, context.k);
}
