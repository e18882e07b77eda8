import { MemoryCallStore } from '@assay/llm';
import { afterEach, describe, expect, it } from 'vitest';
import type { Behaviour, TestServer } from '@assay/test-support/openai-test-server';
import { amdSparseQuery, retrieveWithModels, weightedQueryVector } from '../src/index.js';
import { resources, startDouble, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const QUESTIONS = {
  clarification: 'What is meant by beta?',
  assumption_probing: 'Is beta assumed to be Greek?',
  implication_probing: 'What follows from beta?',
};

/** Scripted AMD answers: sub-questions, one pseudo-answer per dimension, feedback. */
function amdScript(
  feedback: Record<string, string> = {
    clarification: 'alpha',
    assumption_probing: 'beta',
    implication_probing: 'gamma',
  },
) {
  return (user: string): Behaviour => {
    if (user.startsWith('A user searched for:')) return { reply: JSON.stringify(QUESTIONS) };
    if (user.includes('clarification dimension')) return { reply: 'raw clarification answer' };
    if (user.includes('assumption probing dimension')) return { reply: 'raw assumption answer' };
    if (user.includes('implication probing dimension')) return { reply: 'raw implication answer' };
    if (user.startsWith('The user searched for:')) return { reply: JSON.stringify(feedback) };
    return { status: 400, message: `unexpected prompt: ${user.slice(0, 40)}` };
  };
}

describe('amd', () => {
  it('builds the sparse [SEP] string: the query three times, then the answers', () => {
    expect(amdSparseQuery('q', ['a1', 'a2', 'a3'])).toBe(
      'q [SEP] q [SEP] q [SEP] a1 [SEP] a2 [SEP] a3',
    );
  });

  it('weights the query embedding 0.7 and the mean of the answers 0.3', () => {
    const v = weightedQueryVector(
      Float32Array.from([1, 0]),
      [Float32Array.from([0, 1]), Float32Array.from([0, 1]), Float32Array.from([0, 4])],
      0.7,
    );
    // 0.7·[1,0] + 0.3·[0, (1+1+4)/3] = [0.7, 0.6]
    expect(v[0]).toBeCloseTo(0.7, 6);
    expect(v[1]).toBeCloseTo(0.6, 6);
  });

  it('sends one sub-question call, three answer calls, one feedback call with the exact prompts', async () => {
    server = await startDouble(amdScript());
    const result = await retrieveWithModels(
      [{ id: 't1', text: 'beta' }],
      resources(server, new MemoryCallStore()),
      { method: 'amd', k: 10 },
    );
    const users = server.requests.map((r) => userMessage(r.body));
    expect(users).toHaveLength(5);
    expect(users[0]).toBe(
      'A user searched for:\nbeta\n\nWrite three different sub-questions about this search, each exploring one dimension of what\n' +
        'the user needs:\n' +
        '- clarification: a question that pins down what the user most likely means, so the query is\n  read correctly;\n' +
        '- assumption_probing: a question that brings out an assumption hidden in the query, taking\n  it apart into something more specific;\n' +
        '- implication_probing: a question about the consequences, effects or follow-up matters the\n  query leads to.\n\n' +
        'Each sub-question is one sentence and can be answered on its own.',
    );
    expect(server.requests[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'amd_questions', strict: true },
    });
    // The three answer calls (in parallel, so in any order).
    expect(users.slice(1, 4).sort()).toEqual(
      [
        `This question was asked to explore the assumption probing dimension of a search request:\n${QUESTIONS.assumption_probing}\n\n`,
        `This question was asked to explore the clarification dimension of a search request:\n${QUESTIONS.clarification}\n\n`,
        `This question was asked to explore the implication probing dimension of a search request:\n${QUESTIONS.implication_probing}\n\n`,
      ].map(
        (head) =>
          `${head}Answer it in a short passage of a few sentences. Keep to what the question asks from that\n` +
          'dimension, and use the concrete terms a document answering it would contain.',
      ),
    );
    expect(users[4]).toContain(
      `1. Clarification question: ${QUESTIONS.clarification}\n   Answer: raw clarification answer\n\n` +
        `2. Assumption-probing question: ${QUESTIONS.assumption_probing}\n   Answer: raw assumption answer\n\n` +
        `3. Implication-probing question: ${QUESTIONS.implication_probing}\n   Answer: raw implication answer`,
    );
    expect(users[4]!.startsWith('The user searched for:\nbeta\n')).toBe(true);
    const query = result.trace.find((t) => t.step === 'query')!.text;
    expect(query).toBe('beta [SEP] beta [SEP] beta [SEP] alpha [SEP] beta [SEP] gamma');
    expect(result.trace.filter((t) => t.step === 'sub-question').map((t) => t.text)).toEqual(
      Object.values(QUESTIONS),
    );
    expect(result.trace.filter((t) => t.step === 'refined-answer').map((t) => t.text)).toEqual([
      'alpha',
      'beta',
      'gamma',
    ]);
    expect(result.parameters).toMatchObject({
      'amd.aggregation': 'sparse',
      'amd.feedback': 'true',
    });
    expect(result.run.topics.get('t1')).toHaveLength(3);
  });

  it('leaves out an answer the feedback pruned to nothing', async () => {
    server = await startDouble(
      amdScript({ clarification: '', assumption_probing: 'beta', implication_probing: 'gamma' }),
    );
    const result = await retrieveWithModels(
      [{ id: 't1', text: 'beta' }],
      resources(server, new MemoryCallStore()),
      { method: 'amd', k: 10 },
    );
    expect(result.trace.find((t) => t.step === 'query')!.text).toBe(
      'beta [SEP] beta [SEP] beta [SEP] beta [SEP] gamma',
    );
  });

  it('--no-feedback: four calls, the raw answers go into the query', async () => {
    server = await startDouble(amdScript());
    const result = await retrieveWithModels(
      [{ id: 't1', text: 'beta' }],
      resources(server, new MemoryCallStore()),
      { method: 'amd', settings: { feedback: false }, k: 10 },
    );
    expect(server.requests).toHaveLength(4);
    expect(result.trace.find((t) => t.step === 'query')!.text).toBe(
      'beta [SEP] beta [SEP] beta [SEP] raw clarification answer [SEP] raw assumption answer [SEP] raw implication answer',
    );
    expect(result.parameters['amd.feedback']).toBe('false');
  });

  it('rrf: one BM25 search per refined answer, fused with k = 60', async () => {
    server = await startDouble(amdScript());
    const result = await retrieveWithModels(
      [{ id: 't1', text: 'beta' }],
      resources(server, new MemoryCallStore()),
      { method: 'amd', settings: { aggregation: 'rrf' }, k: 10 },
    );
    // alpha → [d1]; beta → [d2, d1] (d2 is shorter); gamma → [d3].
    // d1: 1/61 + 1/62; d2 and d3: 1/61 each, tie broken by docno descending.
    const entries = result.run.topics.get('t1')!;
    expect(entries.map((e) => e.docno)).toEqual(['d1', 'd3', 'd2']);
    expect(entries[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(entries[1]!.score).toBeCloseTo(1 / 61, 12);
    expect(result.parameters['amd.rrf-k']).toBe(60);
  });

  it('dense: embeds the query and the refined answers and searches 0.7·q + 0.3·mean', async () => {
    server = await startDouble(
      amdScript({ clarification: 'a1', assumption_probing: 'a2', implication_probing: 'a3' }),
      {
        'alpha beta': [1, 0],
        beta: [0, 1],
        gamma: [7, 6],
        a1: [0, 1],
        a2: [0, 1],
        a3: [0, 4],
      },
    );
    const result = await retrieveWithModels(
      [{ id: 't1', text: 'alpha beta' }],
      resources(server, new MemoryCallStore(), { embeddingModel: 'e' }),
      { method: 'amd', settings: { aggregation: 'dense' }, k: 3 },
    );
    // The collection is embedded first, then the topic's texts; the query 'alpha beta' is
    // d1's text, so its vector [1,0] is already known and not sent again.
    const inputs = server.requests
      .filter((r) => r.path.endsWith('/embeddings'))
      .map((r) => r.body.input);
    expect(inputs).toEqual([
      ['alpha beta', 'beta', 'gamma'],
      ['a1', 'a2', 'a3'],
    ]);
    // 0.7·[1,0] + 0.3·mean([0,1],[0,1],[0,4]) = [0.7, 0.6], parallel to d3's [7,6]:
    // cos(d3) = 1, cos(d1 [1,0]) = 0.7/√0.85, cos(d2 [0,1]) = 0.6/√0.85.
    const entries = result.run.topics.get('t1')!;
    expect(entries.map((e) => e.docno)).toEqual(['d3', 'd1', 'd2']);
    expect(entries[0]!.score).toBeCloseTo(1, 6);
    expect(entries[1]!.score).toBeCloseTo(0.7 / Math.sqrt(0.85), 6);
    expect(entries[2]!.score).toBeCloseTo(0.6 / Math.sqrt(0.85), 6);
  });

  it('retries 429, 500, a dropped connection and a malformed body; a rerun on the same store sends zero requests', async () => {
    const script = amdScript();
    server = await startDouble((user, n) =>
      n === 1
        ? { status: 429, retryAfter: '0' }
        : n === 2
          ? { status: 500 }
          : n === 3
            ? { drop: true }
            : n === 4
              ? { malformedBody: true }
              : script(user),
    );
    const store = new MemoryCallStore();
    const first = await retrieveWithModels([{ id: 't1', text: 'beta' }], resources(server, store), {
      method: 'amd',
      k: 10,
    });
    expect(first.failures).toEqual([]);
    // 4 refused or broken answers (each retried), then the 5 calls of the method.
    expect(server.requests).toHaveLength(9);
    const second = await retrieveWithModels(
      [{ id: 't1', text: 'beta' }],
      resources(server, store),
      { method: 'amd', k: 10 },
    );
    expect(server.requests).toHaveLength(9);
    expect(second.run).toEqual(first.run);
    expect(second.trace.map((t) => t.text)).toEqual(first.trace.map((t) => t.text));
  });

  it('a malformed answer is asked again, then the topic fails with its reason; others go on', async () => {
    const script = amdScript();
    server = await startDouble((user) =>
      user.startsWith('A user searched for:\nbroken')
        ? { reply: 'Sure! Here are questions.' }
        : script(user),
    );
    const result = await retrieveWithModels(
      [
        { id: 't1', text: 'broken' },
        { id: 't2', text: 'beta' },
      ],
      resources(server, new MemoryCallStore()),
      { method: 'amd', k: 10 },
    );
    const asked = server.requests.filter((r) =>
      userMessage(r.body).startsWith('A user searched for:\nbroken'),
    );
    expect(asked.map((r) => r.body.seed)).toEqual([undefined, 2, 3]);
    expect(result.failures).toEqual([
      {
        topic: 't1',
        reason: 'amd-questions: unusable answer after 3 attempts: answer is not JSON',
      },
    ]);
    expect(result.run.topics.has('t1')).toBe(false);
    expect(result.run.topics.get('t2')).toHaveLength(3);
    expect(result.trace.filter((t) => t.topic === 't1')).toEqual([
      {
        topic: 't1',
        method: 'amd',
        step: 'failed',
        text: 'amd-questions: unusable answer after 3 attempts: answer is not JSON',
      },
    ]);
  });

  it('a feedback that prunes every answer is asked again, then reported', async () => {
    server = await startDouble(
      amdScript({ clarification: ' ', assumption_probing: '', implication_probing: '' }),
    );
    const result = await retrieveWithModels(
      [{ id: 't1', text: 'beta' }],
      resources(server, new MemoryCallStore()),
      { method: 'amd', k: 10 },
    );
    expect(result.failures).toEqual([
      {
        topic: 't1',
        reason: 'amd-feedback: unusable answer after 3 attempts: the feedback pruned every answer',
      },
    ]);
    expect(server.requests).toHaveLength(7);
  });

  it('--budget: stops sending once the spending reached it; later topics are not started', async () => {
    server = await startDouble((user) => {
      const reply = amdScript()(user);
      // gpt-4o-mini: $0.15 per million prompt tokens; 1 000 000 tokens = $0.15 a call.
      return 'reply' in reply ? { ...reply, promptTokens: 1_000_000, completionTokens: 0 } : reply;
    });
    const result = await retrieveWithModels(
      [
        { id: 't1', text: 'beta' },
        { id: 't2', text: 'alpha' },
      ],
      resources(server, new MemoryCallStore(), { model: 'gpt-4o-mini' }),
      { method: 'amd', k: 10, budgetUsd: 0.1, concurrency: 1 },
    );
    // The first call spends $0.15 ≥ $0.10: nothing more is sent.
    expect(server.requests).toHaveLength(1);
    expect(result.stoppedForBudget).toBe(true);
    expect(result.unfinished).toEqual(['t1', 't2']);
    expect(result.failures).toEqual([]);
    expect(result.run.topics.size).toBe(0);
    expect(result.spend.costUsd).toBeCloseTo(0.15, 10);
  });
});
