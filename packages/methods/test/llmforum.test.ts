import { MemoryCallStore, OpenAIChatClient } from '@assay/llm';
import { buildIndex, createAnalyzer, DEFAULT_ANALYZER, retrieveRun } from '@assay/retrieval';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '@assay/test-support/openai-test-server';
import {
  lexicalSimilarity,
  retrieveWithModels,
  splitIntoChunks,
  summaryRouge,
  weightedRocchioVector,
  type ModelResources,
  type ModelRetrieveOptions,
} from '../src/index.js';
import { PROMPTS, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `n` words named `prefix1`..`prefixn`, one space apart. */
const words = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).join(' ');

describe('splitIntoChunks', () => {
  it('28 words: size ⌈280/28⌉ = 10, overlap 1, starts 0, 9, 18', () => {
    const chunks = splitIntoChunks(words('w', 28));
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 10],
      [9, 19],
      [18, 28],
    ]);
    expect(chunks[0]!.text).toBe(words('w', 10));
    expect(chunks[1]!.text).toBe('w10 w11 w12 w13 w14 w15 w16 w17 w18 w19');
    expect(chunks[2]!.text).toBe('w19 w20 w21 w22 w23 w24 w25 w26 w27 w28');
  });

  it('100 words: size ⌈1000/28⌉ = 36, overlap round(3.6) = 4, starts 0, 32, 64', () => {
    const chunks = splitIntoChunks(words('w', 100));
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 36],
      [32, 68],
      [64, 100],
    ]);
    expect(chunks[1]!.text.split(' ')[0]).toBe('w33');
    expect(chunks[2]!.text.split(' ').at(-1)).toBe('w100');
  });

  it('29 words: size 11, overlap 1, the last chunk runs to the end (9 words)', () => {
    const chunks = splitIntoChunks(words('w', 29));
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 11],
      [10, 21],
      [20, 29],
    ]);
  });

  it('short texts: 5 words give 2, 2, 1 (no overlap); 2 words leave the third chunk empty', () => {
    expect(splitIntoChunks('a b c d e').map((c) => c.text)).toEqual(['a b', 'c d', 'e']);
    expect(splitIntoChunks('a b').map((c) => c.text)).toEqual(['a', 'b', '']);
    expect(splitIntoChunks('  ').map((c) => [c.start, c.end, c.text])).toEqual([
      [0, 0, ''],
      [0, 0, ''],
      [0, 0, ''],
    ]);
  });

  it('keeps the whitespace between the words of a chunk (paragraph breaks too)', () => {
    const text = `${words('a', 6)}\n\n${words('b', 6)}\n\n${words('c', 6)}\n\n${words('e', 5)}\n\n${words('f', 5)}`;
    expect(splitIntoChunks(text).map((c) => c.text)).toEqual([
      'a1 a2 a3 a4 a5 a6\n\nb1 b2 b3 b4',
      'b4 b5 b6\n\nc1 c2 c3 c4 c5 c6\n\ne1',
      'e1 e2 e3 e4 e5\n\nf1 f2 f3 f4 f5',
    ]);
  });
});

describe('weightedRocchioVector', () => {
  it('q + Σ s·d / Σ s − Σ (1 − s)·d / Σ (1 − s), the query at unit length', () => {
    const v = weightedRocchioVector(
      Float32Array.from([2, 0]),
      [
        { vector: Float32Array.from([1, 0]), similarity: 1 },
        { vector: Float32Array.from([0.6, 0.8]), similarity: 0.6 },
      ],
      [
        { vector: Float32Array.from([0, 1]), similarity: 0 },
        { vector: Float32Array.from([-1, 0]), similarity: -1 },
      ],
      { alpha: 1, beta: 1, gamma: 1 },
    );
    // pos = (1·[1,0] + 0.6·[0.6,0.8]) / 1.6 = [1.36, 0.48] / 1.6 = [0.85, 0.3]
    // neg = (1·[0,1] + 2·[-1,0]) / 3 = [-2/3, 1/3]
    // q' = [1,0] + [0.85, 0.3] − [-2/3, 1/3] = [2.516667, -0.033333]
    expect(v[0]).toBeCloseTo(1 + 0.85 + 2 / 3, 6);
    expect(v[1]).toBeCloseTo(0.3 - 1 / 3, 6);
  });

  it('weights α, β, γ scale the three parts; no negatives leave the negative part out', () => {
    const v = weightedRocchioVector(
      Float32Array.from([0, 3]),
      [{ vector: Float32Array.from([1, 0]), similarity: 0.5 }],
      [],
      { alpha: 2, beta: 0.5, gamma: 1 },
    );
    expect([...v]).toEqual([0.5, 2]);
  });
});

describe('lexicalSimilarity', () => {
  const analyze = (t: string) => createAnalyzer(DEFAULT_ANALYZER).analyze(t);
  it('cosine of term counts after analysis (stopwords out, stems)', () => {
    // [beta:2, alpha:1] · [beta:1, gamma:1] = 2; norms √5 and √2.
    expect(lexicalSimilarity(analyze, 'beta beta alpha', 'beta gamma')).toBeCloseTo(
      2 / Math.sqrt(10),
      12,
    );
    // "the" is a stopword; "running" and "runs" both stem to "run".
    expect(lexicalSimilarity(analyze, 'the running', 'runs')).toBe(1);
    expect(lexicalSimilarity(analyze, 'the of', 'beta')).toBe(0);
  });
});

// The collection of the forum tests. Dense vectors (2-d) by text; the query is [1, 0].
// First stage by cosine: d1 1, d2 0.8 and d0 0.8 (a tie: d2 first, docno descending),
// d3 0.6, d4 0, d5 -0.6, d6 -1.
const FORUM_DOCS = [
  { id: 'd0', text: words('b', 6), vector: [0.8, -0.6] },
  { id: 'd1', text: words('a', 6), vector: [1, 0] },
  { id: 'd2', text: words('c', 6), vector: [0.8, 0.6] },
  { id: 'd3', text: words('e', 5), vector: [0.6, 0.8] },
  { id: 'd4', text: words('f', 5), vector: [0, 1] },
  { id: 'd5', text: 'g1', vector: [-0.6, 0.8] },
  { id: 'd6', text: 'h1', vector: [-1, 0] },
];
const QUESTION = 'what is a';
const OFF_TOPIC = 'an answer about something else';
const VECTORS: Record<string, number[]> = {
  [QUESTION]: [1, 0],
  [OFF_TOPIC]: [-1, 0],
  ...Object.fromEntries(FORUM_DOCS.map((d) => [d.text, d.vector])),
};

// With 1 positive (d1, s = 1): pos = [1, 0]. Negatives d2, d0 (weight 0.2 each), d3 (0.4),
// d4 (1), d5 (1.6), d6 (2); Σ = 5.4; Σ w·d = [0.16 + 0.16 + 0.24 + 0 − 0.96 − 2,
// 0.12 − 0.12 + 0.32 + 1 + 1.28 + 0] = [−2.4, 2.6]; neg = [−0.444444, 0.481481].
// q' = [1,0] + [1,0] − neg = [2.444444, −0.481481]: d0 (0.8, −0.6) now beats d2.
const Q = [2 + 2.4 / 5.4, -2.6 / 5.4];
const NORM = Math.hypot(Q[0]!, Q[1]!);
const cosine = (v: number[]) => (v[0]! * Q[0]! + v[1]! * Q[1]!) / NORM;
const DENSE_ORDER = ['d1', 'd0', 'd2', 'd3', 'd4', 'd5', 'd6'];
// The top 5 (d1, d0, d2, d3, d4) have 6 + 6 + 6 + 5 + 5 = 28 words: chunks [0,10), [9,19), [18,28).
const CHUNKS = [
  'a1 a2 a3 a4 a5 a6\n\nb1 b2 b3 b4',
  'b4 b5 b6\n\nc1 c2 c3 c4 c5 c6\n\ne1',
  'e1 e2 e3 e4 e5\n\nf1 f2 f3 f4 f5',
];
const FULL_CONTEXT = [
  words('a', 6),
  words('b', 6),
  words('c', 6),
  words('e', 5),
  words('f', 5),
].join('\n\n');

const FIRST = '(First attempt.)';
const retryNote = (attempt: number, score: string, what = 'control check', threshold = 0.5) =>
  `(Attempt ${attempt}. Your previous text scored ${score} in the ${what}, below ${threshold}: ` +
  'keep closer to the question and to what you were given.)';

/** The reformation prompt as methods/llmforum-reform.md words it. */
function reformUser(question: string, note = FIRST) {
  return (
    `Question: ${question}\n\n` +
    'Restate the question as a single structured query for retrieving the passages that answer\n' +
    'it: name its subject, the facts asked for and any condition (time, place, population,\n' +
    "language) it sets. Keep the question's own key terms. Stay under 200 words and do not\n" +
    'answer the question.\n' +
    note
  );
}

/** The summariser prompt as methods/llmforum-summarise.md words it. */
function summariseUser(context: string, words: number, note = FIRST) {
  return (
    `Question: ${QUESTION}\n\nRetrieved passages:\n\n<<<\n${context}\n>>>\n\n` +
    `Summarise the passages in at most ${words} words. Keep every statement that helps answer\n` +
    "the question, reusing the passages' own words and phrases where you can; leave out what\n" +
    'does not bear on it.\n' +
    note
  );
}

/** The agent prompt as methods/llmforum-agent.md words it. */
function agentUser(
  agent: number,
  round: number,
  passage: string,
  discussion: string,
  note = FIRST,
) {
  return (
    `Question: ${QUESTION}\n\n` +
    `You are agent ${agent} of 3, in round ${round} of 2. Your part of the retrieved text:\n\n` +
    `<<<\n${passage}\n>>>\n\n` +
    `The forum's answers so far:\n\n${discussion}\n\n` +
    'Answer the question in a few sentences. Where your part of the text supports an earlier\n' +
    'answer, build on it; where it contradicts one, refute it and say why. State only what your\n' +
    'part of the text gives; if it says nothing about the question, say so.\n' +
    note
  );
}

/** The supervisor prompt as methods/llmforum-supervisor.md words it. */
function supervisorUser(discussion: string, note = FIRST) {
  return (
    `Question: ${QUESTION}\n\n` +
    `The forum's discussion, in the order the answers were given:\n\n${discussion}\n\n` +
    'Write the final answer to the question. Keep what the agents agree on or what one of them\n' +
    'supports from its text and no one refuted; drop what was refuted. Be direct and brief.\n' +
    note
  );
}

/** The control prompt as methods/llmforum-control.md words it. */
function controlUser(context: string, answer: string, question = QUESTION) {
  return (
    `Question: ${question}\n\nText the answer was written from:\n\n<<<\n${context}\n>>>\n\n` +
    `Answer to check:\n\n<<<\n${answer}\n>>>\n\n` +
    'Give two scores between 0 and 1:\n' +
    '- groundedness: 1 when everything the answer states is supported by the text, 0 when none\n' +
    '  of it is;\n' +
    '- relevance: 1 when the answer addresses the question directly, 0 when it does not address\n' +
    '  it at all.'
  );
}

interface Script {
  /** The agent's answer (default `answer R.A`, or `final answer` for the supervisor). */
  answer?: (who: string, attempt: number) => string | undefined;
  /** The reformed query (default: the question itself). */
  reform?: (attempt: number) => string;
  /** The summary of a long context (default `summary N`). */
  summary?: (attempt: number) => string;
  /** The control answer for an answer (default groundedness 1, relevance 1). */
  control?: (answer: string) => Behaviour | undefined;
}

/** Forum answers by prompt: agents, supervisor, control; embeddings from VECTORS, else [1, 0]. */
function startForumDouble(script: Script = {}): Promise<TestServer> {
  return startOpenAITestServer((body, _n, path) => {
    if (path.endsWith('/embeddings')) {
      const input = body.input as string[];
      return {
        json: {
          data: input.map((t, index) => ({ index, embedding: VECTORS[t] ?? [1, 0] })),
          usage: { prompt_tokens: 1 },
        },
      };
    }
    const user = userMessage(body);
    const attempt = Number(/\(Attempt (\d)\./.exec(user)?.[1] ?? 1);
    const agent = /You are agent (\d) of 3, in round (\d) of 2/.exec(user);
    if (agent) {
      const who = `${agent[2]}.${agent[1]}`;
      return { reply: script.answer?.(who, attempt) ?? `answer ${who}` };
    }
    if (user.includes('Restate the question as a single structured query'))
      return { reply: script.reform?.(attempt) ?? QUESTION };
    if (user.includes('Summarise the passages in at most'))
      return { reply: script.summary?.(attempt) ?? `summary ${attempt}` };
    if (user.includes("The forum's discussion"))
      return { reply: script.answer?.('supervisor', attempt) ?? 'final answer' };
    if (user.includes('Answer to check:')) {
      const answer = /Answer to check:\n\n<<<\n([\s\S]*)\n>>>/.exec(user)![1]!;
      return (
        script.control?.(answer) ?? { reply: JSON.stringify({ groundedness: 1, relevance: 1 }) }
      );
    }
    return { status: 400, message: `unexpected prompt: ${user.slice(0, 40)}` };
  });
}

function forumResources(s: TestServer, store: MemoryCallStore, dense = true): ModelResources {
  const r: ModelResources = {
    index: buildIndex(FORUM_DOCS, DEFAULT_ANALYZER),
    prompts: PROMPTS,
    deps: { store, sleep: async () => {}, random: () => 0 },
    chat: { client: new OpenAIChatClient({ baseURL: s.baseURL }), model: 'm' },
    documents: FORUM_DOCS,
  };
  if (dense) r.embeddings = { endpoint: { baseURL: s.baseURL }, model: 'e' };
  return r;
}

// The forum tests leave the reformation agent out (it has a test of its own).
const DENSE: ModelRetrieveOptions = {
  method: 'llmforum',
  k: 10,
  settings: { positives: 1, reformulation: false },
};

const chatUsers = (s: TestServer) =>
  s.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => userMessage(r.body));

describe('llmforum', () => {
  it('dense: ranks by the weighted-Rocchio vector, then runs the forum in turn with the exact prompts', async () => {
    server = await startForumDouble();
    const store = new MemoryCallStore();
    const topics = [{ id: 't1', text: QUESTION }];
    const result = await retrieveWithModels(topics, forumResources(server, store), DENSE);

    const entries = result.run.topics.get('t1')!;
    expect(entries.map((e) => e.docno)).toEqual(DENSE_ORDER);
    const byId = new Map(FORUM_DOCS.map((d) => [d.id, d.vector]));
    entries.forEach((e) => expect(e.score).toBeCloseTo(cosine(byId.get(e.docno)!), 5));

    const users = chatUsers(server);
    // 6 agent answers and the supervisor's, each followed by its control call.
    expect(users).toHaveLength(14);
    const d1 = '(none yet: you answer first)';
    const r1 = [
      'Round 1, agent 1: answer 1.1',
      'Round 1, agent 2: answer 1.2',
      'Round 1, agent 3: answer 1.3',
    ];
    const r2 = [
      'Round 2, agent 1: answer 2.1',
      'Round 2, agent 2: answer 2.2',
      'Round 2, agent 3: answer 2.3',
    ];
    const expected = [
      agentUser(1, 1, CHUNKS[0]!, d1),
      controlUser(CHUNKS[0]!, 'answer 1.1'),
      agentUser(2, 1, CHUNKS[1]!, r1.slice(0, 1).join('\n\n')),
      controlUser(CHUNKS[1]!, 'answer 1.2'),
      agentUser(3, 1, CHUNKS[2]!, r1.slice(0, 2).join('\n\n')),
      controlUser(CHUNKS[2]!, 'answer 1.3'),
      agentUser(1, 2, CHUNKS[0]!, r1.join('\n\n')),
      controlUser(CHUNKS[0]!, 'answer 2.1'),
      agentUser(2, 2, CHUNKS[1]!, [...r1, ...r2.slice(0, 1)].join('\n\n')),
      controlUser(CHUNKS[1]!, 'answer 2.2'),
      agentUser(3, 2, CHUNKS[2]!, [...r1, ...r2.slice(0, 2)].join('\n\n')),
      controlUser(CHUNKS[2]!, 'answer 2.3'),
      supervisorUser([...r1, ...r2].join('\n\n')),
      controlUser(FULL_CONTEXT, 'final answer'),
    ];
    users.forEach((u, i) => expect(u).toBe(expected[i]));
    const control = server.requests.find(
      (r) =>
        r.path.endsWith('/chat/completions') && userMessage(r.body).includes('Answer to check:'),
    )!;
    expect(control.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'llmforum_control', strict: true },
    });

    expect(result.answers).toEqual([
      { topic: 't1', text: 'final answer', references: ['d1', 'd0', 'd2', 'd3', 'd4'] },
    ]);
    const said = result.trace
      .filter((t) => t.step === 'agent-answer' || t.step === 'supervisor-answer')
      .map((t) => [t.speaker, t.round, t.attempt, t.text]);
    expect(said).toEqual([
      ['agent 1', 1, 1, 'answer 1.1'],
      ['agent 2', 1, 1, 'answer 1.2'],
      ['agent 3', 1, 1, 'answer 1.3'],
      ['agent 1', 2, 1, 'answer 2.1'],
      ['agent 2', 2, 1, 'answer 2.2'],
      ['agent 3', 2, 1, 'answer 2.3'],
      ['supervisor', undefined, 1, 'final answer'],
    ]);
    // Answers, chunks and question all embed to [1, 0]: similarities (1 + 1) / 2 = 1, judge 1.
    const controls = result.trace.filter((t) => t.step === 'control');
    expect(controls).toHaveLength(7);
    expect(controls.every((t) => t.score === 1 && t.text.endsWith(': accepted'))).toBe(true);
    expect(result.trace.find((t) => t.step === 'final-answer')!.text).toBe('final answer');
    expect(result.parameters).toMatchObject({
      'llmforum.retrieval': 'dense',
      'llmforum.fb-depth': 50,
      'llmforum.positives': 1,
      'llmforum.alpha': 1,
      'llmforum.beta': 1,
      'llmforum.gamma': 1,
      'llmforum.rocchio-rounds': 1,
      'llmforum.context-docs': 5,
      'llmforum.agents': 3,
      'llmforum.rounds': 2,
      'llmforum.control-similarity': 'embedding cosine, (1 + cos) / 2',
      'llmforum.control-threshold': 0.5,
      'llmforum.max-regenerations': 5,
      'llmforum.reformulation': 'false',
      'llmforum.context-tokens': 4096,
      'embedding-model': 'e',
    });
    expect(result.warnings).toEqual([]);
    expect(result.parameters).not.toHaveProperty('warning');

    // A rerun with the same store sends nothing and gives the same run and answer.
    const sent = server.requests.length;
    const again = await retrieveWithModels(topics, forumResources(server, store), DENSE);
    expect(server.requests.length).toBe(sent);
    expect(again.run).toEqual(result.run);
    expect(again.answers).toEqual(result.answers);
    expect(again.trace.filter((t) => t.step === 'agent-answer').every((t) => t.cached)).toBe(true);
  });

  it('regenerates an answer scored below 0.5 (with its score in the prompt); later agents see the accepted one', async () => {
    server = await startForumDouble({
      answer: (who, attempt) => (who === '1.2' && attempt === 1 ? OFF_TOPIC : undefined),
      control: (answer) =>
        answer === OFF_TOPIC
          ? { reply: JSON.stringify({ groundedness: 0.5, relevance: 0.25 }) }
          : undefined,
    });
    const result = await retrieveWithModels(
      [{ id: 't1', text: QUESTION }],
      forumResources(server, new MemoryCallStore()),
      DENSE,
    );
    // OFF_TOPIC embeds to [-1, 0]: (1 + cos) / 2 = 0 to the question and to its chunk ([1, 0]);
    // judge (0.5 + 0.25) / 2 = 0.375; score (0 + 0 + 0.375) / 3 = 0.125.
    const users = chatUsers(server);
    expect(users).toHaveLength(16);
    expect(users[2]).toBe(agentUser(2, 1, CHUNKS[1]!, 'Round 1, agent 1: answer 1.1'));
    expect(users[3]).toBe(controlUser(CHUNKS[1]!, OFF_TOPIC));
    expect(users[4]).toBe(
      agentUser(2, 1, CHUNKS[1]!, 'Round 1, agent 1: answer 1.1', retryNote(2, '0.13')),
    );
    expect(users[6]).toBe(
      agentUser(3, 1, CHUNKS[2]!, 'Round 1, agent 1: answer 1.1\n\nRound 1, agent 2: answer 1.2'),
    );
    const agent2 = result.trace.filter((t) => t.speaker === 'agent 2' && t.round === 1);
    expect(agent2.map((t) => [t.step, t.attempt, t.score])).toEqual([
      ['agent-answer', 1, undefined],
      ['control', 1, 0.125],
      ['agent-answer', 2, undefined],
      ['control', 2, 1],
    ]);
    expect(agent2[1]!.text).toBe(
      'score 0.1250 = mean(question 0.0000, context 0.0000, judge 0.3750 [groundedness 0.5, relevance 0.25]): below 0.5, regenerated',
    );
    expect(result.answers[0]!.text).toBe('final answer');
  });

  it('stops regenerating after --max-regenerations and keeps the last answer', async () => {
    const lowSupervisor: Script = {
      answer: (who, attempt) => (who === 'supervisor' ? `${OFF_TOPIC} ${attempt}` : undefined),
      control: (answer) =>
        answer.startsWith(OFF_TOPIC)
          ? { reply: JSON.stringify({ groundedness: 0, relevance: 0 }) }
          : undefined,
    };
    for (let attempt = 1; attempt <= 6; attempt++) VECTORS[`${OFF_TOPIC} ${attempt}`] = [-1, 0];
    server = await startForumDouble(lowSupervisor);
    const result = await retrieveWithModels(
      [{ id: 't1', text: QUESTION }],
      forumResources(server, new MemoryCallStore()),
      DENSE,
    );
    // Default cap 5: six supervisor answers, six controls (12 + 12 chat calls).
    const users = chatUsers(server);
    expect(users).toHaveLength(24);
    const all = [
      'Round 1, agent 1: answer 1.1',
      'Round 1, agent 2: answer 1.2',
      'Round 1, agent 3: answer 1.3',
      'Round 2, agent 1: answer 2.1',
      'Round 2, agent 2: answer 2.2',
      'Round 2, agent 3: answer 2.3',
    ].join('\n\n');
    expect(users.slice(12)).toEqual([
      supervisorUser(all),
      controlUser(FULL_CONTEXT, `${OFF_TOPIC} 1`),
      ...[2, 3, 4, 5, 6].flatMap((attempt) => [
        supervisorUser(all, retryNote(attempt, '0.00')),
        controlUser(FULL_CONTEXT, `${OFF_TOPIC} ${attempt}`),
      ]),
    ]);
    expect(result.answers[0]!.text).toBe(`${OFF_TOPIC} 6`);
    const controls = result.trace.filter((t) => t.step === 'control' && t.speaker === 'supervisor');
    expect(controls.map((t) => t.text.split(': ').at(-1))).toEqual([
      ...Array<string>(5).fill('below 0.5, regenerated'),
      'below 0.5, kept after 5 regenerations',
    ]);

    // --max-regenerations 2: three attempts.
    await server.close();
    server = await startForumDouble(lowSupervisor);
    const capped = await retrieveWithModels(
      [{ id: 't1', text: QUESTION }],
      forumResources(server, new MemoryCallStore()),
      { ...DENSE, settings: { ...DENSE.settings, maxRegenerations: 2 } },
    );
    expect(chatUsers(server)).toHaveLength(18);
    expect(capped.answers[0]!.text).toBe(`${OFF_TOPIC} 3`);

    // --max-regenerations 0: the first answer is kept.
    await server.close();
    server = await startForumDouble(lowSupervisor);
    const once = await retrieveWithModels(
      [{ id: 't1', text: QUESTION }],
      forumResources(server, new MemoryCallStore()),
      { ...DENSE, settings: { ...DENSE.settings, maxRegenerations: 0 } },
    );
    expect(chatUsers(server)).toHaveLength(14);
    expect(once.answers[0]!.text).toBe(`${OFF_TOPIC} 1`);
    expect(once.parameters['llmforum.max-regenerations']).toBe(0);
  });

  it('sparse without embeddings: the weighted Rocchio of @assay/retrieval, lexical similarity, no embeddings call', async () => {
    server = await startForumDouble({
      answer: (who) => (who === '1.1' ? 'a1 a2 zeta' : undefined),
      control: () => ({ reply: JSON.stringify({ groundedness: 0.5, relevance: 0.5 }) }),
    });
    const docs = [
      { id: 's1', text: 'alpha beta' },
      { id: 's2', text: 'beta' },
      { id: 's3', text: 'gamma alpha' },
      { id: 's4', text: 'delta' },
    ];
    const r = forumResources(server, new MemoryCallStore(), false);
    r.index = buildIndex(docs, DEFAULT_ANALYZER);
    r.documents = docs;
    const result = await retrieveWithModels([{ id: 't1', text: 'beta' }], r, {
      method: 'llmforum',
      k: 10,
      settings: { reformulation: false },
    });
    expect(server.requests.some((q) => q.path.endsWith('/embeddings'))).toBe(false);
    const reference = retrieveRun(r.index, [{ id: 't1', text: 'beta' }], {
      method: 'rocchio-weighted',
      k: 10,
    }).run.topics.get('t1')!;
    const entries = result.run.topics.get('t1')!;
    expect(entries).toEqual(reference);
    // "beta" pulls in "alpha" from s1, which brings s3 in; "delta" never comes.
    expect(entries.map((e) => e.docno).sort()).toEqual(['s1', 's2', 's3']);
    expect(result.answers[0]!.references).toEqual(entries.map((e) => e.docno));
    expect(result.trace.find((t) => t.step === 'query')!.text).toMatch(
      /^beta\^[0-9.]+ alpha\^[0-9.]+$/,
    );
    expect(result.parameters).toMatchObject({
      'llmforum.retrieval': 'sparse',
      'llmforum.fb-terms': 10,
      'llmforum.control-similarity': 'lexical cosine',
    });
    // Without an embeddings model the run says it is not the paper's dense method.
    const warning =
      "llmforum without an embeddings model (--embedding-model) is not the paper's method: it ranks by sparse tf-idf weighted Rocchio over BM25 and its control block compares texts by their words, not by embeddings";
    expect(result.warnings).toEqual([warning]);
    expect(result.parameters.warning).toBe(warning);
    // Agent 1 answered "a1 a2 zeta" to "beta": no shared term with the question (0); its
    // chunk is the first of the context's words, which holds no a1/a2 (0): score
    // (0 + 0 + 0.5) / 3 < 0.5, so it was regenerated.
    const first = result.trace.find((t) => t.step === 'control')!;
    expect(first.score).toBeCloseTo(0.5 / 3, 12);
  });

  it('a malformed control answer is asked again, then the topic fails with the reason', async () => {
    server = await startForumDouble({ control: () => ({ reply: 'looks fine to me' }) });
    const result = await retrieveWithModels(
      [{ id: 't1', text: QUESTION }],
      forumResources(server, new MemoryCallStore()),
      DENSE,
    );
    const users = chatUsers(server);
    expect(users).toHaveLength(4);
    expect(users.slice(1)).toEqual([
      controlUser(CHUNKS[0]!, 'answer 1.1'),
      controlUser(CHUNKS[0]!, 'answer 1.1'),
      controlUser(CHUNKS[0]!, 'answer 1.1'),
    ]);
    expect(result.failures).toEqual([
      {
        topic: 't1',
        reason: 'llmforum-control: unusable answer after 3 attempts: answer is not JSON',
      },
    ]);
    expect(result.run.topics.has('t1')).toBe(false);
    expect(result.answers).toEqual([]);
  });

  it('with k below 5 the run keeps k documents and the forum still reads the top 5', async () => {
    server = await startForumDouble();
    const result = await retrieveWithModels(
      [{ id: 't1', text: QUESTION }],
      forumResources(server, new MemoryCallStore()),
      { ...DENSE, k: 2 },
    );
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d1', 'd0']);
    expect(result.answers[0]!.references).toEqual(['d1', 'd0', 'd2', 'd3', 'd4']);
    expect(chatUsers(server)[0]).toBe(agentUser(1, 1, CHUNKS[0]!, '(none yet: you answer first)'));
  });

  it('the query-reformation agent restates the question under the control block; retrieval embeds its query with the E5 prefixes', async () => {
    const REFORMED = 'a structured query about a';
    Object.assign(
      VECTORS,
      Object.fromEntries(FORUM_DOCS.map((d) => [`passage: ${d.text}`, d.vector])),
      { [`query: ${REFORMED}`]: [1, 0] },
    );
    server = await startForumDouble({ reform: () => REFORMED });
    const r = forumResources(server, new MemoryCallStore());
    r.embeddings = { ...r.embeddings!, queryPrefix: 'query: ', passagePrefix: 'passage: ' };
    const result = await retrieveWithModels([{ id: 't1', text: QUESTION }], r, {
      method: 'llmforum',
      k: 10,
      settings: { positives: 1 },
    });
    const users = chatUsers(server);
    // The reformation and its control come first; the question is its own ground text.
    expect(users.slice(0, 3)).toEqual([
      reformUser(QUESTION),
      controlUser(QUESTION, REFORMED),
      agentUser(1, 1, CHUNKS[0]!, '(none yet: you answer first)'),
    ]);
    expect(users).toHaveLength(16);
    const embedded = server.requests
      .filter((q) => q.path.endsWith('/embeddings'))
      .map((q) => q.body.input);
    expect(embedded.slice(0, 3)).toEqual([
      FORUM_DOCS.map((d) => `passage: ${d.text}`),
      [`query: ${QUESTION}`, `passage: ${QUESTION}`, `passage: ${REFORMED}`],
      [`query: ${REFORMED}`],
    ]);
    // The reformed query embeds as the question did: the same weighted-Rocchio ranking.
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(DENSE_ORDER);
    expect(result.trace.slice(0, 2).map((t) => [t.step, t.speaker, t.attempt, t.text])).toEqual([
      ['reformed-query', 'reformer', 1, REFORMED],
      [
        'control',
        'reformer',
        1,
        'score 1.0000 = mean(question 1.0000, context 1.0000, judge 1.0000 [groundedness 1, relevance 1]): accepted',
      ],
    ]);
    expect(result.parameters).toMatchObject({
      'llmforum.reformulation': 'true',
      'embedding.query-prefix': '"query: "',
      'embedding.passage-prefix': '"passage: "',
    });
  });

  it('summarises a context longer than --context-tokens, held to a mean ROUGE F1; the agents read the summary', async () => {
    const SUMMARY = 'a1 a2 a3 b1 b2';
    server = await startForumDouble({
      summary: (attempt) => (attempt === 1 ? 'nothing of note here' : SUMMARY),
    });
    const result = await retrieveWithModels(
      [{ id: 't1', text: QUESTION }],
      forumResources(server, new MemoryCallStore()),
      { ...DENSE, settings: { ...DENSE.settings, contextTokens: 10 } },
    );
    // The 28-word context is 81 characters, 21 tokens at four characters a token: over 10.
    // The summary may have ⌊10 · 3/4⌋ = 7 words. The first shares no word with the context
    // (ROUGE 0): regenerated with its score in the prompt; the second is accepted.
    const users = chatUsers(server);
    expect(users.slice(0, 3)).toEqual([
      summariseUser(FULL_CONTEXT, 7),
      summariseUser(FULL_CONTEXT, 7, retryNote(2, '0.00', 'ROUGE check', 0.2)),
      // 5 words: chunks of ⌈50/28⌉ = 2 words, no overlap.
      agentUser(1, 1, 'a1 a2', '(none yet: you answer first)'),
    ]);
    const summaries = result.trace.filter((t) => t.step === 'summary');
    expect(summaries.map((t) => [t.attempt, t.text])).toEqual([
      [1, 'nothing of note here'],
      [2, SUMMARY],
    ]);
    expect(summaries[0]!.score).toBe(0);
    expect(summaries[1]!.score).toBeCloseTo(summaryRouge(SUMMARY, FULL_CONTEXT), 12);
    expect(summaries[1]!.reason).toMatch(/: accepted$/);
    // The supervisor's control checks its answer against the summary, not the documents.
    expect(users.at(-1)).toBe(controlUser(SUMMARY, 'final answer'));
  });

  it('summaryRouge is the mean of ROUGE-1, ROUGE-2 and ROUGE-L F1', () => {
    // "the cat sat" against "the cat sat on the mat": ROUGE-1 P 3/3, R 3/6, F 2/3;
    // ROUGE-2 P 2/2, R 2/5, F 4/7; ROUGE-L (LCS 3) F 2/3. Mean (2/3 + 4/7 + 2/3) / 3.
    expect(summaryRouge('The cat sat', 'the cat sat on the mat')).toBeCloseTo(
      (2 / 3 + 4 / 7 + 2 / 3) / 3,
      12,
    );
    expect(summaryRouge('dog', 'the cat sat')).toBe(0);
  });

  it('checks its options before anything is sent', async () => {
    server = await startForumDouble();
    await expect(
      retrieveWithModels(
        [{ id: 't1', text: QUESTION }],
        forumResources(server, new MemoryCallStore()),
        {
          ...DENSE,
          settings: { fbDepth: 3, positives: 5 },
        },
      ),
    ).rejects.toThrow('positives (5) cannot exceed fbDepth (3)');
    expect(server.requests).toHaveLength(0);
  });
});
