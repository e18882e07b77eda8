import { ask, estimateTokens } from '@assay/llm';
import type { MethodDefinition } from './method-definition.js';
import {
  chatOf,
  denseOf,
  promptOf,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
} from './method-context.js';
import { query2docDenseText, query2docSparseQuery } from './query-strings.js';

/** How Query2doc searches with its pseudo-document. */
export type Query2docMode = 'sparse' | 'dense';

/**
 * Query2doc (Wang et al., 2023) for one topic: one pseudo-document from the LLM, then BM25
 * with the query repeated five times plus the pseudo-document (`sparse`), or the embedding
 * of `query [SEP] pseudo-document` (`dense`).
 */
export async function query2docTopic(
  context: MethodContext,
  topic: MethodTopic,
  mode: Query2docMode,
): Promise<ScoredDoc[]> {
  const chat = chatOf(context);
  const prompt = promptOf(context, 'query2doc');
  const answer = await ask(
    chat.client,
    prompt,
    { query: topic.text },
    { model: chat.model },
    context.deps,
  );
  const base = { topic: topic.id, method: 'query2doc' };
  context.trace({
    ...base,
    step: 'pseudo-document',
    prompt: prompt.id,
    text: answer.text,
    cached: answer.cached,
  });
  if (mode === 'sparse') {
    const query = query2docSparseQuery(topic.text, answer.text);
    context.trace({ ...base, step: 'query', text: query });
    return context.bm25.search(query, context.k);
  }
  const dense = denseOf(context);
  const text = query2docDenseText(topic.text, answer.text);
  context.trace({ ...base, step: 'query', text });
  const [vector] = await dense.client.embed(dense.model, [text]);
  return dense.index.search(vector!, context.k);
}

/** `query2doc`: one pseudo-document per query (Wang et al., 2023). */
export const query2docMethod: MethodDefinition = {
  name: 'query2doc',
  check(options) {
    if (options.aggregation === 'rrf')
      throw new Error("query2doc searches 'sparse' or 'dense', not 'rrf'");
  },
  needsChat: () => true,
  needsEmbeddings: (options) => options.aggregation === 'dense',
  parameters(options, p) {
    p['query2doc.mode'] = options.aggregation ?? 'sparse';
    p['query2doc.query-repeats'] = 5;
  },
  runTopic: (context, topic, options) =>
    query2docTopic(context, topic, options.aggregation === 'dense' ? 'dense' : 'sparse'),
  estimateTopic(topic, options, sink) {
    const q = estimateTokens(topic.text);
    sink.call('query2doc', q);
    if (options.aggregation === 'dense') sink.embed(1, q + sink.max('query2doc'));
  },
};
