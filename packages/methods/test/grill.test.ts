import { MemoryCallStore, OpenAIChatClient } from '@assay/llm';
import { Bm25Searcher, buildIndex, DEFAULT_ANALYZER } from '@assay/retrieval';
import { afterEach, describe, expect, it } from 'vitest';
import type { Behaviour, TestServer } from '@assay/test-support/openai-test-server';
import {
  DEFAULT_GRILL,
  grillTopic,
  retrieveWithModels,
  type MethodContext,
  type MethodTopic,
  type ModelResources,
  type Reranker,
  type ScoredDoc,
  type TraceEntry,
} from '../src/index.js';
import { PROMPTS, startDouble, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A chain of documents linked by shared terms. Every document has two terms (d5 and d6
 * one), so a document used as a query (its 10 best terms) is all of its terms. Document
 * frequencies: pear 3 (d1 d2 d3), plum 2 (d2 d4), every other term 1; with N = 6, BM25's
 * idf(plum) = ln 2.8 > idf(pear) = ln 2, and documents of equal length and one shared term
 * tie (ties go to the later docno first).
 */
const DOCS = [
  { id: 'd1', text: 'apple pear' },
  { id: 'd2', text: 'pear plum' },
  { id: 'd3', text: 'pear kiwi' },
  { id: 'd4', text: 'plum fig' },
  { id: 'd5', text: 'lime' },
  { id: 'd6', text: 'lemon' },
];

const TOPIC: MethodTopic = {
  id: 't1',
  text: 'and that fruit?',
  previousTurns: [
    { role: 'user', text: 'Tell me about apples.' },
    { role: 'assistant', text: 'Apples grow on trees.' },
  ],
  userBackground: ['I live in Scotland.'],
};

const REWRITE_PROMPT =
  'Earlier turns of the conversation, oldest first:\n' +
  'user: Tell me about apples.\nassistant: Apples grow on trees.\n\n' +
  'What the user has said about themselves:\n- I live in Scotland.\n\n' +
  "The user's current request:\nand that fruit?\n\n" +
  'Write one search query for this request. Resolve every pronoun and reference to earlier\n' +
  "turns, and add the details of the user's situation that matter for what they are asking,\n" +
  'so the query stands on its own. Keep the words a relevant document would use; do not\n' +
  'answer the request. Answer as {"query": "..."}.';

const filterPrompt = (query: string, passage: string) =>
  `Query: ${query}\n\nPassage:\n${passage}\n\n` +
  'Is any part of the passage useful for answering the query? Answer with JSON only:\n' +
  '{"relevant": 1} if it is, {"relevant": 0} if it is not.';

const gapsPrompt = (query: string, passages: string) =>
  `The information need:\n${query}\n\nThe best documents found so far:\n${passages}\n\n` +
  'Which aspects of the information need do these documents not yet cover, or cover only\n' +
  'thinly? Name at most three such gaps, the most important first. For each gap, write two or\n' +
  'three different keyword search queries that would find documents filling it; each query\n' +
  'must make sense on its own, without the information need beside it.\n\n' +
  'Answer as {"gaps": [{"gap": "what is missing", "queries": ["query", "query"]}]}.';

type Kind = 'rewrite' | 'decompose' | 'gaps' | 'filter';

function kindOf(user: string): Kind {
  if (user.startsWith('Query: ')) return 'filter';
  if (user.startsWith('The information need:')) return 'gaps';
  if (user.includes("The user's current request:")) return 'rewrite';
  if (user.includes('The request:')) return 'decompose';
  throw new Error(`unexpected prompt: ${user.slice(0, 60)}`);
}

interface Script {
  rewrite?: string;
  /** The whole rewrite answer, instead of {"query": rewrite}. */
  rewriteReply?: string;
  subQuestions?: string[];
  /** Gap answer by the information need (default: one gap, query "lime"). */
  gaps?: (need: string) => string;
  /** Passages the judge says are not relevant. */
  notRelevant?: string[];
  /** Passages the judge answers with prose (unreadable). */
  unreadable?: string[];
}

function grillScript(script: Script = {}) {
  return (user: string): Behaviour => {
    switch (kindOf(user)) {
      case 'rewrite':
        return {
          reply: script.rewriteReply ?? JSON.stringify({ query: script.rewrite ?? 'apple' }),
        };
      case 'decompose':
        return { reply: JSON.stringify({ sub_questions: script.subQuestions ?? ['apple'] }) };
      case 'gaps': {
        const need = /^The information need:\n(.*)\n/.exec(user)![1]!;
        return {
          reply:
            script.gaps?.(need) ??
            JSON.stringify({ gaps: [{ gap: 'citrus fruit', queries: ['lime'] }] }),
        };
      }
      case 'filter': {
        const passage = /\nPassage:\n(.*)\n/.exec(user)![1]!;
        if (script.unreadable?.includes(passage)) return { reply: 'it depends' };
        return {
          reply: JSON.stringify({ relevant: script.notRelevant?.includes(passage) ? 0 : 1 }),
        };
      }
    }
  };
}

function grillResources(s: TestServer, store: MemoryCallStore): ModelResources {
  return {
    index: buildIndex(DOCS, DEFAULT_ANALYZER),
    prompts: PROMPTS,
    deps: { store, sleep: async () => {}, random: () => 0 },
    chat: { client: new OpenAIChatClient({ baseURL: s.baseURL }), model: 'm' },
    documents: DOCS,
  };
}

/** A context for grillTopic with the settings the run options do not reach. */
function grillContext(
  s: TestServer,
  trace: TraceEntry[],
  extra: Partial<MethodContext> = {},
): MethodContext {
  const r = grillResources(s, new MemoryCallStore());
  return {
    prompts: PROMPTS,
    deps: r.deps,
    chat: r.chat!,
    bm25: new Bm25Searcher(buildIndex(DOCS, DEFAULT_ANALYZER)),
    documents: new Map(DOCS.map((d) => [d.id, { text: d.text }])),
    today: '2026-01-01',
    k: 1000,
    trace: (e) => trace.push(e),
    ...extra,
  };
}

const users = (s: TestServer, kind: Kind) =>
  s.requests.map((r) => userMessage(r.body)).filter((u) => kindOf(u) === kind);

const docnos = (list: readonly ScoredDoc[] | undefined) => (list ?? []).map((d) => d.docno);

const rounds = (trace: TraceEntry[]) =>
  trace
    .filter((t) => t.step === 'round')
    .map((t) => ({ round: t.round, newDocuments: t.newDocuments, stop: t.stop }));

async function run(settings: Record<string, unknown> = {}, script: Script = {}) {
  server = await startDouble(grillScript(script));
  const store = new MemoryCallStore();
  const result = await retrieveWithModels([TOPIC], grillResources(server, store), {
    method: 'grill',
    k: 10,
    settings,
  });
  return { result, store };
}

describe('grill', () => {
  it('rewrites with the conversation, filters, expands, asks for gaps with the exact prompts, fuses by RRF; a rerun sends nothing', async () => {
    const { result, store } = await run();
    expect(result.failures).toEqual([]);
    expect(users(server!, 'rewrite')).toEqual([REWRITE_PROMPT]);
    expect(server!.requests[0]!.body.response_format).toMatchObject({
      json_schema: { name: 'grill_rewrite', strict: true },
    });
    // BM25 "apple" finds d1; d1 as a query (apple pear) finds d1, then d3 and d2 (tied on
    // pear, later docno first); the gap query "lime" finds d5. Each document judged once.
    expect(users(server!, 'filter').sort()).toEqual(
      [
        filterPrompt('apple', 'apple pear'),
        filterPrompt('apple', 'pear kiwi'),
        filterPrompt('apple', 'pear plum'),
        filterPrompt('apple', 'lime'),
      ].sort(),
    );
    // The gap analysis sees the top of RRF([d1], [d1 d3 d2]): d1 2/61, d3 1/62, d2 1/63.
    expect(users(server!, 'gaps')).toEqual([
      gapsPrompt('apple', '[1] apple pear\n\n[2] pear kiwi\n\n[3] pear plum'),
    ]);
    // Final RRF of [d1], [d1 d3 d2], [d5]: d1 2/61, d5 1/61, d3 1/62, d2 1/63.
    const ranking = result.run.topics.get('t1')!;
    expect(ranking.map((e) => e.docno)).toEqual(['d1', 'd5', 'd3', 'd2']);
    expect(ranking[0]!.score).toBeCloseTo(2 / 61, 12);
    expect(ranking[3]!.score).toBeCloseTo(1 / 63, 12);

    expect(result.trace.map((t) => [t.step, t.text])).toEqual([
      ['rewrite', 'apple'],
      ['query', 'apple'],
      ['round', 'round 1: 1 seed documents, 2 new documents, 3 in all; stopped: rounds'],
      ['gap', 'citrus fruit'],
      ['generated-query', 'lime'],
    ]);
    expect(rounds(result.trace)).toEqual([{ round: 1, newDocuments: 2, stop: 'rounds' }]);
    expect(result.parameters).toMatchObject({
      method: 'grill',
      'grill.rounds': 1,
      'grill.min-gain': 0,
      'grill.rerank-budget': 500,
      'grill.decompose': 'false',
      'grill.candidates': 20,
      'grill.qbd-neighbours': 10,
      'grill.qbd-query': 'document',
      'grill.gap-documents': 10,
      'grill.max-gaps': 3,
      'grill.queries-per-gap': 3,
      'grill.rrf-k': 60,
      'grill.filter': 'binary-filter',
      'grill.filter-unreadable': 'keep',
    });

    const sent = server!.requests.length;
    expect(sent).toBe(6);
    // The judgments are counted with the run's other calls.
    expect(result.spend.calls).toBe(6);
    const again = await retrieveWithModels([TOPIC], grillResources(server!, store), {
      method: 'grill',
      k: 10,
    });
    expect(server!.requests).toHaveLength(sent);
    expect(again.spend.calls).toBe(0);
    expect(docnos(again.run.topics.get('t1')!)).toEqual(['d1', 'd5', 'd3', 'd2']);
  });

  it('removes the documents the judge says no to between stages; they seed nothing and are judged once', async () => {
    const { result } = await run({ rounds: 10 }, { notRelevant: ['pear kiwi', 'lime'] });
    // Round 1 (seed d1) keeps d2 only; round 2 (seed d2: pear plum) finds d1 d2 d3 d4, d3
    // already judged, d4 new; round 3 (seed d4: plum fig) finds d4 d2: nothing new.
    expect(rounds(result.trace)).toEqual([
      { round: 1, newDocuments: 1, stop: undefined },
      { round: 2, newDocuments: 1, stop: undefined },
      { round: 3, newDocuments: 0, stop: 'saturated' },
    ]);
    expect(users(server!, 'filter')).toHaveLength(5);
    expect(
      result.trace
        .filter((t) => t.step === 'filtered-out')
        .map((t) => ({ docno: t.docno, stage: t.stage, round: t.round })),
    ).toEqual([
      { docno: 'd3', stage: 'expansion', round: 1 },
      { docno: 'd5', stage: 'gaps', round: undefined },
    ]);
    // Gap analysis sees RRF([d1], [d1 d2], [d2 d4 d1], [d4 d2]) without d3:
    // d1 = 2/61 + 1/63 = .048660, d2 = 1/62 + 1/61 + 1/62 = .048651, d4 = 1/62 + 1/61.
    expect(users(server!, 'gaps')).toEqual([
      gapsPrompt('apple', '[1] apple pear\n\n[2] pear plum\n\n[3] plum fig'),
    ]);
    expect(docnos(result.run.topics.get('t1'))).toEqual(['d1', 'd2', 'd4']);
  });

  it('stops when a round adds nothing (saturation) and fuses every list by RRF', async () => {
    const { result } = await run({ rounds: 10 });
    // Round 1 seed d1 → d2 d3 new; round 2 seeds d2, d3 → d4 new; round 3 seed d4 → nothing.
    expect(rounds(result.trace)).toEqual([
      { round: 1, newDocuments: 2, stop: undefined },
      { round: 2, newDocuments: 1, stop: undefined },
      { round: 3, newDocuments: 0, stop: 'saturated' },
    ]);
    // Lists: [d1]; d1→[d1 d3 d2]; d2→[d2 d4 d3 d1] (plum's idf above pear's); d3→[d3 d2 d1];
    // d4→[d4 d2]; "lime"→[d5]. RRF (k 60):
    // d2 = 1/63 + 1/61 + 1/62 + 1/62 = .064524; d1 = 1/61 + 1/61 + 1/64 + 1/63 = .064290;
    // d3 = 1/62 + 1/63 + 1/61 = .048395; d4 = 1/62 + 1/61 = .032522; d5 = 1/61.
    expect(docnos(result.run.topics.get('t1'))).toEqual(['d2', 'd1', 'd3', 'd4', 'd5']);
    const scores = result.run.topics.get('t1')!.map((e) => e.score);
    expect(scores[0]).toBeCloseTo(1 / 63 + 1 / 61 + 2 / 62, 12);
    expect(scores[1]).toBeCloseTo(2 / 61 + 1 / 64 + 1 / 63, 12);
  });

  it('stops when a round adds fewer than --min-gain documents', async () => {
    const { result } = await run({ rounds: 10, minGain: 2 });
    // Round 1 adds d2 and d3 (not fewer than 2); round 2 adds only d4.
    expect(rounds(result.trace)).toEqual([
      { round: 1, newDocuments: 2, stop: undefined },
      { round: 2, newDocuments: 1, stop: 'min-gain' },
    ]);
    // Without round 3 there is no list of d4's: d1 = 2/61 + 1/63 + 1/64 first; d2 and d3
    // both 1/61 + 1/62 + 1/63; then d5 (1/61) above d4 (1/62).
    const ranked = docnos(result.run.topics.get('t1'));
    expect(ranked[0]).toBe('d1');
    expect(ranked.slice(1, 3).sort()).toEqual(['d2', 'd3']);
    expect(ranked.slice(3)).toEqual(['d5', 'd4']);
  });

  it('runs no more than --rounds rounds', async () => {
    const { result } = await run({ rounds: 2 });
    expect(rounds(result.trace)).toEqual([
      { round: 1, newDocuments: 2, stop: undefined },
      { round: 2, newDocuments: 1, stop: 'rounds' },
    ]);
  });

  it('passes only the top --rerank-budget documents to the reranker and keeps its order', async () => {
    server = await startDouble(grillScript());
    const received: Array<{ query: string; docs: string[] }> = [];
    const reranker: Reranker = {
      name: 'test-reverse',
      rerank: async (query, candidates) => {
        received.push({ query, docs: docnos(candidates) });
        return [...candidates].reverse().map((d, i) => ({ docno: d.docno, score: 10 - i }));
      },
    };
    const trace: TraceEntry[] = [];
    const ranked = await grillTopic(grillContext(server, trace, { reranker }), TOPIC, {
      ...DEFAULT_GRILL,
      rerankBudget: 2,
    });
    // The fused list is d1 d5 d3 d2; the budget keeps d1 d5, the reranker reverses them.
    expect(received).toEqual([{ query: 'apple', docs: ['d1', 'd5'] }]);
    expect(docnos(ranked)).toEqual(['d5', 'd1']);
  });

  it('keeps the fused order without a reranker, cut to the budget', async () => {
    const { result } = await run({ rerankBudget: 3 });
    expect(docnos(result.run.topics.get('t1'))).toEqual(['d1', 'd5', 'd3']);
  });

  it('uses fewer candidates and gap documents when told to (grillTopic settings)', async () => {
    server = await startDouble(grillScript());
    const trace: TraceEntry[] = [];
    // One neighbour per seed document: d1 as a query finds d1 only, so round 1 adds nothing.
    const ranked = await grillTopic(grillContext(server, trace), TOPIC, {
      ...DEFAULT_GRILL,
      rounds: 5,
      qbdNeighbours: 1,
      gapDocuments: 1,
    });
    expect(rounds(trace)).toEqual([{ round: 1, newDocuments: 0, stop: 'saturated' }]);
    expect(users(server, 'gaps')).toEqual([gapsPrompt('apple', '[1] apple pear')]);
    // [d1], [d1], [d5]: d1 2/61, d5 1/61.
    expect(docnos(ranked)).toEqual(['d1', 'd5']);
  });

  it('--decompose runs the pipeline per sub-question and fuses them by RRF', async () => {
    const { result } = await run(
      { decompose: true },
      {
        subQuestions: ['apple', '  ', 'fig'],
        gaps: (need) =>
          JSON.stringify({
            gaps: [{ gap: 'more', queries: [need === 'fig' ? 'lemon' : 'lime'] }],
          }),
      },
    );
    expect(users(server!, 'rewrite')).toEqual([]);
    expect(users(server!, 'decompose')).toEqual([
      'Earlier turns of the conversation, oldest first:\n' +
        'user: Tell me about apples.\nassistant: Apples grow on trees.\n\n' +
        'What the user has said about themselves:\n- I live in Scotland.\n\n' +
        'The request:\nand that fruit?\n\n' +
        'Split the request into the separate questions that together answer it: at most five, each\n' +
        'about one aspect, each understandable on its own (no pronouns pointing back at the request\n' +
        'or at other questions). A request that asks one simple thing is its own single question.\n\n' +
        'Answer as {"sub_questions": ["question", "question"]}.',
    ]);
    // Each sub-question's documents are judged against that sub-question.
    expect(users(server!, 'filter').filter((u) => u.startsWith('Query: fig\n'))).toHaveLength(3);
    // "apple": d1 d5 d3 d2 (as above). "fig": [d4]; d4→[d4 d2]; "lemon"→[d6] gives
    // d4 2/61, d6 1/61, d2 1/62. RRF of the two lists: d2 = 1/64 + 1/63; d4 = d1 = 1/61
    // (tie: later docno first); d6 = d5 = 1/62; d3 = 1/63.
    expect(docnos(result.run.topics.get('t1'))).toEqual(['d2', 'd4', 'd1', 'd6', 'd5', 'd3']);
    expect(
      result.trace
        .filter((t) => t.step === 'sub-question' || t.step === 'generated-query')
        .map((t) => [t.step, t.subQuestion, t.text]),
    ).toEqual([
      ['sub-question', 1, 'apple'],
      ['sub-question', 2, 'fig'],
      ['generated-query', 1, 'lime'],
      ['generated-query', 2, 'lemon'],
    ]);
    expect(result.parameters).toMatchObject({
      'grill.decompose': 'true',
      'grill.max-sub-questions': 5,
    });
  });

  it('re-asks a malformed gap answer, then ranks without gap queries (traced)', async () => {
    const { result } = await run({}, { gaps: () => 'no gaps to report' });
    expect(users(server!, 'gaps')).toHaveLength(3);
    expect(result.failures).toEqual([]);
    expect(result.trace.find((t) => t.step === 'gaps-unusable')).toEqual({
      topic: 't1',
      method: 'grill',
      step: 'gaps-unusable',
      prompt: 'grill-gaps',
      text: '',
      reason: 'grill-gaps: unusable answer after 3 attempts: answer is not JSON: no gap queries',
    });
    // RRF of [d1] and [d1 d3 d2] alone: d1 2/61, d3 1/62, d2 1/63.
    expect(docnos(result.run.topics.get('t1'))).toEqual(['d1', 'd3', 'd2']);
  });

  it('drops a gap query without a term of the collection (traced) and searches the others', async () => {
    const { result } = await run(
      {},
      {
        gaps: () =>
          JSON.stringify({ gaps: [{ gap: 'citrus fruit', queries: ['{"oops":', 'lime'] }] }),
      },
    );
    expect(result.trace.map((t) => [t.step, t.text])).toEqual([
      ['rewrite', 'apple'],
      ['query', 'apple'],
      ['round', 'round 1: 1 seed documents, 2 new documents, 3 in all; stopped: rounds'],
      ['gap', 'citrus fruit'],
      ['generated-query', '{"oops":'],
      ['generated-query', 'lime'],
      ['dropped-query', '{"oops":'],
    ]);
    expect(result.trace.at(-1)).toEqual({
      topic: 't1',
      method: 'grill',
      step: 'dropped-query',
      prompt: 'grill-gaps',
      text: '{"oops":',
      reason: 'no term of the collection',
    });
    // As with the gap query "lime" alone: d1, d5, d3, d2.
    expect(docnos(result.run.topics.get('t1'))).toEqual(['d1', 'd5', 'd3', 'd2']);
  });

  it('treats a gap answer without gaps or queries as unusable', async () => {
    const { result } = await run(
      {},
      { gaps: () => JSON.stringify({ gaps: [{ gap: 'citrus', queries: [' '] }] }) },
    );
    expect(result.failures).toEqual([]);
    expect(result.trace.find((t) => t.step === 'gaps-unusable')!.reason).toBe(
      "grill-gaps: unusable answer after 3 attempts: gap 'citrus': no query was given: no gap queries",
    );
  });

  it('keeps the unfiltered candidates when the filter rejects every one (traced)', async () => {
    // The judge says no to every passage: the candidates stage keeps d1 (nothing was kept
    // before it); d1's neighbours d3 d2 and the gap's d5 are judged and dropped.
    const { result } = await run(
      {},
      { notRelevant: ['apple pear', 'pear plum', 'pear kiwi', 'lime'] },
    );
    expect(result.missing).toEqual([]);
    expect(docnos(result.run.topics.get('t1'))).toEqual(['d1']);
    expect(result.trace.find((t) => t.step === 'filter-kept-all')).toEqual({
      topic: 't1',
      method: 'grill',
      stage: 'candidates',
      step: 'filter-kept-all',
      prompt: 'binary-filter',
      text: 'apple',
      reason:
        'the relevance filter rejected all 1 documents of the candidates stage and none was kept before: kept its unfiltered ranking',
    });
    expect(result.trace.filter((t) => t.step === 'filtered-out').map((t) => t.docno)).toEqual([
      'd1',
      'd3',
      'd2',
      'd5',
    ]);
  });

  it('searches the raw request when the rewrite stays unusable or has no term of the collection', async () => {
    const unusable = await run({}, { rewriteReply: 'not JSON' });
    expect(users(server!, 'rewrite')).toHaveLength(3);
    expect(unusable.result.trace[0]).toEqual({
      topic: 't1',
      method: 'grill',
      step: 'query-fallback',
      prompt: 'grill-rewrite',
      text: 'and that fruit?',
      reason: 'grill-rewrite: unusable answer after 3 attempts: answer is not JSON: searched the raw request',
    });
    // "and that fruit?" has no term of the collection: no candidate, and the gap query
    // "lime" finds d5.
    expect(docnos(unusable.result.run.topics.get('t1'))).toEqual(['d5']);

    const termless = await run({}, { rewrite: '{"oops":' });
    expect(termless.result.trace.slice(0, 2).map((t) => [t.step, t.text])).toEqual([
      ['rewrite', '{"oops":'],
      ['query-fallback', 'and that fruit?'],
    ]);
    expect(docnos(termless.result.run.topics.get('t1'))).toEqual(['d5']);
  });

  it('query-by-document: the whole document by default, its best tf-idf terms with qbd-query terms', async () => {
    // With d7 "apple pear fig" (N 7; df apple 2, pear 4, fig 2), "fig apple pear" finds d7
    // first. Its whole text as a query finds d7, d1, d4, d3, d2 (apple, pear and fig each
    // once); its one best term (apple and fig tie on tf-idf; "appl" sorts first) finds d1, d7.
    const docs = [...DOCS, { id: 'd7', text: 'apple pear fig' }];
    server = await startDouble(
      grillScript({ rewrite: 'fig apple pear', gaps: () => JSON.stringify({ gaps: [] }) }),
    );
    const context = () => ({
      ...grillContext(server!, []),
      bm25: new Bm25Searcher(buildIndex(docs, DEFAULT_ANALYZER)),
      documents: new Map(docs.map((d) => [d.id, { text: d.text }])),
    });
    const topic = { id: 'q', text: 'which fruit?' };
    const whole = await grillTopic(context(), topic, { ...DEFAULT_GRILL, candidates: 1 });
    // RRF of [d7] and [d7 d1 d4 d3 d2].
    expect(docnos(whole)).toEqual(['d7', 'd1', 'd4', 'd3', 'd2']);
    const terms = await grillTopic(context(), topic, {
      ...DEFAULT_GRILL,
      candidates: 1,
      qbdQuery: 'terms',
      qbdTerms: 1,
    });
    // RRF of [d7] and [d1 d7]: d7 1/61 + 1/62, d1 1/61.
    expect(docnos(terms)).toEqual(['d7', 'd1']);
  });

  it('keeps a document whose filter answer stays unreadable, and traces it', async () => {
    const { result } = await run({}, { unreadable: ['pear kiwi'] });
    // Three attempts for d3's judgment; d3 stays in the ranking.
    expect(users(server!, 'filter').filter((u) => u.includes('pear kiwi'))).toHaveLength(3);
    expect(result.trace.find((t) => t.step === 'filter-unreadable')).toMatchObject({
      docno: 'd3',
      stage: 'expansion',
    });
    expect(docnos(result.run.topics.get('t1'))).toEqual(['d1', 'd5', 'd3', 'd2']);
  });

  it('fails the topic when a filter call fails after its retries', async () => {
    server = await startDouble((user) =>
      kindOf(user) === 'filter' ? { status: 400, message: 'model not found' } : grillScript()(user),
    );
    const result = await retrieveWithModels(
      [TOPIC],
      grillResources(server, new MemoryCallStore()),
      { method: 'grill' },
    );
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]!.reason).toMatch(
      /^chat call failed: binary-filter: .*model not found/,
    );
  });

  it('sends no filter judgment once the budget is spent', async () => {
    server = await startDouble(grillScript());
    const r = grillResources(server, new MemoryCallStore());
    r.chat!.model = 'gpt-4.1-nano';
    // The rewrite (100 prompt + 10 completion tokens) costs $0.000014: over the budget.
    const result = await retrieveWithModels([TOPIC], r, {
      method: 'grill',
      budgetUsd: 0.00001,
    });
    expect(server.requests.map((q) => kindOf(userMessage(q.body)))).toEqual(['rewrite']);
    expect(result.stoppedForBudget).toBe(true);
    expect(result.unfinished).toEqual(['t1']);
  });

  it('judges with the binary-filter step model when given one', async () => {
    server = await startDouble(grillScript());
    const r = grillResources(server, new MemoryCallStore());
    r.steps = { 'binary-filter': { model: 'ft:filter', temperature: 0 } };
    await retrieveWithModels([TOPIC], r, { method: 'grill', k: 10 });
    const models = server.requests.map((q) => [kindOf(userMessage(q.body)), q.body.model]);
    expect(models).toEqual([
      ['rewrite', 'm'],
      ['filter', 'ft:filter'],
      ['filter', 'ft:filter'],
      ['filter', 'ft:filter'],
      ['gaps', 'm'],
      ['filter', 'ft:filter'],
    ]);
  });

  it('checks its settings', async () => {
    server = await startDouble(grillScript());
    const r = grillResources(server, new MemoryCallStore());
    await expect(
      retrieveWithModels([TOPIC], r, { method: 'grill', settings: { rounds: 0 } }),
    ).rejects.toThrow('rounds needs a whole number from 1 to 50, not 0');
    await expect(
      retrieveWithModels([TOPIC], r, { method: 'grill', settings: { rerankBudget: 0 } }),
    ).rejects.toThrow('rerankBudget needs a whole number from 1 to 100000, not 0');
    await expect(
      retrieveWithModels([TOPIC], r, { method: 'grill', settings: { aggregation: 'dense' } }),
    ).rejects.toThrow('aggregation applies to query2doc and amd only, not grill');
    await expect(
      retrieveWithModels([TOPIC], r, { method: 'grill', settings: { qbdQuery: 'words' } }),
    ).rejects.toThrow('qbdQuery needs one of document, terms, not "words"');
    await expect(
      retrieveWithModels([TOPIC], r, { method: 'grill', settings: { qbdTerms: 5 } }),
    ).rejects.toThrow('qbdTerms applies to qbdQuery terms');
    expect(server.requests).toHaveLength(0);
  });
});
