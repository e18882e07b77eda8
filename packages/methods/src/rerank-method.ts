import { estimateTokens } from '@assay/llm';
import { defineMethod } from './method-definition.js';
import {
  topicCandidates,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
} from './method-context.js';
import { slidingWindows } from './rankgpt-reranker.js';
import { FIRST_STAGE_SETTINGS } from './search-service.js';
import { checkRankGpt, RERANKER_SETTINGS } from './reranker-for.js';
import { integer, settings, SettingsError } from './settings.js';

/** Documents the rerank method takes from BM25 to rerank, by default. */
export const DEFAULT_RERANK_DEPTH = 100;

/**
 * The rerank baseline for one topic: BM25's top `depth` documents reordered by the
 * configured reranker, then BM25's next documents down to `k` in their order, scored below
 * the last reranked one (so the run's scores fall as its ranks do).
 */
export async function rerankTopic(
  context: MethodContext,
  topic: MethodTopic,
  depth: number,
): Promise<ScoredDoc[]> {
  if (!context.reranker) throw new Error('the rerank method needs a reranker (--reranker)');
  const first = topicCandidates(context, topic, Math.max(depth, context.k));
  const head = await context.reranker.rerank(topic.text, first.slice(0, depth), context, topic.id);
  const floor = head.length > 0 ? Math.min(...head.map((d) => d.score)) : 0;
  const tail = first.slice(depth).map((d, i) => ({ docno: d.docno, score: floor - (i + 1) }));
  return [...head, ...tail].slice(0, context.k);
}

/** `rerank`: BM25, then the reranker over its top `--rerank-depth` documents. */
export const rerankMethod = defineMethod({
  name: 'rerank',
  paper: 'Sun et al. (2023), RankGPT (listwise); cross-encoders over `/v1/rerank`',
  steps:
    'BM25 top `--rerank-depth`, reranked by `--reranker cross-encoder` (needs `--reranker-model`) or `rankgpt` (sliding window over the chat model); the rest follows in BM25 order',
  calls:
    'cross-encoder: 1 rerank request per batch; rankgpt: one chat per window position (⌈(depth − window)/step⌉ + 1)',
  reproduce:
    "RankGPT's window 20, step 10 and 100 documents are the defaults; the paper's models were gpt-3.5-turbo and gpt-4 (`--model`).",
  settings: settings({
    rerankDepth: integer('BM25 documents reranked; the rest follow in BM25 order', {
      default: DEFAULT_RERANK_DEPTH,
      max: 100_000,
    }),
    ...RERANKER_SETTINGS,
    ...FIRST_STAGE_SETTINGS,
  }),
  prompts: ['rankgpt'],
  check(s, spell) {
    if (s.reranker === undefined)
      throw new SettingsError(
        'reranker',
        `rerank needs ${spell('reranker')} (cross-encoder or rankgpt)`,
      );
    checkRankGpt(s, spell);
  },
  needsChat: (s) => s.reranker === 'rankgpt',
  embeddings: () => 'none',
  needsDocumentText: () => true,
  firstStageTexts: (s) => s.rerankDepth,
  runTopic: (context, topic, s) => rerankTopic(context, topic, s.rerankDepth),
  estimateTopic(topic, s, sink) {
    if (s.reranker !== 'rankgpt') return;
    // About 4/3 tokens a word: every window at its full size, twice the query.
    for (const [start, end] of slidingWindows(s.rerankDepth, s.rankgptWindow, s.rankgptStep))
      sink.call(
        'rankgpt',
        2 * estimateTokens(topic.text) + Math.ceil(((end - start) * s.rankgptWords * 4) / 3),
      );
  },
});
