import { estimateTokens } from '@assay/llm';
import type { MethodDefinition } from './method-definition.js';
import type { MethodContext, MethodTopic, ScoredDoc } from './method-context.js';
import { DEFAULT_RANKGPT, slidingWindows } from './rankgpt-reranker.js';

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
  const first = context.bm25.search(topic.text, Math.max(depth, context.k));
  const head = await context.reranker.rerank(topic.text, first.slice(0, depth), context, topic.id);
  const floor = head.length > 0 ? Math.min(...head.map((d) => d.score)) : 0;
  const tail = first.slice(depth).map((d, i) => ({ docno: d.docno, score: floor - (i + 1) }));
  return [...head, ...tail].slice(0, context.k);
}

/** `rerank`: BM25, then the reranker over its top `--rerank-depth` documents. */
export const rerankMethod: MethodDefinition = {
  name: 'rerank',
  check(options) {
    if (options.reranker === undefined) throw new Error('the rerank method needs a reranker');
  },
  needsChat: () => false,
  needsEmbeddings: () => false,
  needsDocumentText: () => true,
  parameters(options, p) {
    p['rerank.depth'] = options.rerankDepth ?? DEFAULT_RERANK_DEPTH;
  },
  runTopic: (context, topic, options) =>
    rerankTopic(context, topic, options.rerankDepth ?? DEFAULT_RERANK_DEPTH),
  estimateTopic(topic, options, sink) {
    if (options.reranker !== 'rankgpt') return;
    const { window, step, passageWords } = { ...DEFAULT_RANKGPT, ...options.rankgpt };
    const depth = options.rerankDepth ?? DEFAULT_RERANK_DEPTH;
    // About 4/3 tokens a word: every window at its full size, twice the query.
    for (const [start, end] of slidingWindows(depth, window, step))
      sink.call(
        'rankgpt',
        2 * estimateTokens(topic.text) + Math.ceil(((end - start) * passageWords * 4) / 3),
      );
  },
};
