import { estimateTokens } from '@assay/llm';
import { defineMethod } from './method-definition.js';
import {
  denseOf,
  embedQueries,
  topicCandidates,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
} from './method-context.js';
import { rrfLists } from './ranked-lists.js';
import { FIRST_STAGE_SETTINGS } from './search-service.js';
import { integer, settings } from './settings.js';

/** `dense`: the query's embedding against the collection's, by exact cosine. */
export async function denseTopic(context: MethodContext, topic: MethodTopic): Promise<ScoredDoc[]> {
  const dense = denseOf(context);
  const [vector] = await embedQueries(dense, [topic.text]);
  return dense.index.search(vector!, context.k);
}

/** `hybrid`: RRF (constant `rrfK`) of the BM25 ranking and the dense ranking. */
export async function hybridTopic(
  context: MethodContext,
  topic: MethodTopic,
  rrfK: number,
): Promise<ScoredDoc[]> {
  const dense = await denseTopic(context, topic);
  const sparse = topicCandidates(context, topic, context.k);
  return rrfLists([sparse, dense], rrfK, context.k);
}

const PREFIXES =
  'For E5-style models give `--query-prefix "query: " --passage-prefix "passage: "`.';

/** `dense`: plain embedding retrieval. */
export const denseMethod = defineMethod({
  name: 'dense',
  paper: 'plain embedding retrieval',
  steps: 'embedding of the query, exact cosine against the collection',
  calls: '1 embedding',
  reproduce: `Needs \`--embedding-model\`. ${PREFIXES}`,
  settings: settings({}),
  prompts: [],
  needsChat: () => false,
  embeddings: () => 'required',
  runTopic: (context, topic) => denseTopic(context, topic),
  estimateTopic(topic, _s, sink) {
    sink.embed(1, estimateTokens(topic.text));
  },
});

/** `hybrid`: RRF of BM25 and dense retrieval. */
export const hybridMethod = defineMethod({
  name: 'hybrid',
  paper: 'RRF of BM25 and dense (Cormack et al. 2009 for RRF)',
  steps: 'BM25 top k and dense top k, fused by RRF',
  calls: '1 embedding',
  reproduce: `Needs \`--embedding-model\`; RRF k = 60 is Cormack et al.'s. ${PREFIXES}`,
  settings: settings({
    rrfK: integer('RRF constant k', { default: 60, max: 10_000 }),
    ...FIRST_STAGE_SETTINGS,
  }),
  prompts: [],
  needsChat: () => false,
  embeddings: () => 'required',
  runTopic: (context, topic, s) => hybridTopic(context, topic, s.rrfK),
  estimateTopic(topic, _s, sink) {
    sink.embed(1, estimateTokens(topic.text));
  },
});
