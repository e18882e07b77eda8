import { MemoryCallStore, OpenAIChatClient } from '@assay/llm';
import { buildIndex, DEFAULT_ANALYZER } from '@assay/retrieval';
import { afterEach, describe, expect, it } from 'vitest';
import type { Behaviour, TestServer } from '@assay/test-support/openai-test-server';
import {
  estimateModelRun,
  requestText,
  retrieveWithModels,
  type ModelResources,
  type ModelRetrieveOptions,
} from '../src/index.js';
import { PROMPTS, startDouble, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * One-term documents, so BM25 orders are worked out by hand: a term's documents rank by
 * length (the shorter first), and a two-term query ranks the document with both first.
 * beta → d2, d1; alpha beta → d1, d2; gamma → d3; delta → d4, d5; zeta → d6.
 */
const SEARCH_DOCS = [
  { id: 'd1', text: 'alpha beta' },
  { id: 'd2', text: 'beta' },
  { id: 'd3', text: 'gamma' },
  { id: 'd4', text: 'delta' },
  { id: 'd5', text: 'delta epsilon' },
  { id: 'd6', text: 'zeta' },
];

function searchResources(server: TestServer, store: MemoryCallStore): ModelResources {
  return {
    index: buildIndex(SEARCH_DOCS, DEFAULT_ANALYZER),
    prompts: PROMPTS,
    deps: { store, sleep: async () => {}, random: () => 0 },
    chat: { client: new OpenAIChatClient({ baseURL: server.baseURL }), model: 'm' },
    documents: SEARCH_DOCS,
  };
}

const TODAY = '2026-01-15';

function run(options: { method: ModelRetrieveOptions['method'] } & Record<string, unknown>) {
  const { method, ...settings } = options;
  return (store = new MemoryCallStore(), text = 'tell me about beta') =>
    retrieveWithModels([{ id: 't1', text }], searchResources(server!, store), {
      method,
      k: 100,
      settings: { ...(method === 'srsa' ? { today: TODAY } : {}), ...settings },
    });
}

/** Which prompt a user message is, by a sentence only that prompt has. */
function promptOf(user: string): string {
  if (user.startsWith('Today is ')) return 'router';
  if (user.includes('Write the one search-engine query')) return 'rewrite';
  if (user.includes('Write the sub-questions')) return 'subquestions';
  if (user.includes('The agent searched for:')) return 'summarise';
  if (user.includes('The search plan:')) return 'sufficiency';
  if (user.includes('Reference material')) return 'answer';
  if (user.includes('Your steps so far')) return 'react';
  if (user.includes('Restate this request')) return 'rephrase';
  return 'unknown';
}

const json = (value: unknown): Behaviour => ({ reply: JSON.stringify(value) });

/** Scripted answers by prompt; each prompt's answers are taken in turn (the last repeats). */
function script(answers: Record<string, Behaviour[]>) {
  const used: Record<string, number> = {};
  return (user: string): Behaviour => {
    const id = promptOf(user);
    const list = answers[id];
    if (!list) return { status: 400, message: `unexpected prompt ${id}: ${user.slice(0, 40)}` };
    const n = used[id] ?? 0;
    used[id] = n + 1;
    return list[Math.min(n, list.length - 1)]!;
  };
}

const users = () => server!.requests.map((r) => userMessage(r.body));
const steps = (trace: Array<{ step: string; text: string }>) =>
  trace.map((t) => `${t.step}: ${t.text}`);

const ANSWER = { answer: 'Beta is the second letter [d2].', references: ['d2', 'd9', 'd2'] };

describe('srsa', () => {
  it("direct: the router is told today; its rephrased query is searched once, no other call; the answer from its results", async () => {
    server = await startDouble(
      script({
        router: [
          json({ strategy: 'direct', search_query: 'beta', suggestions: ['look up beta', ' '] }),
        ],
        answer: [json(ANSWER)],
      }),
    );
    const result = await run({ method: 'srsa' })();
    expect(users()).toEqual([
      "Today is 2026-01-15.\n\nThe user's request:\ntell me about beta\n\n" +
        'Choose the search strategy that fits the request:\n\n' +
        '- direct: one well-phrased search finds what is needed to answer;\n' +
        '- parallel: the request holds two or more separate concepts or tasks that can each be\n' +
        '  searched independently;\n' +
        '- planning: the request needs a sequence of searches, where what to search next depends on\n' +
        '  what the previous search found.\n\n' +
        'Rephrase the request as one concise search-engine query (`search_query`): the key terms\n' +
        'of what the user needs, without the conversational words a search engine does not need.\n' +
        'Then give short search suggestions for that strategy, in the order they should be used:\n' +
        'for direct, what the single search should look for; for parallel, the separate things to\n' +
        'look up; for planning, the steps of the search plan. Resolve relative dates (tomorrow,\n' +
        "next week) against today's date.",
      "The user's request:\ntell me about beta\n\n" +
        'Reference material (documents are headed by their id in brackets):\n' +
        '[d2]\nbeta\n\n[d1]\nalpha beta\n\n' +
        'Write a helpful, complete and specific answer to the request, based on the reference\n' +
        'material: cover every part of the request, give concrete facts and actionable advice, and\n' +
        'cite the documents you rely on by their id in brackets, e.g. [d12]. In `references`, list\n' +
        'the ids of the documents the answer uses, in the order it cites them. Do not cite ids that\n' +
        'are not in the reference material.',
    ]);
    expect(server.requests[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'srsa_router', strict: true },
    });
    // beta: d2 (shorter) then d1; scores count down so trec_eval keeps this order.
    expect(result.run.topics.get('t1')).toEqual([
      { docno: 'd2', rank: 1, score: 2 },
      { docno: 'd1', rank: 2, score: 1 },
    ]);
    // d9 was never retrieved: dropped; d2 cited twice is one reference.
    expect(result.answers).toEqual([
      {
        topic: 't1',
        text: 'Beta is the second letter [d2].',
        references: ['d2'],
        route: 'direct',
      },
    ]);
    expect(steps(result.trace)).toEqual([
      'route: direct',
      'rephrased-query: beta',
      'suggestion: look up beta',
      'search: beta',
      'results: d2 d1',
      'final-answer: Beta is the second letter [d2].',
      'dropped-reference: d9',
      'references: d2',
    ]);
    expect(result.parameters).toMatchObject({
      method: 'srsa',
      routes: 't1:direct',
      'srsa.search-k': 5,
      'srsa.max-rounds': 5,
      'srsa.today': TODAY,
    });
    expect(result.routes).toEqual({ direct: 1 });
  });

  it('parallel: one search per sub-question, the results united in first-found order', async () => {
    server = await startDouble(
      script({
        router: [
          json({
            strategy: 'parallel',
            search_query: 'gamma and beta facts',
            suggestions: ['gamma', 'beta'],
          }),
        ],
        subquestions: [json({ sub_questions: ['gamma', ' ', 'alpha beta'] })],
        answer: [json({ answer: 'Both.', references: ['d3', 'd1'] })],
      }),
    );
    const result = await run({ method: 'srsa' })();
    expect(users().map(promptOf)).toEqual(['router', 'subquestions', 'answer']);
    // The sub-questions are written from the rephrased query, not the raw request.
    expect(users()[1]).toContain(
      "The user's request, rephrased for a search engine:\ngamma and beta facts\n\n" +
        'Search suggestions:\n- gamma\n- beta\n\n',
    );
    // gamma → d3; alpha beta → d1, d2.
    expect(users()[2]).toContain('[d3]\ngamma\n\n[d1]\nalpha beta\n\n[d2]\nbeta\n\n');
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d3', 'd1', 'd2']);
    expect(steps(result.trace).slice(0, 10)).toEqual([
      'route: parallel',
      'rephrased-query: gamma and beta facts',
      'suggestion: gamma',
      'suggestion: beta',
      'sub-question: gamma',
      'sub-question: alpha beta',
      'search: gamma',
      'results: d3',
      'search: alpha beta',
      'results: d1 d2',
    ]);
    expect(result.answers[0]!.references).toEqual(['d3', 'd1']);
    expect(result.parameters.routes).toBe('t1:parallel');
  });

  it('parallel: a sub-question without a term of the collection is dropped (traced); none left: the rephrased query', async () => {
    server = await startDouble(
      script({
        router: [json({ strategy: 'parallel', search_query: 'beta', suggestions: ['beta'] })],
        subquestions: [
          json({ sub_questions: ['{"oops":', 'gamma'] }),
          json({ sub_questions: ['{"oops":'] }),
        ],
        answer: [json({ answer: 'Both.', references: [] })],
      }),
    );
    const some = await run({ method: 'srsa' })();
    expect(steps(some.trace).slice(3, 8)).toEqual([
      'sub-question: {"oops":',
      'sub-question: gamma',
      'dropped-query: {"oops":',
      'search: gamma',
      'results: d3',
    ]);
    expect(some.trace[5]).toEqual({
      topic: 't1',
      method: 'srsa',
      step: 'dropped-query',
      prompt: 'srsa-subquestions',
      text: '{"oops":',
      reason: 'no term of the collection',
    });
    expect(some.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d3']);

    // The second answer's only sub-question has no term: the rephrased query is searched.
    const none = await run({ method: 'srsa' })(new MemoryCallStore(), 'more about beta');
    expect(steps(none.trace).slice(3, 8)).toEqual([
      'sub-question: {"oops":',
      'dropped-query: {"oops":',
      'query-fallback: beta',
      'search: beta',
      'results: d2 d1',
    ]);
    expect(none.trace[5]).toEqual({
      topic: 't1',
      method: 'srsa',
      step: 'query-fallback',
      prompt: 'srsa-subquestions',
      text: 'beta',
      reason: 'no sub-question has a term of the collection: searched the rephrased query',
    });
    expect(none.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d2', 'd1']);
  });

  it('planning: summarises and filters later searches, stops when the findings suffice', async () => {
    server = await startDouble(
      script({
        router: [
          json({
            strategy: 'planning',
            search_query: 'delta',
            suggestions: ['find delta', 'then beta'],
          }),
        ],
        sufficiency: [
          json({
            assessment: 'Delta found; beta is next.',
            sufficient: false,
            next_step: 'deeper',
            next_query: 'beta',
          }),
          json({ assessment: 'Enough.', sufficient: true, next_step: 'none', next_query: '' }),
        ],
        summarise: [json({ summary: 'Beta is a letter.', kept: ['d1', 'd7'] })],
        answer: [json({ answer: 'Delta and beta [d4][d1].', references: ['d4', 'd1', 'd2'] })],
      }),
    );
    const store = new MemoryCallStore();
    const result = await run({ method: 'srsa' })(store);
    expect(users().map(promptOf)).toEqual([
      'router',
      'sufficiency',
      'summarise',
      'sufficiency',
      'answer',
    ]);
    const plan = '- find delta\n- then beta';
    // The router's query "delta" → d4 (shorter), d5: the first search is kept whole.
    expect(users()[1]).toContain(
      `The search plan:\n${plan}\n\nWhat the searches found so far:\n[d4]\ndelta\n\n[d5]\ndelta epsilon\n\n` +
        'The latest search:\nQuery: delta\n[d4]\ndelta\n\n[d5]\ndelta epsilon\n\nReason about',
    );
    expect(users()[2]).toContain(
      "The user's request:\ntell me about beta\n\nThe agent searched for: beta\n\n" +
        'Results, each headed by its document id in brackets:\n[d2]\nbeta\n\n[d1]\nalpha beta\n\n',
    );
    const memory =
      '[d4]\ndelta\n\n[d5]\ndelta epsilon\n\nSummary of search 2 (from [d1]):\nBeta is a letter.';
    expect(users()[3]).toContain(
      `What the searches found so far:\n${memory}\n\nThe latest search:\nQuery: beta\nSummary: Beta is a letter.\n\n`,
    );
    expect(users()[4]).toContain(
      `Reference material (documents are headed by their id in brackets):\n${memory}\n\n`,
    );
    expect(steps(result.trace)).toEqual([
      'route: planning',
      'rephrased-query: delta',
      'suggestion: find delta',
      'suggestion: then beta',
      'search: delta',
      'results: d4 d5',
      'sufficiency: not sufficient (deeper): Delta found; beta is next.',
      'next-query: beta',
      'search: beta',
      'results: d2 d1',
      'dropped-reference: d7',
      'summary: Beta is a letter.',
      'kept: d1',
      'filtered-out: d2',
      'sufficiency: sufficient: Enough.',
      'stop: sufficient after round 2',
      'final-answer: Delta and beta [d4][d1].',
      // d2 was filtered out, so it is not in the material the answer may cite.
      'dropped-reference: d2',
      'references: d4 d1',
    ]);
    // The reference documents first (d4, d5, d1), then the filtered-out d2.
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d4', 'd5', 'd1', 'd2']);
    expect(result.parameters.routes).toBe('t1:planning');

    // The same run on the same store sends nothing and gives the same run and trace.
    const sent = server.requests.length;
    const again = await run({ method: 'srsa' })(store);
    expect(server.requests).toHaveLength(sent);
    expect(again.run).toEqual(result.run);
    expect(again.answers).toEqual(result.answers);
    expect(again.trace.map((t) => t.text)).toEqual(result.trace.map((t) => t.text));
    expect(again.trace.find((t) => t.step === 'route')!.cached).toBe(true);
  });

  it('planning: stops after --max-rounds searches when never sufficient', async () => {
    const next = ['gamma', 'zeta', 'alpha', 'beta'];
    let judged = 0;
    server = await startDouble((user) => {
      if (promptOf(user) === 'sufficiency')
        return json({
          assessment: `round ${judged + 1} is not enough`,
          sufficient: false,
          next_step: 'rewrite',
          next_query: next[judged++]!,
        });
      return script({
        router: [json({ strategy: 'planning', search_query: 'delta', suggestions: ['find delta'] })],
        summarise: [json({ summary: 'Something.', kept: [] })],
        answer: [json({ answer: 'What was found.', references: [] })],
      })(user);
    });
    const result = await run({ method: 'srsa' })();
    // router, 4 × (sufficiency after rounds 1-4, summary of rounds 2-5), answer.
    expect(users().map(promptOf)).toEqual([
      'router',
      'sufficiency',
      'summarise',
      'sufficiency',
      'summarise',
      'sufficiency',
      'summarise',
      'sufficiency',
      'summarise',
      'answer',
    ]);
    expect(result.trace.filter((t) => t.step === 'search').map((t) => t.text)).toEqual([
      'delta',
      'gamma',
      'zeta',
      'alpha',
      'beta',
    ]);
    expect(result.trace.find((t) => t.step === 'stop')!.text).toBe('max rounds (5) reached');
    // Nothing kept after round 1: the references are d4, d5; then first-found order.
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual([
      'd4',
      'd5',
      'd3',
      'd6',
      'd1',
      'd2',
    ]);
    expect(result.answers[0]!.references).toEqual([]);

    server.requests.length = 0;
    judged = 0;
    const two = await run({ method: 'srsa', maxRounds: 2 })(new MemoryCallStore(), 'beta again');
    expect(users().map(promptOf)).toEqual(['router', 'sufficiency', 'summarise', 'answer']);
    expect(two.trace.find((t) => t.step === 'stop')!.text).toBe('max rounds (2) reached');
    expect(two.parameters['srsa.max-rounds']).toBe(2);
  });

  it('a router answer that stays malformed routes the topic to direct search with a rewrite (traced)', async () => {
    server = await startDouble((user) =>
      user.includes('broken') && promptOf(user) === 'router'
        ? { reply: 'I would choose planning.' }
        : script({
            router: [json({ strategy: 'direct', search_query: 'beta', suggestions: ['beta'] })],
            rewrite: [{ reply: 'alpha\nignored second line' }],
            answer: [json(ANSWER)],
          })(user),
    );
    const result = await retrieveWithModels(
      [
        { id: 't1', text: 'broken request' },
        { id: 't2', text: 'beta' },
      ],
      searchResources(server, new MemoryCallStore()),
      { method: 'srsa', k: 100, settings: { today: TODAY }, concurrency: 1 },
    );
    const routerAsked = server.requests.filter(
      (r) => promptOf(userMessage(r.body)) === 'router' && userMessage(r.body).includes('broken'),
    );
    expect(routerAsked.map((r) => r.body.seed)).toEqual([undefined, 2, 3]);
    // t1: three router attempts, the fallback's rewrite, the answer; t2: router, answer.
    expect(users().map(promptOf)).toEqual([
      'router',
      'router',
      'router',
      'rewrite',
      'answer',
      'router',
      'answer',
    ]);
    expect(users()[3]).toBe(
      "The user's request:\nbroken request\n\nSearch suggestions:\n(none)\n\n" +
        'Write the one search-engine query that should be sent first: concise, with the key terms\n' +
        'of the request and of the first suggestion, and without the conversational words a\n' +
        'search engine does not need.',
    );
    expect(result.failures).toEqual([]);
    // "alpha" finds d1 only.
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d1']);
    expect(result.routes).toEqual({ 'direct-fallback': 1, direct: 1 });
    expect(result.parameters.routes).toBe('t1:direct-fallback t2:direct');
    expect(result.answers.map((a) => [a.topic, a.route])).toEqual([
      ['t1', 'direct-fallback'],
      ['t2', 'direct'],
    ]);
    expect(steps(result.trace.filter((t) => t.topic === 't1')).slice(0, 4)).toEqual([
      'route: direct',
      'rewrite: alpha',
      'search: alpha',
      'results: d1',
    ]);
    expect(result.trace.find((t) => t.topic === 't1' && t.step === 'route')).toMatchObject({
      route: 'direct-fallback',
      reason: 'srsa-router: unusable answer after 3 attempts: answer is not JSON: routed to direct search',
    });
  });

  it('a router answer with no suggestions, or another strategy, is not used', async () => {
    let routed = 0;
    server = await startDouble((user) =>
      promptOf(user) === 'router'
        ? ++routed === 1
          ? json({ strategy: 'direct', search_query: 'beta', suggestions: [' '] })
          : json({ strategy: 'sideways', search_query: 'beta', suggestions: ['beta'] })
        : script({ rewrite: [{ reply: 'beta' }], answer: [json(ANSWER)] })(user),
    );
    const result = await run({ method: 'srsa' })();
    expect(users().map(promptOf)).toEqual(['router', 'router', 'router', 'rewrite', 'answer']);
    expect(result.trace.find((t) => t.step === 'route')!.reason).toBe(
      'srsa-router: unusable answer after 3 attempts: answer does not match the schema: $.strategy must be one of ["direct","parallel","planning"]: routed to direct search',
    );
  });

  it('reads a conversational topic with its context', () => {
    expect(
      requestText({
        id: 't',
        text: 'and for tomorrow?',
        previousTurns: [
          { role: 'user', text: 'weather in Oslo' },
          { role: 'assistant', text: 'Sunny today.' },
        ],
        userBackground: ['I live in Bergen'],
      }),
    ).toBe(
      'About the user:\n- I live in Bergen\n\nThe conversation so far:\nuser: weather in Oslo\n' +
        'assistant: Sunny today.\n\nCurrent request:\nand for tomorrow?',
    );
    expect(requestText({ id: 't', text: 'beta' })).toBe('beta');
  });

  it('estimates planning with every round as the upper bound', () => {
    const topics = [{ id: 't1', text: 'beta' }];
    // Planning with every round: router, 4 × (sufficiency, summary), answer.
    expect(estimateModelRun(topics, PROMPTS, { method: 'srsa' }).chatCalls).toBe(10);
    expect(
      estimateModelRun(topics, PROMPTS, { method: 'srsa', settings: { maxRounds: 1 } }).chatCalls,
    ).toBe(2);
    expect(estimateModelRun(topics, PROMPTS, { method: 'react' }).chatCalls).toBe(7);
    expect(estimateModelRun(topics, PROMPTS, { method: 'simple-search' }).chatCalls).toBe(1);
  });
});

describe('simple-search', () => {
  it('searches once with the request as it is and answers from the results', async () => {
    server = await startDouble(script({ answer: [json(ANSWER)] }));
    const result = await run({ method: 'simple-search' })(new MemoryCallStore(), 'alpha beta');
    expect(users()).toHaveLength(1);
    // alpha beta → d1 (both terms), then d2.
    expect(users()[0]).toContain(
      "The user's request:\nalpha beta\n\nReference material (documents are headed by their id in brackets):\n" +
        '[d1]\nalpha beta\n\n[d2]\nbeta\n\nWrite a helpful',
    );
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d1', 'd2']);
    expect(steps(result.trace)).toEqual([
      'search: alpha beta',
      'results: d1 d2',
      'final-answer: Beta is the second letter [d2].',
      'dropped-reference: d9',
      'references: d2',
    ]);
    expect(result.answers[0]!.references).toEqual(['d2']);
    expect(result.parameters).toMatchObject({ 'simple-search.search-k': 5 });
    expect(result.parameters.routes).toBeUndefined();
  });

  it('--search-k sets the documents per search', async () => {
    server = await startDouble(script({ answer: [json(ANSWER)] }));
    const result = await run({ method: 'simple-search', searchK: 1 })(
      new MemoryCallStore(),
      'alpha beta',
    );
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d1']);
  });
});

describe('react', () => {
  const step = (thought: string, action: 'search' | 'finish', input: string) =>
    json({ thought, action, input });

  it('Thought, Action, Observation until finish; the answer from the whole history', async () => {
    server = await startDouble(
      script({
        rephrase: [{ reply: 'What is beta?' }],
        react: [
          step('I need beta.', 'search', 'beta'),
          step('Now gamma.', 'search', 'gamma'),
          step('Enough.', 'finish', 'beta and gamma'),
        ],
        answer: [json({ answer: 'Beta and gamma [d2][d3].', references: ['d2', 'd3'] })],
      }),
    );
    const result = await run({ method: 'react' })();
    expect(users().map(promptOf)).toEqual(['rephrase', 'react', 'react', 'react', 'answer']);
    expect(users()[0]).toBe(
      "The user's request:\ntell me about beta\n\n" +
        'Restate this request as one precise and clear question that keeps every need and condition\n' +
        'the user stated, without the story around it.',
    );
    expect(users()[1]).toBe(
      "The user's request:\ntell me about beta\n\nThe question to answer:\nWhat is beta?\n\n" +
        'Your steps so far (Thought, Action, Observation):\n(none yet)\n\n' +
        'Take the next step. In `thought`, reason about what you know and what is still missing.\n' +
        'Then choose an action:\n\n' +
        '- search: look something up; `input` is a short, precise query for the search engine;\n' +
        '- finish: what you found is enough to answer; `input` says briefly what the answer will\n' +
        '  rest on.',
    );
    const history =
      'Thought 1: I need beta.\nAction 1: search[beta]\nObservation 1:\n[d2]\nbeta\n\n[d1]\nalpha beta\n\n' +
      'Thought 2: Now gamma.\nAction 2: search[gamma]\nObservation 2:\n[d3]\ngamma';
    expect(users()[3]).toContain(
      `(Thought, Action, Observation):\n${history}\n\nTake the next step.`,
    );
    expect(users()[4]).toContain(`(documents are headed by their id in brackets):\n${history}\n\n`);
    expect(steps(result.trace)).toEqual([
      'rephrase: What is beta?',
      'thought: I need beta.',
      'action: search: beta',
      'search: beta',
      'results: d2 d1',
      'thought: Now gamma.',
      'action: search: gamma',
      'search: gamma',
      'results: d3',
      'thought: Enough.',
      'action: finish: beta and gamma',
      'stop: finished at step 3',
      'final-answer: Beta and gamma [d2][d3].',
      'references: d2 d3',
    ]);
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d2', 'd1', 'd3']);
    expect(result.answers[0]!.references).toEqual(['d2', 'd3']);
  });

  it('a rephrased question without a term of the collection is not the question: the raw request is (traced)', async () => {
    server = await startDouble(
      script({
        rephrase: [{ reply: '{"oops":' }],
        react: [step('Enough.', 'finish', 'nothing')],
        answer: [json({ answer: 'None.', references: [] })],
      }),
    );
    const result = await run({ method: 'react' })();
    expect(users()[1]).toContain(
      "The user's request:\ntell me about beta\n\nThe question to answer:\ntell me about beta\n\n",
    );
    expect(result.trace.slice(0, 2)).toEqual([
      {
        topic: 't1',
        method: 'react',
        step: 'rephrase',
        prompt: 'react-rephrase',
        text: '{"oops":',
        cached: false,
      },
      {
        topic: 't1',
        method: 'react',
        step: 'query-fallback',
        prompt: 'react-rephrase',
        text: 'tell me about beta',
        reason:
          'the rephrased question "{\\"oops\\":" has no term of the collection: the raw request is the question',
      },
    ]);
  });

  it('stops after 5 steps when it never finishes', async () => {
    server = await startDouble(
      script({
        rephrase: [{ reply: 'What is delta?' }],
        react: [step('More.', 'search', 'delta')],
        answer: [json({ answer: 'Delta.', references: ['d4'] })],
      }),
    );
    const result = await run({ method: 'react' })();
    expect(users().map(promptOf)).toEqual([
      'rephrase',
      'react',
      'react',
      'react',
      'react',
      'react',
      'answer',
    ]);
    expect(result.trace.filter((t) => t.step === 'search')).toHaveLength(5);
    expect(result.trace.find((t) => t.step === 'stop')!.text).toBe('max steps (5) reached');
    expect(result.parameters['react.max-rounds']).toBe(5);
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d4', 'd5']);
  });

  it('a search action without a query is asked again, then the topic fails', async () => {
    server = await startDouble(
      script({ rephrase: [{ reply: 'What?' }], react: [step('Hmm.', 'search', ' ')] }),
    );
    const result = await run({ method: 'react' })();
    expect(users().map(promptOf)).toEqual(['rephrase', 'react', 'react', 'react']);
    expect(result.failures).toEqual([
      {
        topic: 't1',
        reason:
          'react-step: unusable answer after 3 attempts: the search action has an empty $.input',
      },
    ]);
  });
});
