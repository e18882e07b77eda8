import { MemoryCallStore, OpenAIChatClient } from '@assay/llm';
import { Bm25Searcher, buildIndex, DEFAULT_ANALYZER, DEFAULT_BM25 } from '@assay/retrieval';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '@assay/test-support/openai-test-server';
import {
  CrossEncoderReranker,
  parsePermutation,
  RankGptReranker,
  retrieveWithModels,
  slidingWindows,
  type MethodContext,
  type ScoredDoc,
  type TraceEntry,
} from '../src/index.js';
import { DOCS, PROMPTS, resources, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A context over `docs` on `store`, its trace collected in `trace`. */
function contextOf(
  docs: ReadonlyArray<{ id: string; text: string }>,
  store: MemoryCallStore,
  trace: TraceEntry[],
): MethodContext {
  return {
    ...(server ? { chat: { client: new OpenAIChatClient({ baseURL: server.baseURL }), model: 'm' } } : {}),
    prompts: PROMPTS,
    deps: { store, sleep: async () => {}, random: () => 0 },
    bm25: new Bm25Searcher(buildIndex(DOCS, DEFAULT_ANALYZER), DEFAULT_BM25),
    documents: new Map(docs.map((d) => [d.id, { text: d.text }])),
    today: '2026-01-01',
    k: 1000,
    trace: (entry) => trace.push(entry),
  };
}

/** c01..cNN with texts "passage 1".."passage N", in that order. */
function numbered(n: number): { docs: { id: string; text: string }[]; list: ScoredDoc[] } {
  const docs = Array.from({ length: n }, (_, i) => ({
    id: `c${String(i + 1).padStart(2, '0')}`,
    text: `passage ${i + 1}`,
  }));
  return { docs, list: docs.map((d, i) => ({ docno: d.id, score: n - i })) };
}

/** A chat double that answers every window reversed: `[size] > … > [1]`. */
function reversing(body: Record<string, unknown>): Behaviour {
  const size = Number(/^Below are (\d+) passages/.exec(userMessage(body))![1]);
  return {
    reply: Array.from({ length: size }, (_, i) => `[${size - i}]`).join(' > '),
  };
}

describe('sliding windows', () => {
  it('goes from the bottom of the list to the top, step 10, window 20', () => {
    expect(slidingWindows(30, 20, 10)).toEqual([
      [10, 30],
      [0, 20],
    ]);
    expect(slidingWindows(100, 20, 10).map(([s]) => s)).toEqual([
      80, 70, 60, 50, 40, 30, 20, 10, 0,
    ]);
    // The last window is cut at the top so the first documents are always ranked.
    expect(slidingWindows(25, 20, 10)).toEqual([
      [5, 25],
      [0, 15],
    ]);
    expect(slidingWindows(7, 20, 10)).toEqual([[0, 7]]);
    expect(slidingWindows(1, 20, 10)).toEqual([]);
    expect(() => slidingWindows(10, 5, 6)).toThrow('need 1 <= step <= window');
  });
});

describe('parsePermutation', () => {
  it('reads the bracketed ids in order', () => {
    expect(parsePermutation('[3] > [1] > [2]', 3)).toEqual([2, 0, 1]);
  });
  it('appends the ids not named in their original order', () => {
    expect(parsePermutation('[4] > [2]', 5)).toEqual([3, 1, 0, 2, 4]);
  });
  it('drops repeats and ignores unknown ids', () => {
    expect(parsePermutation('[2] > [9] > [2] > [0] > [3]', 3)).toEqual([1, 2, 0]);
  });
  it('reads bare numbers when there is no bracket, and ignores prose around', () => {
    expect(parsePermutation('Ranking: 2 > 3 > 1', 3)).toEqual([1, 2, 0]);
    expect(parsePermutation('The order is [2] > [1] (passage 3 is off topic)', 3)).toEqual([
      1, 0, 2,
    ]);
  });
  it('is undefined when no passage is named', () => {
    expect(parsePermutation('I cannot rank these.', 3)).toBeUndefined();
    expect(parsePermutation('[7] > [8]', 3)).toBeUndefined();
  });
});

describe('RankGptReranker', () => {
  it('ranks 30 candidates in two windows, bottom first, and reruns for free', async () => {
    server = await startOpenAITestServer((body) => reversing(body));
    const store = new MemoryCallStore();
    const { docs, list } = numbered(30);
    const chat = { client: new OpenAIChatClient({ baseURL: server.baseURL }), model: 'm' };
    const reranker = new RankGptReranker(chat.model);
    expect(reranker.name).toBe('rankgpt:m');
    const trace: TraceEntry[] = [];
    const out = await reranker.rerank('q', list, contextOf(docs, store, trace), 't1');

    expect(server.requests).toHaveLength(2);
    const passagesOf = (n: number) =>
      [...userMessage(server!.requests[n]!.body).matchAll(/^\[(\d+)\] passage (\d+)$/gm)].map(
        (m) => `${m[1]}:${m[2]}`,
      );
    // Window 1 is positions 11..30 (c11..c30) as [1]..[20].
    expect(passagesOf(0)).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1}:${i + 11}`));
    // Window 1 reversed leaves c01..c10, c30..c11; window 2 is positions 1..20:
    // c01..c10 as [1]..[10], then c30..c21 as [11]..[20].
    expect(passagesOf(1)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `${i + 1}:${i + 1}`),
      ...Array.from({ length: 10 }, (_, i) => `${i + 11}:${30 - i}`),
    ]);
    // Window 2 reversed: c21..c30, c10..c01; positions 21..30 keep c20..c11.
    const expected = [
      ...Array.from({ length: 10 }, (_, i) => 21 + i),
      ...Array.from({ length: 10 }, (_, i) => 10 - i),
      ...Array.from({ length: 10 }, (_, i) => 20 - i),
    ].map((n) => `c${String(n).padStart(2, '0')}`);
    expect(out.map((d) => d.docno)).toEqual(expected);
    expect(out.map((d) => d.score)).toEqual(Array.from({ length: 30 }, (_, i) => 30 - i));
    expect(trace.map((t) => [t.topic, t.method, t.step, t.prompt, t.text.slice(0, 13)])).toEqual([
      ['t1', 'rankgpt', 'permutation', 'rankgpt', '11-30: [20] >'],
      ['t1', 'rankgpt', 'permutation', 'rankgpt', '1-20: [20] > '],
    ]);

    const again: TraceEntry[] = [];
    const second = await reranker.rerank('q', list, contextOf(docs, store, again), 't1');
    expect(server.requests).toHaveLength(2);
    expect(second).toEqual(out);
    expect(again.every((t) => t.cached === true)).toBe(true);
  });

  it('sends the prompt of methods/rankgpt.md with passages cut to the word cap', async () => {
    server = await startOpenAITestServer(() => ({ reply: '[2] > [3]' }));
    const store = new MemoryCallStore();
    const docs = [
      { id: 'a', text: 'one two three four five' },
      { id: 'b', text: 'six\nseven' },
      { id: 'c', text: 'eight' },
    ];
    const chat = { client: new OpenAIChatClient({ baseURL: server.baseURL }), model: 'm' };
    const reranker = new RankGptReranker(chat.model, { passageWords: 3 });
    const out = await reranker.rerank(
      'the query',
      docs.map((d) => ({ docno: d.id, score: 1 })),
      contextOf(docs, store, []),
    );
    // [2] > [3], then [1] appended.
    expect(out).toEqual([
      { docno: 'b', score: 3 },
      { docno: 'c', score: 2 },
      { docno: 'a', score: 1 },
    ]);
    const body = server.requests[0]!.body;
    expect(body.temperature).toBe(0);
    expect(body.max_tokens).toBe(300);
    expect(body.response_format).toBeUndefined();
    expect(body.messages).toEqual([
      {
        role: 'system',
        content:
          'You are a ranking assistant. You order passages by how relevant they are to a search query, and you answer with the order of their identifiers only.',
      },
      {
        role: 'user',
        content:
          'Below are 3 passages, each marked with a number in square brackets. Order them by\n' +
          'how relevant they are to this search query: the query\n\n' +
          '[1] one two three\n\n[2] six seven\n\n[3] eight\n\n' +
          'Search query: the query\n\n' +
          'Order all 3 passages above from the most relevant to the least relevant to the\n' +
          'search query, using their identifiers, in the form [2] > [1] > [3]. Give every identifier\n' +
          'once. Answer with the order only, with no explanation.',
      },
    ]);
  });

  it('re-asks an answer that names no passage, then keeps the window and traces it', async () => {
    server = await startOpenAITestServer(() => ({ reply: 'I would rather not.' }));
    const store = new MemoryCallStore();
    const { docs, list } = numbered(3);
    const chat = { client: new OpenAIChatClient({ baseURL: server.baseURL }), model: 'm' };
    const trace: TraceEntry[] = [];
    const out = await new RankGptReranker(chat.model).rerank(
      'q',
      list,
      contextOf(docs, store, trace),
      't9',
    );
    // Three attempts, the re-asks made distinct by their seed.
    expect(server.requests.map((r) => r.body.seed)).toEqual([undefined, 2, 3]);
    expect(out.map((d) => d.docno)).toEqual(['c01', 'c02', 'c03']);
    expect(trace).toEqual([
      {
        topic: 't9',
        method: 'rankgpt',
        step: 'unusable-window',
        prompt: 'rankgpt',
        text: '1-3: kept in its order (rankgpt: unusable answer after 3 attempts: the answer names no passage of the window)',
      },
    ]);
  });
});

describe('CrossEncoderReranker', () => {
  it('scores title and text in batches, merges by score, and reruns for free', async () => {
    const scores: Record<string, number> = { 'alpha beta': 0.2, beta: 0.7, gamma: 0.9 };
    server = await startOpenAITestServer((body) => ({
      json: {
        results: (body.documents as string[]).map((d, index) => ({
          index,
          relevance_score: scores[d],
        })),
      },
    }));
    const store = new MemoryCallStore();
    const reranker = new CrossEncoderReranker({ baseURL: server.baseURL }, 'minilm', 2);
    expect(reranker.name).toBe('cross-encoder:minilm');
    const list = DOCS.map((d, i) => ({ docno: d.id, score: 3 - i }));
    const out = await reranker.rerank('q', list, contextOf(DOCS, store, []));
    expect(server.requests.map((r) => [r.path, r.body])).toEqual([
      ['/v1/rerank', { model: 'minilm', query: 'q', documents: ['alpha beta', 'beta'] }],
      ['/v1/rerank', { model: 'minilm', query: 'q', documents: ['gamma'] }],
    ]);
    expect(out).toEqual([
      { docno: 'd3', score: 0.9 },
      { docno: 'd2', score: 0.7 },
      { docno: 'd1', score: 0.2 },
    ]);
    await reranker.rerank('q', list, contextOf(DOCS, store, []));
    expect(server.requests).toHaveLength(2);
  });
});

describe('the rerank method', () => {
  it('reranks BM25 top --rerank-depth and keeps the rest below', async () => {
    // d1 "alpha beta" is scored above d2 "beta" by the cross-encoder.
    const scores: Record<string, number> = { 'alpha beta': 5, beta: 1, gamma: 9 };
    server = await startOpenAITestServer((body) => ({
      json: {
        results: (body.documents as string[]).map((d, index) => ({
          index,
          relevance_score: scores[d],
        })),
      },
    }));
    const store = new MemoryCallStore();
    const r = resources(server, store);
    delete r.chat;
    r.reranker = new CrossEncoderReranker({ baseURL: server.baseURL }, 'minilm');
    // BM25 of "alpha beta gamma" (idf alpha = gamma = ln(8/3) = 0.981, beta = ln 1.6 = 0.470;
    // tf parts 0.913 at dl 2 and 1.050 at dl 1): d1 = 1.451·0.913 = 1.325,
    // d3 = 0.981·1.050 = 1.030, d2 = 0.470·1.050 = 0.494.
    const topics = [{ id: 't', text: 'alpha beta gamma' }];
    const run = await retrieveWithModels(topics, r, {
      method: 'rerank',
      settings: { reranker: 'cross-encoder', rerankDepth: 2 },
      k: 10,
    });
    expect(server.requests[0]!.body.documents).toEqual(['alpha beta', 'gamma']);
    // Head d3 (9), d1 (5); the tail d2 below the lowest head score.
    expect(run.run.topics.get('t')).toEqual([
      { docno: 'd3', rank: 1, score: 9 },
      { docno: 'd1', rank: 2, score: 5 },
      { docno: 'd2', rank: 3, score: 4 },
    ]);
    expect(run.parameters).toMatchObject({
      method: 'rerank',
      reranker: 'cross-encoder:minilm',
      'rerank.rerank-depth': 2,
      'rerank.reranker': 'cross-encoder',
    });
    expect(run.parameters.model).toBeUndefined();
    expect(run.parameters['rerank.rankgpt-window']).toBeUndefined();
  });

  it('with RankGPT records its settings and the chat model', async () => {
    server = await startOpenAITestServer(() => ({ reply: '[2] > [1]' }));
    const store = new MemoryCallStore();
    const r = resources(server, store);
    r.reranker = new RankGptReranker(r.chat!.model, { window: 4, step: 2 });
    const run = await retrieveWithModels([{ id: 't', text: 'beta' }], r, {
      method: 'rerank',
      settings: { reranker: 'rankgpt', rankgptWindow: 4, rankgptStep: 2 },
      k: 10,
    });
    // BM25 "beta": d2 (dl 1) above d1 (dl 2); one window of two, swapped.
    expect(run.run.topics.get('t')!.map((e) => e.docno)).toEqual(['d1', 'd2']);
    expect(run.parameters).toMatchObject({
      model: 'm',
      reranker: 'rankgpt:m',
      'rerank.rankgpt-window': 4,
      'rerank.rankgpt-step': 2,
      'rerank.rankgpt-words': 300,
      'rerank.rerank-depth': 100,
    });
    expect(run.trace.map((t) => [t.topic, t.step])).toEqual([['t', 'permutation']]);
  });
});
