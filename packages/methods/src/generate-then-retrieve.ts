import { ask, estimateTokens } from '@assay/llm';
import { interleave } from '@assay/retrieval';
import type { MethodDefinition } from './method-definition.js';
import {
  chatOf,
  promptOf,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
} from './method-context.js';

/**
 * The generate-then-retrieve variants (Abbasiantaeb and Aliannejadi, 2024): `qr` rewrites
 * the utterance, `ad` searches with the LLM's answer, `qd` with at most five queries
 * written from the conversation, `aqd` with at most five queries written from the answer,
 * `aqd-a` as `aqd` and then reranks the interleaved list against the answer.
 */
export type GrVariant = 'qr' | 'ad' | 'qd' | 'aqd' | 'aqd-a';

/** Generate-then-retrieve settings. */
export interface GrOptions {
  /** BM25 documents retrieved per query. */
  firstStageK: number;
  /** Documents of each list the reranker reorders (the rest keep their order below them). */
  rerankDepth: number;
}

/** The paper's settings: BM25 top 1000, every one of them reranked. */
export const DEFAULT_GR: GrOptions = { firstStageK: 1000, rerankDepth: 1000 };

/** The most queries QD and AQD keep from one answer, as the paper's prompts ask. */
export const GR_MAX_QUERIES = 5;

/**
 * A conversational topic as the generate-then-retrieve prompts show it: the user's
 * background statements (numbered), the earlier turns (`user:` / `system:`), then the
 * current utterance. A topic without context is just its question.
 */
export function grConversation(topic: MethodTopic): string {
  const parts: string[] = [];
  const background = (topic.userBackground ?? []).filter((s) => s.trim() !== '');
  if (background.length > 0)
    parts.push(
      `Background knowledge about the user:\n${background.map((s, i) => `${i + 1}. ${s.trim()}`).join('\n')}`,
    );
  const turns = topic.previousTurns ?? [];
  if (turns.length > 0)
    parts.push(
      `Conversation so far:\n${turns
        .map((t) => `${t.role === 'user' ? 'user' : 'system'}: ${t.text.trim()}`)
        .join('\n')}`,
    );
  parts.push(`User question: ${topic.text.trim()}`);
  return parts.join('\n\n');
}

/** The text each variant's rerank stage compares documents with, for the run's header. */
const RERANK_QUERY: Record<GrVariant, string> = {
  qr: 'rewrite',
  ad: 'answer',
  qd: 'each generated query',
  aqd: 'each generated query',
  'aqd-a': 'each generated query, then the answer',
};

/**
 * One topic of a generate-then-retrieve variant: the LLM's rewrite, answer or queries,
 * each query searched with BM25 (`firstStageK`) and its top `rerankDepth` reranked against
 * it (against the answer for `ad`), several lists interleaved round robin (first list
 * first, documents already placed skipped); `aqd-a` then reranks that list's top
 * `rerankDepth` against the answer. Without a reranker the first-stage order stays.
 */
export async function grTopic(
  context: MethodContext,
  topic: MethodTopic,
  variant: GrVariant,
  options: GrOptions,
): Promise<ScoredDoc[]> {
  const chat = chatOf(context);
  const base = { topic: topic.id, method: `gr-${variant}` };
  const conversation = grConversation(topic);
  const search = async (query: string, rerankQuery = query) =>
    rerankStage(context, rerankQuery, context.bm25.search(query, options.firstStageK), options);

  if (variant === 'qr') {
    const prompt = promptOf(context, 'gr-rewrite');
    const rewrite = await ask(
      chat.client,
      prompt,
      { conversation },
      { model: chat.model },
      context.deps,
    );
    context.trace({
      ...base,
      step: 'rewrite',
      prompt: prompt.id,
      text: rewrite.text,
      cached: rewrite.cached,
    });
    return (await search(rewrite.text)).slice(0, context.k);
  }

  if (variant === 'qd') {
    const queries = await generateQueries(context, base, 'gr-queries', { conversation });
    return interleaved(await Promise.all(queries.map((q) => search(q))), context.k);
  }

  const answerPrompt = promptOf(context, 'gr-answer');
  const answer = await ask(
    chat.client,
    answerPrompt,
    { conversation },
    { model: chat.model },
    context.deps,
  );
  context.trace({
    ...base,
    step: 'answer',
    prompt: answerPrompt.id,
    text: answer.text,
    cached: answer.cached,
  });
  if (variant === 'ad') return (await search(answer.text)).slice(0, context.k);

  const queries = await generateQueries(context, base, 'gr-answer-queries', {
    conversation,
    answer: answer.text,
  });
  const lists = await Promise.all(queries.map((q) => search(q)));
  const merged = interleaved(lists, Infinity);
  if (variant === 'aqd') return merged.slice(0, context.k);
  return (await rerankStage(context, answer.text, merged, options)).slice(0, context.k);
}

/**
 * Asks for the queries: blank ones are dropped, an answer with none is asked again, and
 * past the fifth they are traced as dropped and not searched.
 */
async function generateQueries(
  context: MethodContext,
  base: { topic: string; method: string },
  promptId: 'gr-queries' | 'gr-answer-queries',
  values: Record<string, string>,
): Promise<string[]> {
  const chat = chatOf(context);
  const prompt = promptOf(context, promptId);
  const asked = await ask(
    chat.client,
    prompt,
    values,
    {
      model: chat.model,
      validate: (json) => {
        const queries = (json as { queries: unknown }).queries;
        if (!Array.isArray(queries) || queries.some((q) => typeof q !== 'string'))
          return 'queries must be a list of strings';
        return queries.some((q: string) => q.trim() !== '')
          ? undefined
          : 'the answer holds no query';
      },
    },
    context.deps,
  );
  const all = (asked.json as { queries: string[] }).queries
    .map((q) => q.trim())
    .filter((q) => q !== '');
  all.forEach((text, i) =>
    context.trace({
      ...base,
      step: i < GR_MAX_QUERIES ? 'generated-query' : 'dropped-query',
      prompt: prompt.id,
      text,
      cached: asked.cached,
    }),
  );
  return all.slice(0, GR_MAX_QUERIES);
}

/**
 * Reorders the top `rerankDepth` documents with the reranker against `query`; the rest
 * follow in their order. Scores become positions (n − i) when a tail follows, so the
 * run keeps this order whatever scale the reranker uses.
 */
async function rerankStage(
  context: MethodContext,
  query: string,
  docs: readonly ScoredDoc[],
  options: GrOptions,
): Promise<ScoredDoc[]> {
  if (!context.reranker || docs.length === 0) return [...docs];
  const head = await context.reranker.rerank(query, docs.slice(0, options.rerankDepth), context);
  if (docs.length <= options.rerankDepth) return head;
  const order = [...head, ...docs.slice(options.rerankDepth)];
  return order.map((d, i) => ({ docno: d.docno, score: order.length - i }));
}

/** Round-robin interleaving of ranked lists, keeping `depth` documents. */
function interleaved(lists: readonly ScoredDoc[][], depth: number): ScoredDoc[] {
  return interleave(lists.map((list) => list.map((d, r) => ({ ...d, rank: r + 1 }))))
    .slice(0, depth)
    .map((e) => ({ docno: e.docno, score: e.score }));
}

function grMethod(variant: GrVariant): MethodDefinition {
  const generatesQueries = variant === 'qd' || variant === 'aqd' || variant === 'aqd-a';
  return {
    name: `gr-${variant}`,
    check(options) {
      for (const [name, value] of [
        ['first-stage-k', options.firstStageK],
        ['rerank-depth', options.rerankDepth],
      ] as const)
        if (value !== undefined && (!Number.isInteger(value) || value < 1))
          throw new Error(`${name} must be a positive integer, not ${value}`);
    },
    needsChat: () => true,
    needsEmbeddings: () => false,
    parameters(options, p) {
      p['gr.first-stage-k'] = options.firstStageK ?? DEFAULT_GR.firstStageK;
      p['gr.rerank-depth'] = options.rerankDepth ?? DEFAULT_GR.rerankDepth;
      p['gr.rerank-query'] = RERANK_QUERY[variant];
      if (generatesQueries) {
        p['gr.max-queries'] = GR_MAX_QUERIES;
        p['gr.merge'] = 'round-robin interleaving';
      }
    },
    runTopic: (context, topic, options) =>
      grTopic(context, topic, variant, {
        firstStageK: options.firstStageK ?? DEFAULT_GR.firstStageK,
        rerankDepth: options.rerankDepth ?? DEFAULT_GR.rerankDepth,
      }),
    estimateTopic(topic, _options, sink) {
      const c = estimateTokens(grConversation(topic));
      if (variant === 'qr') sink.call('gr-rewrite', c);
      else if (variant === 'qd') sink.call('gr-queries', c);
      else {
        sink.call('gr-answer', c);
        if (variant !== 'ad') sink.call('gr-answer-queries', c + sink.max('gr-answer'));
      }
    },
  };
}

/** `gr-qr`: the utterance rewritten from the conversation, BM25, rerank. */
export const grQrMethod = grMethod('qr');
/** `gr-ad`: the LLM's answer as the query of BM25 and of the reranker. */
export const grAdMethod = grMethod('ad');
/** `gr-qd`: at most five queries from the conversation, each searched and reranked, interleaved. */
export const grQdMethod = grMethod('qd');
/** `gr-aqd`: the answer first, then at most five queries from it, as `gr-qd`. */
export const grAqdMethod = grMethod('aqd');
/** `gr-aqd-a`: `gr-aqd`'s interleaved list reranked against the answer. */
export const grAqdAMethod = grMethod('aqd-a');
