import { estimateTokens } from '@assay/llm';
import { defineMethod } from './method-definition.js';
import {
  askStep,
  denseOf,
  embedQueries,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
  searchOf,
} from './method-context.js';
import { query2docDenseText, query2docSparseQuery } from './query-strings.js';
import { AGGREGATION_HELP, choice, settings } from './settings.js';
import { SEARCH_SETTINGS } from './search-service.js';

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
  const answer = await askStep(context, 'query2doc', { query: topic.text });
  const base = { topic: topic.id, method: 'query2doc' };
  context.trace({
    ...base,
    step: 'pseudo-document',
    prompt: 'query2doc',
    text: answer.text,
    cached: answer.cached,
  });
  if (mode === 'sparse') {
    const query = query2docSparseQuery(topic.text, answer.text);
    context.trace({ ...base, step: 'query', text: query });
    return searchOf(context).search(query, context.k);
  }
  const dense = denseOf(context);
  const text = query2docDenseText(topic.text, answer.text);
  context.trace({ ...base, step: 'query', text });
  const [vector] = await embedQueries(dense, [text]);
  return dense.index.search(vector!, context.k);
}

const QUERY2DOC_SETTINGS = settings({
  aggregation: choice(['sparse', 'dense'], AGGREGATION_HELP, { default: 'sparse' }),
  ...SEARCH_SETTINGS,
});

/** `query2doc`: one pseudo-document per query (Wang et al., 2023). */
export const query2docMethod = defineMethod({
  name: 'query2doc',
  paper: 'Wang, Yang & Wei (2023), Query2doc: Query Expansion with Large Language Models, EMNLP',
  steps:
    'one pseudo-document (`query2doc.md`); sparse: BM25 of the query repeated 5 times and the pseudo-document; dense: embedding of `query [SEP] pseudo-document`',
  calls: '1 chat (+1 embedding for dense)',
  reproduce:
    'The paper prompts text-davinci-003 with four MS MARCO examples; assay asks zero-shot at temperature 0. The defaults are its sparse setting; its dense setting: `--aggregation dense --embedding-model E` (with `--query-prefix "query: " --passage-prefix "passage: "` for E5 models).',
  settings: QUERY2DOC_SETTINGS,
  prompts: ['query2doc'],
  needsChat: () => true,
  embeddings: (s) => (s.aggregation === 'dense' ? 'required' : 'none'),
  parameters(_s, p) {
    p['query2doc.query-repeats'] = 5;
  },
  runTopic: (context, topic, s) => query2docTopic(context, topic, s.aggregation),
  estimateTopic(topic, s, sink) {
    const q = estimateTokens(topic.text);
    sink.call('query2doc', q);
    if (s.aggregation === 'dense') sink.embed(1, q + sink.max('query2doc'));
  },
});
