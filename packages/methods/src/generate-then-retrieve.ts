import { estimateTokens } from '@assay/llm';
import { interleave } from '@assay/retrieval';
import { defineMethod } from './method-definition.js';
import {
  askOrFallback,
  usableQueries,
  usableQuery,
  type MethodContext,
  type MethodTopic,
  type ScoredDoc,
  searchOf,
} from './method-context.js';
import { checkRankGpt, RERANKER_SETTINGS } from './reranker-for.js';
import { defaultsOf, integer, settings, SettingsError, type SettingsOf } from './settings.js';
import { SEARCH_SETTINGS } from './search-service.js';

/**
 * The generate-then-retrieve variants (Abbasiantaeb and Aliannejadi, 2024): `qr` rewrites
 * the utterance, `ad` searches with the LLM's answer, `qd` with at most five queries
 * written from the conversation, `aqd` with at most five queries written from the answer,
 * `aqd-a` as `aqd` and then reranks the interleaved list against the answer.
 */
export type GrVariant = 'qr' | 'ad' | 'qd' | 'aqd' | 'aqd-a';

/** The most queries QD and AQD keep from one answer, as the paper's prompts ask. */
export const GR_MAX_QUERIES = 5;

const GR_SETTINGS = settings({
  firstStageK: integer('BM25 documents retrieved per query before the rerank stage', {
    default: 1000,
    max: 100_000,
  }),
  rerankDepth: integer("documents of each list the reranker reorders (the rest follow)", {
    default: 1000,
    max: 100_000,
    onlyWith: { key: 'reranker' },
  }),
  ...RERANKER_SETTINGS,
  ...SEARCH_SETTINGS,
});

const GR_QUERY_SETTINGS = settings({
  ...GR_SETTINGS,
  maxQueries: integer('generated queries searched at most (more are traced and dropped)', {
    default: GR_MAX_QUERIES,
    max: 50,
  }),
});

/** Generate-then-retrieve settings, parsed. */
export type GrOptions = SettingsOf<typeof GR_SETTINGS> & { maxQueries?: number };

/** The paper's settings: BM25 top 1000, every one of them reranked, at most 5 queries. */
export const DEFAULT_GR: GrOptions = defaultsOf(GR_QUERY_SETTINGS);

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
  const base = { topic: topic.id, method: `gr-${variant}` };
  const conversation = grConversation(topic);
  const raw = topic.text;
  const search = async (query: string, rerankQuery = query) =>
    rerankStage(
      context,
      rerankQuery,
      await searchOf(context).search(query, options.firstStageK),
      options,
    );
  const hasTerm = (text: string) => searchOf(context).hasTerm(text);

  if (variant === 'qr') {
    const query = await generated(context, base, 'gr-rewrite', { conversation }, raw, hasTerm);
    return (await search(query)).slice(0, context.k);
  }

  const maxQueries = options.maxQueries ?? GR_MAX_QUERIES;
  if (variant === 'qd') {
    const queries = await generateQueries(context, base, 'gr-queries', { conversation }, raw, maxQueries);
    return interleaved(await Promise.all(queries.map((q) => search(q))), context.k);
  }

  // The answer stands for the request in every later step (the BM25 query of ad, the
  // queries prompt of aqd, the rerank query of aqd-a); an unusable one is replaced by the
  // raw request there (traced), so no later step is sent text such as `{"oops":`.
  const answer = await generated(context, base, 'gr-answer', { conversation }, raw, hasTerm);
  if (variant === 'ad') return (await search(answer)).slice(0, context.k);

  const queries = await generateQueries(
    context,
    base,
    'gr-answer-queries',
    { conversation, answer },
    raw,
    maxQueries,
  );
  const lists = await Promise.all(queries.map((q) => search(q)));
  const merged = interleaved(lists, Infinity);
  if (variant === 'aqd') return merged.slice(0, context.k);
  return (await rerankStage(context, answer, merged, options)).slice(0, context.k);
}

/**
 * Asks a free-text step (the rewrite or the answer), traces what it wrote, and gives the
 * text the later steps use: the raw request instead of an answer that stays unusable
 * (blank after every attempt) or has no term of the collection, traced once as
 * `query-fallback` with the reason.
 */
async function generated(
  context: MethodContext,
  base: { topic: string; method: string },
  id: 'gr-rewrite' | 'gr-answer',
  values: Record<string, string>,
  raw: string,
  hasTerm: (text: string) => boolean,
): Promise<string> {
  const step = id === 'gr-rewrite' ? 'rewrite' : 'answer';
  const note =
    step === 'rewrite' ? 'searched the raw request' : 'the raw request stands for the answer';
  const answer = await askOrFallback(context, base, id, values, undefined, { text: raw, note });
  if (!answer) return raw;
  context.trace({ ...base, step, prompt: id, text: answer.text, cached: answer.cached });
  return usableQuery(context, base, answer.text, raw, step, hasTerm, { prompt: id, note });
}

/**
 * Asks for the queries: blank ones are dropped, an answer with none is asked again, and
 * past `max` they are traced as dropped and not searched. A query without a term of the
 * collection is traced and dropped; when no usable query is left (or the answer stayed
 * unusable) the raw request is searched instead, traced as `query-fallback`.
 */
async function generateQueries(
  context: MethodContext,
  base: { topic: string; method: string },
  promptId: 'gr-queries' | 'gr-answer-queries',
  values: Record<string, string>,
  raw: string,
  max: number,
): Promise<string[]> {
  const asked = await askOrFallback(
    context,
    base,
    promptId,
    values,
    (json) => {
      const queries = (json as { queries: unknown }).queries;
      if (!Array.isArray(queries) || queries.some((q) => typeof q !== 'string'))
        return 'queries must be a list of strings';
      return queries.some((q: string) => q.trim() !== '') ? undefined : 'the answer holds no query';
    },
    { text: raw },
  );
  if (!asked) return [raw];
  const all = (asked.json as { queries: string[] }).queries
    .map((q) => q.trim())
    .filter((q) => q !== '');
  all.forEach((text, i) =>
    context.trace({
      ...base,
      step: i < max ? 'generated-query' : 'dropped-query',
      prompt: promptId,
      text,
      cached: asked.cached,
    }),
  );
  const kept = usableQueries(context, base, all.slice(0, max), promptId, (q) =>
    searchOf(context).hasTerm(q),
  );
  if (kept.length > 0) return kept;
  context.trace({
    ...base,
    step: 'query-fallback',
    prompt: promptId,
    text: raw,
    reason: 'no generated query has a term of the collection: searched the raw request',
  });
  return [raw];
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

const GR_PAPER =
  'Abbasiantaeb & Aliannejadi (2024), Generate then Retrieve: Conversational Response Retrieval Using LLMs as Answer and Query Generators';

const GR_REPRODUCE =
  "The paper's setting: BM25 top 1000 reranked by the ms-marco-MiniLM-L-6-v2 cross-encoder (`--reranker cross-encoder --reranker-model cross-encoder/ms-marco-MiniLM-L-6-v2`, 1000 is the default depth); GPT-4 with its default sampling (`--temperature 1`) or LLaMA-2-chat 13B with `--temperature 0.75 --top-p 0.9` (top_k 10 is not an OpenAI parameter). Judge its runs with `graded-0-4`, which takes the user's background, the conversation and a reference answer from the topics.";

const VARIANT_STEPS: Record<GrVariant, { steps: string; calls: string; prompts: string[] }> = {
  qr: {
    steps:
      'rewrite the last utterance from background and turns (`gr-rewrite.md`); BM25; rerank against the rewrite',
    calls: '1 chat (+1 rerank with a reranker)',
    prompts: ['gr-rewrite'],
  },
  ad: {
    steps: "the LLM's answer to the conversation (`gr-answer.md`) as the BM25 query; rerank against the answer",
    calls: '1 chat (+1 rerank)',
    prompts: ['gr-answer'],
  },
  qd: {
    steps:
      'at most 5 queries from the conversation (`gr-queries.md`; more are traced and dropped); BM25 and rerank per query; round-robin interleaving',
    calls: '1 chat (+≤5 rerank)',
    prompts: ['gr-queries'],
  },
  aqd: {
    steps:
      'the answer (`gr-answer.md`), then at most 5 queries from it (`gr-answer-queries.md`); per query BM25 and rerank; interleaved',
    calls: '2 chat (+≤5 rerank)',
    prompts: ['gr-answer', 'gr-answer-queries'],
  },
  'aqd-a': {
    steps:
      "`gr-aqd`'s interleaved list, its top `--rerank-depth` reranked against the answer (needs `--reranker`)",
    calls: '2 chat + ≤6 rerank',
    prompts: ['gr-answer', 'gr-answer-queries'],
  },
};

function grMethod(variant: GrVariant) {
  const generatesQueries = variant === 'qd' || variant === 'aqd' || variant === 'aqd-a';
  const name = `gr-${variant}`;
  const shape = generatesQueries ? GR_QUERY_SETTINGS : GR_SETTINGS;
  return defineMethod({
    name,
    paper: variant === 'qr' ? GR_PAPER : `same as gr-qr (${variant.toUpperCase().replace('-A', '_A')})`,
    steps: VARIANT_STEPS[variant].steps,
    calls: VARIANT_STEPS[variant].calls,
    reproduce: variant === 'qr' ? GR_REPRODUCE : 'as gr-qr',
    settings: shape as typeof GR_QUERY_SETTINGS,
    prompts: [...VARIANT_STEPS[variant].prompts, 'rankgpt'],
    prefix: 'gr',
    check(s, spell) {
      if (variant === 'aqd-a' && s.reranker === undefined)
        throw new SettingsError(
          'reranker',
          `gr-aqd-a reranks the interleaved list against the answer: give ${spell('reranker')} (cross-encoder or rankgpt); without a reranker it would be gr-aqd`,
        );
      checkRankGpt(s, spell);
    },
    needsChat: () => true,
    embeddings: () => 'none',
    needsDocumentText: (s) => s.reranker !== undefined,
    parameters(_s, p) {
      p['gr.rerank-query'] = RERANK_QUERY[variant];
      if (generatesQueries) p['gr.merge'] = 'round-robin interleaving';
    },
    runTopic: (context, topic, s) => grTopic(context, topic, variant, s),
    estimateTopic(topic, _s, sink) {
      const c = estimateTokens(grConversation(topic));
      if (variant === 'qr') sink.call('gr-rewrite', c);
      else if (variant === 'qd') sink.call('gr-queries', c);
      else {
        sink.call('gr-answer', c);
        if (variant !== 'ad') sink.call('gr-answer-queries', c + sink.max('gr-answer'));
      }
    },
  });
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
