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
import { HNSW_DEFAULTS, HNSW_LIMITS } from './hnsw-index.js';
import { choice, integer, settings } from './settings.js';

/** `dense`: the query's embedding against the collection's, by cosine. */
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

const HNSW_ONLY = { onlyWith: { key: 'denseIndex', value: 'hnsw' } } as const;

/** How the collection's vectors are searched: exact cosine, or an HNSW graph. */
export const DENSE_INDEX_SETTINGS = {
  denseIndex: choice(
    ['exact', 'hnsw'],
    "how the collection's vectors are searched: exact cosine over all of them, or an approximate HNSW graph (hnswlib; built once, kept in the cache folder); hits are scored by exact cosine either way",
    { default: 'exact' },
  ),
  hnswM: integer('HNSW: links per node and layer (M)', {
    default: HNSW_DEFAULTS.m,
    min: HNSW_LIMITS.m[0],
    max: HNSW_LIMITS.m[1],
    ...HNSW_ONLY,
  }),
  hnswEfConstruction: integer('HNSW: candidates kept while building (efConstruction)', {
    default: HNSW_DEFAULTS.efConstruction,
    min: HNSW_LIMITS.efConstruction[0],
    max: HNSW_LIMITS.efConstruction[1],
    ...HNSW_ONLY,
  }),
  hnswEfSearch: integer('HNSW: candidates kept while searching (efSearch; at least k)', {
    default: HNSW_DEFAULTS.efSearch,
    min: HNSW_LIMITS.efSearch[0],
    max: HNSW_LIMITS.efSearch[1],
    ...HNSW_ONLY,
  }),
};

const PREFIXES =
  'For E5-style models give `--query-prefix "query: " --passage-prefix "passage: "`.';

/** `dense`: plain embedding retrieval. */
export const denseMethod = defineMethod({
  name: 'dense',
  paper: 'plain embedding retrieval',
  steps:
    'embedding of the query, cosine against the collection (exact, or through an HNSW graph with `--dense-index hnsw`)',
  calls: '1 embedding',
  reproduce: `Needs \`--embedding-model\`. ${PREFIXES}`,
  settings: settings({ ...DENSE_INDEX_SETTINGS }),
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
    ...DENSE_INDEX_SETTINGS,
  }),
  prompts: [],
  needsChat: () => false,
  embeddings: () => 'required',
  runTopic: (context, topic, s) => hybridTopic(context, topic, s.rrfK),
  estimateTopic(topic, _s, sink) {
    sink.embed(1, estimateTokens(topic.text));
  },
});
