import { MemoryCallStore } from '@assay/llm';
import { buildIndex, DEFAULT_ANALYZER } from '@assay/retrieval';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '@assay/test-support/openai-test-server';
import {
  CrossEncoderReranker,
  estimateModelRun,
  grConversation,
  retrieveWithModels,
  type MethodTopic,
  type ModelRetrieveOptions,
  type Reranker,
  type ScoredDoc,
} from '../src/index.js';
import { PROMPTS, resources, startDouble, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * Five two-word documents: every document has the same length and each word occurs once,
 * so BM25 gives the documents matching one query word equal scores (ties: docno
 * descending), and "beta delta" (each word in two documents, same idf) scores d1..d4 alike.
 */
const GR_DOCS = [
  { id: 'd1', text: 'alpha beta' },
  { id: 'd2', text: 'beta gamma' },
  { id: 'd3', text: 'gamma delta' },
  { id: 'd4', text: 'delta alpha' },
  { id: 'd5', text: 'omega omega' },
];

const TOPIC: MethodTopic = {
  id: 't1',
  text: 'Which of them suit me?',
  previousTurns: [
    { role: 'user', text: 'Where can I eat tonight?' },
    { role: 'assistant', text: 'There are many restaurants nearby.' },
  ],
  userBackground: ['I live in Amsterdam.', 'I am vegetarian.'],
};

const CONVERSATION =
  'Background knowledge about the user:\n1. I live in Amsterdam.\n2. I am vegetarian.\n\n' +
  'Conversation so far:\nuser: Where can I eat tonight?\nsystem: There are many restaurants nearby.\n\n' +
  'User question: Which of them suit me?';

const HEAD =
  'Below is what is known about a user, the conversation the user had with a system so far,\n';

/** The user message of each prompt for a conversation, as the prompt files word it. */
const rewriteMessage = (conversation: string) =>
  HEAD +
  "and the user's last question. Rewrite that last question as one self-contained query:\n" +
  'replace every reference to earlier turns (pronouns, "it", "the second one", left-out\n' +
  'words) with what it refers to, and keep the facts about the user the question depends on.\n\n' +
  `${conversation}\n\nSelf-contained query:`;
const answerMessage = (conversation: string) =>
  HEAD +
  "and the user's last question. Answer that last question as well as you can from your own\n" +
  'knowledge, taking the conversation and what is known about the user into account. Give\n' +
  'the concrete facts, names and figures a good answer needs.\n\n' +
  `${conversation}\n\nAnswer:`;
const queriesMessage = (conversation: string) =>
  HEAD +
  "and the user's last question. Suppose you had to find the answer to that last question\n" +
  'with a web search engine. Write the search queries you would type, each one complete on\n' +
  'its own (no reference to the conversation), and no more than five of them.\n\n' +
  `${conversation}\n\nAnswer with {"queries": ["first query", "second query", ...]}.`;
const answerQueriesMessage = (conversation: string, answer: string) =>
  HEAD +
  "the user's last question, and the answer the system gave to it. Write the search queries\n" +
  'that would retrieve passages containing the facts of that answer, so it can be checked\n' +
  'and grounded: each query complete on its own (no reference to the conversation), each\n' +
  'covering a different part of the answer, different from one another, and no more than\n' +
  `five of them.\n\n${conversation}\n\nSystem answer: ${answer}\n\n` +
  'Answer with {"queries": ["first query", "second query", ...]}.';

const ANSWER = 'omega alpha';

/** Scripted answers by prompt: rewrite, answer, QD queries, AQD queries. */
function grScript(
  answers: {
    rewrite?: string;
    queries?: Behaviour | ((n: number) => Behaviour);
    answerQueries?: Behaviour;
  } = {},
) {
  let queryCalls = 0;
  return (user: string): Behaviour => {
    if (user.endsWith('Self-contained query:')) return { reply: answers.rewrite ?? 'beta delta' };
    if (user.endsWith('Answer:')) return { reply: ANSWER };
    if (user.includes('System answer:'))
      return answers.answerQueries ?? { reply: JSON.stringify({ queries: ['alpha', 'gamma'] }) };
    if (user.includes('Suppose you had to find')) {
      const q = answers.queries;
      if (typeof q === 'function') return q(++queryCalls);
      return q ?? { reply: JSON.stringify({ queries: ['alpha', 'gamma', 'beta delta'] }) };
    }
    return { status: 400, message: `unexpected prompt: ${user.slice(0, 60)}` };
  };
}

/**
 * A scripted TEST DOUBLE reranker: orders the candidates by a fixed preference per query
 * (candidates it has no preference for follow in their order) and records every call.
 */
class RecordingReranker implements Reranker {
  readonly name = 'rerank:test-double';
  readonly calls: Array<{ query: string; candidates: string[] }> = [];
  constructor(private readonly preferences: Record<string, string[]>) {}
  rerank(query: string, candidates: readonly ScoredDoc[]): Promise<ScoredDoc[]> {
    this.calls.push({ query, candidates: candidates.map((d) => d.docno) });
    const preferred = this.preferences[query] ?? [];
    const rank = (docno: string) => {
      const i = preferred.indexOf(docno);
      return i === -1 ? preferred.length : i;
    };
    const order = candidates
      .map((d, i) => ({ docno: d.docno, i }))
      .sort((a, b) => rank(a.docno) - rank(b.docno) || a.i - b.i);
    return Promise.resolve(order.map((d, i) => ({ docno: d.docno, score: 100 - i })));
  }
}

const PREFERENCES: Record<string, string[]> = {
  alpha: ['d4', 'd1'],
  gamma: ['d3', 'd2'],
  'beta delta': ['d1', 'd3', 'd2', 'd4'],
  [ANSWER]: ['d1', 'd2', 'd3', 'd4', 'd5'],
};

async function run(
  method: ModelRetrieveOptions['method'],
  options: {
    store?: MemoryCallStore;
    reranker?: Reranker;
    topics?: MethodTopic[];
    settings?: Record<string, unknown>;
  } = {},
) {
  const r = resources(server!, options.store ?? new MemoryCallStore());
  r.index = buildIndex(GR_DOCS, DEFAULT_ANALYZER);
  r.documents = GR_DOCS;
  if (options.reranker) r.reranker = options.reranker;
  return retrieveWithModels(options.topics ?? [TOPIC], r, {
    method,
    k: 10,
    // The recording reranker stands in for the one the settings name.
    settings: {
      ...(options.reranker ? { reranker: 'cross-encoder' } : {}),
      ...options.settings,
    },
  });
}

const ranking = (result: Awaited<ReturnType<typeof run>>, topic = 't1') =>
  result.run.topics.get(topic)?.map((e) => e.docno);

describe('generate-then-retrieve: the conversation the prompts show', () => {
  it('numbers the background, labels the turns user/system, ends with the question', () => {
    expect(grConversation(TOPIC)).toBe(CONVERSATION);
  });

  it('is just the question for a topic without context', () => {
    expect(grConversation({ id: 'x', text: ' beta ' })).toBe('User question: beta');
    expect(grConversation({ id: 'x', text: 'beta', previousTurns: [], userBackground: [] })).toBe(
      'User question: beta',
    );
  });
});

describe('per-step model settings', () => {
  it("sends a step's own model, temperature and top_p, and the others the run's", async () => {
    server = await startDouble(grScript());
    const r = resources(server, new MemoryCallStore());
    r.index = buildIndex(GR_DOCS, DEFAULT_ANALYZER);
    r.documents = GR_DOCS;
    r.steps = {
      '*': { temperature: 0.75, topP: 0.9 },
      'gr-answer-queries': { model: 'small', temperature: 0 },
    };
    const result = await retrieveWithModels([TOPIC], r, { method: 'gr-aqd', k: 10 });
    const sent = server.requests.map((q) => ({
      model: q.body.model,
      temperature: q.body.temperature,
      top_p: q.body.top_p,
    }));
    // gr-answer: the run's model with every step's sampling; gr-answer-queries: its own
    // model and temperature, every step's top_p.
    expect(sent).toEqual([
      { model: 'm', temperature: 0.75, top_p: 0.9 },
      { model: 'small', temperature: 0, top_p: 0.9 },
    ]);
    expect(result.parameters).toMatchObject({
      'steps.temperature': 0.75,
      'steps.top-p': 0.9,
      'step.gr-answer-queries.model': 'small',
      'step.gr-answer-queries.temperature': 0,
    });
  });
});

describe('gr-qr', () => {
  it('sends the rewrite prompt, searches the rewrite and reranks against it', async () => {
    server = await startDouble(grScript());
    const reranker = new RecordingReranker(PREFERENCES);
    const result = await run('gr-qr', { reranker });
    const users = server.requests.map((r) => userMessage(r.body));
    expect(users).toEqual([rewriteMessage(CONVERSATION)]);
    // BM25 of "beta delta": d1..d4 tie, so docno descending; the reranker sees all four.
    expect(reranker.calls).toEqual([{ query: 'beta delta', candidates: ['d4', 'd3', 'd2', 'd1'] }]);
    expect(ranking(result)).toEqual(['d1', 'd3', 'd2', 'd4']);
    expect(result.trace).toEqual([
      {
        topic: 't1',
        method: 'gr-qr',
        step: 'rewrite',
        prompt: 'gr-rewrite',
        text: 'beta delta',
        cached: false,
      },
    ]);
    expect(result.parameters).toMatchObject({
      method: 'gr-qr',
      reranker: 'rerank:test-double',
      'gr.first-stage-k': 1000,
      'gr.rerank-depth': 1000,
      'gr.rerank-query': 'rewrite',
    });
  });

  it('reranks only the top rerank-depth; the rest keep the BM25 order below them', async () => {
    server = await startDouble(grScript());
    const reranker = new RecordingReranker({ 'beta delta': ['d3', 'd4'] });
    const result = await run('gr-qr', { reranker, settings: { rerankDepth: 2 } });
    expect(reranker.calls).toEqual([{ query: 'beta delta', candidates: ['d4', 'd3'] }]);
    expect(result.run.topics.get('t1')!.map((e) => [e.docno, e.score])).toEqual([
      ['d3', 4],
      ['d4', 3],
      ['d2', 2],
      ['d1', 1],
    ]);
    expect(result.parameters['gr.rerank-depth']).toBe(2);
  });

  it('without a reranker keeps the first stage; --first-stage-k bounds it', async () => {
    server = await startDouble(grScript());
    const result = await run('gr-qr', { settings: { firstStageK: 3 } });
    expect(ranking(result)).toEqual(['d4', 'd3', 'd2']);
    expect(result.parameters).not.toHaveProperty('reranker');
  });
});

describe('gr-ad', () => {
  it('searches with the answer and reranks against the answer', async () => {
    server = await startDouble(grScript());
    const reranker = new RecordingReranker(PREFERENCES);
    const result = await run('gr-ad', { reranker });
    expect(server.requests.map((r) => userMessage(r.body))).toEqual([answerMessage(CONVERSATION)]);
    // BM25 of "omega alpha": d5 (omega twice) scores above d1 and d4 (alpha once each, a
    // tie broken by docno descending): same length, tf 2 > tf 1, and omega's idf
    // (one document) is higher than alpha's (two).
    expect(reranker.calls).toEqual([{ query: ANSWER, candidates: ['d5', 'd4', 'd1'] }]);
    expect(ranking(result)).toEqual(['d1', 'd4', 'd5']);
    expect(result.trace).toEqual([
      expect.objectContaining({ step: 'answer', prompt: 'gr-answer', text: ANSWER }),
    ]);
    expect(result.parameters['gr.rerank-query']).toBe('answer');
  });
});

describe('gr-qd', () => {
  it('reranks each query against itself and interleaves the lists round robin', async () => {
    server = await startDouble(grScript());
    const reranker = new RecordingReranker(PREFERENCES);
    const result = await run('gr-qd', { reranker });
    const users = server.requests.map((r) => userMessage(r.body));
    expect(users).toEqual([queriesMessage(CONVERSATION)]);
    expect(server.requests[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'gr_queries', strict: true },
    });
    // Lists (by the scripted reranker): alpha [d4 d1], gamma [d3 d2],
    // beta delta [d1 d3 d2 d4] (its BM25 list holds d1..d4).
    expect(reranker.calls.map((c) => c.query).sort()).toEqual(['alpha', 'beta delta', 'gamma']);
    expect(reranker.calls.find((c) => c.query === 'alpha')!.candidates).toEqual(['d4', 'd1']);
    // Round 1: d4, d3, d1. Round 2: alpha's d1 is placed, so it is done; gamma gives d2;
    // beta delta's d3, d2 and d4 are placed.
    expect(ranking(result)).toEqual(['d4', 'd3', 'd1', 'd2']);
    expect(result.run.topics.get('t1')!.map((e) => e.score)).toEqual([4, 3, 2, 1]);
    expect(result.trace.map((t) => [t.step, t.text])).toEqual([
      ['generated-query', 'alpha'],
      ['generated-query', 'gamma'],
      ['generated-query', 'beta delta'],
    ]);
    expect(result.parameters).toMatchObject({
      'gr.max-queries': 5,
      'gr.merge': 'round-robin interleaving',
      'gr.rerank-query': 'each generated query',
    });
  });

  it('without a reranker interleaves the BM25 lists', async () => {
    server = await startDouble(grScript());
    const result = await run('gr-qd');
    // alpha [d4 d1], gamma [d3 d2], beta delta [d4 d3 d2 d1] (ties: docno descending).
    // Round 1: d4, d3, then beta delta skips d4 and d3 and gives d2. Round 2: d1.
    expect(ranking(result)).toEqual(['d4', 'd3', 'd2', 'd1']);
  });

  it('keeps the first five queries and traces the ones dropped', async () => {
    const seven = ['alpha', 'gamma', 'beta', 'delta', 'omega', 'beta gamma', 'alpha delta'];
    server = await startDouble(
      grScript({ queries: { reply: JSON.stringify({ queries: seven }) } }),
    );
    const reranker = new RecordingReranker({});
    const result = await run('gr-qd', { reranker });
    expect(reranker.calls.map((c) => c.query).sort()).toEqual(
      ['alpha', 'beta', 'delta', 'gamma', 'omega'].sort(),
    );
    expect(result.trace.filter((t) => t.step === 'generated-query').map((t) => t.text)).toEqual(
      seven.slice(0, 5),
    );
    expect(result.trace.filter((t) => t.step === 'dropped-query').map((t) => t.text)).toEqual([
      'beta gamma',
      'alpha delta',
    ]);
    // alpha [d4 d1], gamma [d3 d2], beta [d2 d1], delta [d4 d3], omega [d5]:
    // round 1 d4, d3, d2, (delta: d4 d3 placed) —, d5; round 2 d1.
    expect(ranking(result)).toEqual(['d4', 'd3', 'd2', 'd5', 'd1']);
  });

  it('asks again when the answer holds no query, and when it is not JSON', async () => {
    server = await startDouble(
      grScript({
        queries: (n) =>
          n === 1
            ? { reply: JSON.stringify({ queries: ['  ', ''] }) }
            : n === 2
              ? { reply: 'alpha\ngamma' }
              : { reply: JSON.stringify({ queries: ['gamma'] }) },
      }),
    );
    const result = await run('gr-qd');
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => r.body.seed)).toEqual([undefined, 2, 3]);
    expect(ranking(result)).toEqual(['d3', 'd2']);
    expect(result.failures).toEqual([]);
  });

  it('searches the raw request after three unusable answers (traced); other topics go on', async () => {
    server = await startDouble((user) =>
      user.includes('User question: gamma broken')
        ? { reply: JSON.stringify({ queries: [] }) }
        : { reply: JSON.stringify({ queries: ['alpha'] }) },
    );
    const result = await run('gr-qd', {
      topics: [
        { id: 'bad', text: 'gamma broken' },
        { id: 'ok', text: 'fine' },
      ],
    });
    expect(result.failures).toEqual([]);
    expect(result.missing).toEqual([]);
    // The raw request "gamma broken": gamma is in d2 and d3 (ties: docno descending).
    expect(ranking(result, 'bad')).toEqual(['d3', 'd2']);
    expect(ranking(result, 'ok')).toEqual(['d4', 'd1']);
    expect(server.requests).toHaveLength(4);
    expect(result.trace.filter((t) => t.topic === 'bad')).toEqual([
      {
        topic: 'bad',
        method: 'gr-qd',
        step: 'query-fallback',
        prompt: 'gr-queries',
        text: 'gamma broken',
        reason: 'gr-queries: unusable answer after 3 attempts: the answer holds no query',
      },
    ]);
  });

  it('drops a generated query without a term of the collection; none left: the raw request', async () => {
    server = await startDouble((user) =>
      user.includes('User question: gamma')
        ? { reply: JSON.stringify({ queries: ['{"oops":', 'alpha'] }) }
        : { reply: JSON.stringify({ queries: ['{"oops":'] }) },
    );
    const result = await run('gr-qd', {
      topics: [
        { id: 'one', text: 'gamma' },
        { id: 'none', text: 'delta' },
      ],
    });
    // "one": only "alpha" is searched (d4, d1); "none": its only query is unusable, so the
    // raw request "delta" is (d4, d3).
    expect(ranking(result, 'one')).toEqual(['d4', 'd1']);
    expect(ranking(result, 'none')).toEqual(['d4', 'd3']);
    const steps = (topic: string) =>
      result.trace.filter((t) => t.topic === topic).map((t) => [t.step, t.text]);
    expect(steps('one')).toEqual([
      ['generated-query', '{"oops":'],
      ['generated-query', 'alpha'],
      ['dropped-query', '{"oops":'],
    ]);
    expect(steps('none')).toEqual([
      ['generated-query', '{"oops":'],
      ['dropped-query', '{"oops":'],
      ['query-fallback', 'delta'],
    ]);
  });

  it('works for a topic without context: the conversation is the question', async () => {
    server = await startDouble(grScript());
    await run('gr-qd', { topics: [{ id: 'plain', text: 'beta' }] });
    expect(userMessage(server.requests[0]!.body)).toBe(queriesMessage('User question: beta'));
  });
});

describe('gr-aqd and gr-aqd-a', () => {
  it('gr-aqd: answer, then queries from the answer, each reranked against itself, interleaved', async () => {
    server = await startDouble(grScript());
    const reranker = new RecordingReranker(PREFERENCES);
    const result = await run('gr-aqd', { reranker });
    const users = server.requests.map((r) => userMessage(r.body));
    expect(users).toEqual([
      answerMessage(CONVERSATION),
      answerQueriesMessage(CONVERSATION, ANSWER),
    ]);
    expect(reranker.calls.map((c) => c.query).sort()).toEqual(['alpha', 'gamma']);
    // alpha [d4 d1], gamma [d3 d2]: d4, d3, d1, d2.
    expect(ranking(result)).toEqual(['d4', 'd3', 'd1', 'd2']);
    expect(result.trace.map((t) => [t.step, t.prompt, t.text])).toEqual([
      ['answer', 'gr-answer', ANSWER],
      ['generated-query', 'gr-answer-queries', 'alpha'],
      ['generated-query', 'gr-answer-queries', 'gamma'],
    ]);
  });

  it('gr-aqd-a: reranks the interleaved list against the answer', async () => {
    server = await startDouble(grScript());
    const reranker = new RecordingReranker(PREFERENCES);
    const result = await run('gr-aqd-a', { reranker });
    expect(server.requests).toHaveLength(2);
    expect(reranker.calls).toHaveLength(3);
    // The last call gets gr-aqd's interleaved list, against the answer.
    expect(reranker.calls[2]).toEqual({ query: ANSWER, candidates: ['d4', 'd3', 'd1', 'd2'] });
    expect(ranking(result)).toEqual(['d1', 'd2', 'd3', 'd4']);
    expect(result.parameters['gr.rerank-query']).toBe('each generated query, then the answer');
  });

  it('gr-aqd-a reranks only the interleaved top rerank-depth', async () => {
    server = await startDouble(grScript());
    const reranker = new RecordingReranker(PREFERENCES);
    const result = await run('gr-aqd-a', { reranker, settings: { rerankDepth: 1 } });
    // Each query list: only its first BM25 document is reranked (alpha: d4 of d4 d1;
    // gamma: d3 of d3 d2), so the lists stay alpha [d4 d1], gamma [d3 d2]; interleaved
    // d4 d3 d1 d2; the answer's rerank sees d4 alone.
    expect(reranker.calls.map((c) => c.candidates)).toEqual([['d4'], ['d3'], ['d4']]);
    expect(ranking(result)).toEqual(['d4', 'd3', 'd1', 'd2']);
  });

  it('a rerun with the same store sends zero requests and gives the same run', async () => {
    server = await startDouble(grScript());
    const store = new MemoryCallStore();
    const first = await run('gr-aqd-a', { store, reranker: new RecordingReranker(PREFERENCES) });
    expect(server.requests).toHaveLength(2);
    const second = await run('gr-aqd-a', { store, reranker: new RecordingReranker(PREFERENCES) });
    expect(server.requests).toHaveLength(2);
    expect(second.run).toEqual(first.run);
    expect(second.trace.every((t) => t.cached === true)).toBe(true);
  });

  it('searches the raw request when the queries from the answer stay malformed', async () => {
    server = await startDouble(grScript({ answerQueries: { reply: '{"queries": "alpha"}' } }));
    const result = await run('gr-aqd', { topics: [{ ...TOPIC, text: 'Which of them suit me, alpha?' }] });
    expect(result.failures).toEqual([]);
    expect(result.trace.find((t) => t.step === 'query-fallback')).toEqual({
      topic: 't1',
      method: 'gr-aqd',
      step: 'query-fallback',
      prompt: 'gr-answer-queries',
      text: 'Which of them suit me, alpha?',
      reason:
        'gr-answer-queries: unusable answer after 3 attempts: answer does not match the schema: $.queries must be a list',
    });
    // The raw request's one collection term, alpha: d4 and d1.
    expect(ranking(result)).toEqual(['d4', 'd1']);
    // One answer call and three attempts at the queries.
    expect(server.requests).toHaveLength(4);
  });

  it("gr-aqd-a: an answer without a term of the collection is not the rerank query: the raw request is (traced)", async () => {
    const raw = 'Which of them suit me, alpha?';
    const conversation = CONVERSATION.replace('Which of them suit me?', raw);
    // The double answers the answer prompt with a cut-off JSON text, the queries prompt
    // with two queries, and scores every document 0.5 at /v1/rerank (ties keep the order).
    server = await startOpenAITestServer((body, _n, path) => {
      if (path.endsWith('/rerank'))
        return {
          json: {
            results: (body.documents as string[]).map((_d, index) => ({
              index,
              relevance_score: 0.5,
            })),
          },
        };
      const user = userMessage(body);
      if (user.endsWith('Answer:')) return { reply: '{"oops":' };
      if (user.includes('System answer:'))
        return { reply: JSON.stringify({ queries: ['alpha', 'gamma'] }) };
      return { status: 400, message: `unexpected prompt: ${user.slice(0, 60)}` };
    });
    const reranker = new CrossEncoderReranker({ baseURL: server.baseURL }, 'minilm');
    const result = await run('gr-aqd-a', { reranker, topics: [{ ...TOPIC, text: raw }] });
    const chats = server.requests.filter((r) => r.path.endsWith('/chat/completions'));
    // The queries are asked from the raw request, which stands for the unusable answer.
    expect(chats.map((r) => userMessage(r.body))).toEqual([
      answerMessage(conversation),
      answerQueriesMessage(conversation, raw),
    ]);
    const reranks = server.requests.filter((r) => r.path.endsWith('/rerank'));
    // One request per query (alpha: d4 d1; gamma: d3 d2), then the interleaved list
    // (d4 d3 d1 d2) against the raw request, not against '{"oops":'.
    expect(reranks.map((r) => r.body.query).sort()).toEqual([raw, 'alpha', 'gamma']);
    expect(reranks.at(-1)!.body).toEqual({
      model: 'minilm',
      query: raw,
      documents: ['delta alpha', 'gamma delta', 'alpha beta', 'beta gamma'],
    });
    expect(result.failures).toEqual([]);
    expect(ranking(result)).toEqual(['d4', 'd3', 'd1', 'd2']);
    expect(result.trace.map((t) => [t.step, t.text])).toEqual([
      ['answer', '{"oops":'],
      ['query-fallback', raw],
      ['generated-query', 'alpha'],
      ['generated-query', 'gamma'],
    ]);
    expect(result.trace[1]).toEqual({
      topic: 't1',
      method: 'gr-aqd-a',
      step: 'query-fallback',
      prompt: 'gr-answer',
      text: raw,
      reason:
        'the answer "{\\"oops\\":" has no term of the collection: the raw request stands for the answer',
    });
  });

  it('gr-aqd: an answer that stays blank is replaced by the raw request once, in the trace and the queries prompt', async () => {
    const raw = 'Which of them suit me, alpha?';
    const conversation = CONVERSATION.replace('Which of them suit me?', raw);
    server = await startDouble((user) =>
      user.endsWith('Answer:')
        ? { reply: '  ' }
        : { reply: JSON.stringify({ queries: ['alpha'] }) },
    );
    const result = await run('gr-aqd', { topics: [{ ...TOPIC, text: raw }] });
    // Three attempts at the answer, then the queries asked from the raw request.
    expect(server.requests.map((r) => userMessage(r.body))).toEqual([
      answerMessage(conversation),
      answerMessage(conversation),
      answerMessage(conversation),
      answerQueriesMessage(conversation, raw),
    ]);
    expect(result.trace).toEqual([
      {
        topic: 't1',
        method: 'gr-aqd',
        step: 'query-fallback',
        prompt: 'gr-answer',
        text: raw,
        reason:
          'gr-answer: unusable answer after 3 attempts: empty answer: the raw request stands for the answer',
      },
      {
        topic: 't1',
        method: 'gr-aqd',
        step: 'generated-query',
        prompt: 'gr-answer-queries',
        text: 'alpha',
        cached: false,
      },
    ]);
    expect(ranking(result)).toEqual(['d4', 'd1']);
  });

  it('gr-qr: a rewrite that stays blank searches the raw request, traced once', async () => {
    server = await startDouble(grScript({ rewrite: '' }));
    const result = await run('gr-qr', { topics: [{ id: 't1', text: 'gamma' }] });
    expect(server.requests).toHaveLength(3);
    expect(result.trace).toEqual([
      {
        topic: 't1',
        method: 'gr-qr',
        step: 'query-fallback',
        prompt: 'gr-rewrite',
        text: 'gamma',
        reason: 'gr-rewrite: unusable answer after 3 attempts: empty answer: searched the raw request',
      },
    ]);
    expect(ranking(result)).toEqual(['d3', 'd2']);
  });

  it('gr-aqd-a without a reranker is refused, naming the reranker setting', async () => {
    server = await startDouble(grScript());
    await expect(run('gr-aqd-a')).rejects.toThrow(
      'gr-aqd-a reranks the interleaved list against the answer: give reranker (cross-encoder or rankgpt); without a reranker it would be gr-aqd',
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('generate-then-retrieve: dry-run estimate', () => {
  it('counts the calls of each variant with the max_tokens of their prompts', () => {
    const estimate = (method: ModelRetrieveOptions['method']) =>
      estimateModelRun([TOPIC, { id: 't2', text: 'beta' }], PROMPTS, {
        method,
        ...(method === 'gr-aqd-a' ? { settings: { reranker: 'cross-encoder' } } : {}),
      });
    // Per topic: qr one rewrite (max 128); ad one answer (512); qd one queries call (300);
    // aqd and aqd-a an answer and a queries call (512 + 300).
    expect(estimate('gr-qr')).toMatchObject({ chatCalls: 2, completionTokens: 256 });
    expect(estimate('gr-ad')).toMatchObject({ chatCalls: 2, completionTokens: 1024 });
    expect(estimate('gr-qd')).toMatchObject({ chatCalls: 2, completionTokens: 600 });
    expect(estimate('gr-aqd')).toMatchObject({ chatCalls: 4, completionTokens: 1624 });
    expect(estimate('gr-aqd-a')).toMatchObject({ chatCalls: 4, completionTokens: 1624 });
    // The queries call of gr-aqd sees the conversation (as gr-qd's does) plus the answer,
    // counted at gr-answer's max_tokens (512); prompts at four characters a token.
    const t = (text: string) => Math.ceil(text.length / 4);
    const own = (id: string) => t(PROMPTS.get(id)!.system) + t(PROMPTS.get(id)!.prompt);
    expect(
      estimate('gr-aqd').promptTokens -
        estimate('gr-ad').promptTokens -
        estimate('gr-qd').promptTokens,
    ).toBe(2 * (own('gr-answer-queries') + 512 - own('gr-queries')));
  });
});
