import { fileURLToPath } from 'node:url';
import { loadJudgeTemplates, type JudgeDeps } from '@assay/judge';
import { MemoryCallStore, OpenAIChatClient } from '@assay/llm';
import { answerQualityReport, keyedSeed, seededPermutation, trialSpread } from '@assay/stats';
import { afterEach, describe, expect, it } from 'vitest';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '@assay/test-support/openai-test-server';
import {
  comparativeOrder,
  parseGoldAnswers,
  parseResponses,
  parseScoredExamples,
  parseScoreLines,
  renderAnswersReport,
  scoreAnswers,
  splitExamples,
  type AnswerResponse,
} from '../src/index.js';

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));
const templates = loadJudgeTemplates(JUDGES);
const quality = templates.get('answer-quality')!;
const grounded = templates.get('rag-groundedness')!;
const settings = { model: 'judge-model' };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function deps(s: TestServer, store = new MemoryCallStore()): JudgeDeps {
  return {
    client: new OpenAIChatClient({ baseURL: s.baseURL, apiKey: 'test' }),
    store,
    sleep: async () => {},
  };
}

function userPrompt(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

/** Scores an answer text carries: "…[i=4 c=3 n=2 a=1]…". */
function scoresIn(text: string) {
  const m = /\[i=(\d) c=(\d) n=(\d) a=(\d)\]/.exec(text)!;
  return {
    informativeness: Number(m[1]),
    completeness: Number(m[2]),
    novelty: Number(m[3]),
    actionability: Number(m[4]),
  };
}

function reply(fields: Record<string, unknown>): Behaviour {
  return { reply: JSON.stringify(fields) };
}

const RESPONSES: AnswerResponse[] = [
  {
    topic: 'q1',
    system: 'alpha',
    query: 'best bike for a 10 km commute',
    answer: 'An e-bike [i=4 c=3 n=2 a=5]',
  },
  {
    topic: 'q1',
    system: 'beta',
    query: 'best bike for a 10 km commute',
    answer: 'A bike [i=1 c=1 n=0 a=1]',
  },
  {
    topic: 'q1',
    system: 'gamma',
    query: 'best bike for a 10 km commute',
    answer: 'A hybrid [i=3 c=3 n=3 a=3]',
  },
  {
    topic: 'q2',
    system: 'alpha',
    query: 'tortoise lifespan',
    answer: 'Over 100 years [i=5 c=4 n=4 a=2]',
  },
  { topic: 'q2', system: 'beta', query: 'tortoise lifespan', answer: 'Long [i=0 c=1 n=0 a=0]' },
  {
    topic: 'q2',
    system: 'gamma',
    query: 'tortoise lifespan',
    answer: '80-150 years [i=4 c=4 n=3 a=2]',
  },
];

describe('reading answer files', () => {
  it('reads responses and names file and line of a bad one', () => {
    const text = [
      '{"topic":"q1","system":"a","answer":"x","references":["d1","a text"]}',
      '',
      '{"topic":2,"system":"b","answer":"y","query":"why"}',
    ].join('\n');
    expect(parseResponses(text, 'r.jsonl')).toEqual([
      { topic: 'q1', system: 'a', answer: 'x', references: ['d1', 'a text'] },
      { topic: '2', system: 'b', answer: 'y', query: 'why' },
    ]);
    expect(() =>
      parseResponses(`${text}\n{"topic":"q1","system":"a","answer":"z"}`, 'r.jsonl'),
    ).toThrow('r.jsonl:4: system a already answered topic q1 on line 1');
    expect(() => parseResponses('{"topic":"q1","system":"a"}', 'r.jsonl')).toThrow(
      'r.jsonl:1: "answer" must be a non-empty string',
    );
    expect(() => parseResponses('{"topic":"q1",', 'r.jsonl')).toThrow('r.jsonl:1: not valid JSON');
    expect(() =>
      parseResponses('{"topic":"q","system":"a","answer":"x","references":[1]}', 'f'),
    ).toThrow('f:1: "references" must be a list of non-empty strings');
  });

  it('reads gold answers, examples on the judge scale, and score files', () => {
    expect(parseGoldAnswers('{"topic":"q1","answer":"A"}\n', 'g')).toEqual(new Map([['q1', 'A']]));
    const ex =
      '{"query":"q","answer":"a","scores":{"informativeness":4,"completeness":3,"novelty":2,"actionability":1}}';
    expect(parseScoredExamples(ex, quality, 'e')[0]!.scores.completeness).toBe(3);
    expect(() =>
      parseScoredExamples(ex.replace('"novelty":2', '"novelty":7'), quality, 'e'),
    ).toThrow('e:1: scores.novelty is 7, outside 0-5');
    expect(() => parseScoredExamples(ex.replace(',"actionability":1', ''), quality, 'e')).toThrow(
      'e:1: scores.actionability must be an integer',
    );
    const scores =
      '{"topic":"q1","system":"a","trial":1,"scores":{"x":2.5},"justification":"j"}\n{"topic":"q1","system":"a","trial":1,"scores":{"x":1}}';
    expect(() => parseScoreLines(scores, 's')).toThrow(
      's:2: topic q1, system a, trial 1 given twice',
    );
  });

  it('splits examples into K consecutive sets of near-equal size', () => {
    expect(splitExamples([1, 2, 3, 4, 5, 6, 7, 8], 2)).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);
    expect(splitExamples([1, 2, 3, 4, 5], 2)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(() => splitExamples([1], 2)).toThrow(/at least 2 examples/);
  });
});

describe('scoreAnswers', () => {
  it('scores pointwise, one call per answer, and a rerun is answered from the store', async () => {
    server = await startOpenAITestServer((body) =>
      reply({ ...scoresIn(userPrompt(body)), justification: 'because' }),
    );
    const store = new MemoryCallStore();
    const first = await scoreAnswers(
      { template: quality, responses: RESPONSES, settings },
      deps(server, store),
    );
    expect(server.requests).toHaveLength(6);
    expect(first.failures).toEqual([]);
    expect(first.scores.map((s) => [s.topic, s.system, s.trial])).toEqual([
      ['q1', 'alpha', 1],
      ['q1', 'beta', 1],
      ['q1', 'gamma', 1],
      ['q2', 'alpha', 1],
      ['q2', 'beta', 1],
      ['q2', 'gamma', 1],
    ]);
    for (const line of first.scores) {
      const r = RESPONSES.find((x) => x.topic === line.topic && x.system === line.system)!;
      expect(line.scores).toEqual(scoresIn(r.answer));
      expect(line.justification).toBe('because');
    }
    expect(first.calls).toMatchObject({ paid: 6, cached: 0 });
    const again = await scoreAnswers(
      { template: quality, responses: RESPONSES, settings },
      deps(server, store),
    );
    expect(server.requests).toHaveLength(6);
    expect(again.calls).toMatchObject({ paid: 0, cached: 6 });
    expect(again.scores).toEqual(first.scores);
  });

  it('shows a topic’s answers under letters in a seeded shuffle and maps the grades back', async () => {
    const prompts: string[] = [];
    server = await startOpenAITestServer((body) => {
      const text = userPrompt(body);
      prompts.push(text);
      // Grade each lettered answer by the scores its own text carries.
      const out: Record<string, unknown> = {};
      for (const m of text.matchAll(/\[([A-Z])\]\n([^\n]*)/g))
        out[m[1]!] = { ...scoresIn(m[2]!), justification: `about ${m[1]}` };
      return reply(out);
    });
    const result = await scoreAnswers(
      { template: quality, responses: RESPONSES, settings, mode: 'comparative', seed: 5 },
      deps(server),
    );
    expect(server.requests).toHaveLength(2);
    expect(result.failures).toEqual([]);
    for (const line of result.scores) {
      const r = RESPONSES.find((x) => x.topic === line.topic && x.system === line.system)!;
      expect(line.scores).toEqual(scoresIn(r.answer));
      expect(line.justification).toBe(`about ${line.label}`);
    }
    // The order: systems sorted by name, permuted by the topic's seed, letters A, B, C.
    for (const topic of ['q1', 'q2']) {
      const topicSeed = keyedSeed(5, topic);
      const expected = seededPermutation(3, topicSeed).map((i) => ['alpha', 'beta', 'gamma'][i]!);
      expect(result.orders![topic]).toEqual({ seed: topicSeed, systems: expected });
      expect(comparativeOrder(topic, ['gamma', 'alpha', 'beta'], 5).systems).toEqual(expected);
      const prompt = prompts.find((p) => p.includes(topic === 'q1' ? 'bike' : 'tortoise'))!;
      expected.forEach((system, i) => {
        const letter = 'ABC'[i]!;
        const answer = RESPONSES.find((x) => x.topic === topic && x.system === system)!.answer;
        expect(prompt).toContain(`[${letter}]\n${answer}`);
        expect(result.scores.find((s) => s.topic === topic && s.system === system)!.label).toBe(
          letter,
        );
      });
    }
    // The schema sent asks for every letter.
    const format = server.requests[0]!.body.response_format as {
      json_schema: { schema: { required: string[] } };
    };
    expect(format.json_schema.schema.required).toEqual(['A', 'B', 'C']);
  });

  it('re-asks an answer with a missing criterion or a score above 5, then reports it failed with its raw text', async () => {
    const seen = new Map<string, number>();
    server = await startOpenAITestServer((body) => {
      const text = userPrompt(body);
      const n = (seen.get(text) ?? 0) + 1;
      seen.set(text, n);
      const s = scoresIn(text);
      if (text.includes('An e-bike') && n === 1)
        return reply({
          informativeness: 4,
          completeness: 3,
          novelty: 2,
          justification: 'no actionability',
        });
      if (text.includes('A bike'))
        return reply({ ...s, novelty: 9, justification: 'off the scale' });
      return reply({ ...s, justification: 'ok' });
    });
    const result = await scoreAnswers(
      { template: quality, responses: RESPONSES.filter((r) => r.topic === 'q1'), settings },
      deps(server),
    );
    expect(result.scores.map((s) => s.system)).toEqual(['alpha', 'gamma']);
    expect(result.scores[0]!.scores).toEqual(scoresIn(RESPONSES[0]!.answer));
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatchObject({ topic: 'q1', system: 'beta', trial: 1 });
    expect(result.failures[0]!.reason).toMatch(
      /unreadable answer after 3 attempts: .*novelty must be <= 5/,
    );
    expect(result.failures[0]!.raw).toContain('"novelty":9');
    // alpha: 2 calls, beta: 3, gamma: 1.
    expect(server.requests).toHaveLength(6);
  });

  it('averages the K example-set evaluations and runs each trial as its own request', async () => {
    const examples = Array.from({ length: 4 }, (_, i) => ({
      query: `example query ${i + 1}`,
      answer: `example answer ${i + 1}`,
      scores: { informativeness: i, completeness: i, novelty: i, actionability: i },
    }));
    server = await startOpenAITestServer((body) => {
      const text = userPrompt(body);
      // The first set (examples 1–2) yields 2 on every criterion, the second (3–4) yields 5;
      // trial 2 (seed 2000) yields 1 less.
      const base = text.includes('example answer 1') ? 2 : 5;
      const v = base - (body.seed === 2000 ? 1 : 0);
      return reply({
        informativeness: v,
        completeness: v,
        novelty: v,
        actionability: v,
        justification: `set ${base}`,
      });
    });
    const result = await scoreAnswers(
      {
        template: quality,
        responses: RESPONSES.slice(0, 1),
        settings,
        examples,
        exampleSets: 2,
        trials: 2,
      },
      deps(server),
    );
    expect(server.requests).toHaveLength(4);
    const prompts = server.requests.map((r) => userPrompt(r.body));
    expect(
      prompts.filter(
        (p) =>
          p.includes('example answer 1') &&
          p.includes('example answer 2') &&
          !p.includes('example answer 3'),
      ),
    ).toHaveLength(2);
    expect(
      prompts.filter(
        (p) =>
          p.includes('example answer 3') &&
          p.includes('example answer 4') &&
          !p.includes('example answer 1'),
      ),
    ).toHaveLength(2);
    expect(server.requests.map((r) => r.body.seed ?? null).sort()).toEqual([
      2000,
      2000,
      null,
      null,
    ]);
    // Trial 1: (2 + 5) / 2 = 3.5; trial 2: (1 + 4) / 2 = 2.5.
    expect(result.scores.map((s) => [s.trial, s.scores.informativeness])).toEqual([
      [1, 3.5],
      [2, 2.5],
    ]);
    expect(result.scores[0]!.justification).toBe('[example set 1] set 2\n[example set 2] set 5');
  });

  it('judges groundedness against the references and correctness against the gold answer', async () => {
    server = await startOpenAITestServer(() =>
      reply({ groundedness: 5, answer_relevance: 4, correctness: 3, justification: 'j' }),
    );
    const responses: AnswerResponse[] = [
      {
        topic: 'q2',
        system: 'alpha',
        query: 'tortoise lifespan',
        answer: 'Over 100 years',
        references: ['d7', 'Giant tortoises pass 150.'],
      },
      { topic: 'q2', system: 'beta', query: 'tortoise lifespan', answer: 'Long' },
    ];
    const result = await scoreAnswers(
      {
        template: grounded,
        responses,
        settings,
        gold: new Map([['q2', 'Often 80 to 150 years.']]),
        documents: new Map([['d7', 'Tortoises can live over a century.']]),
      },
      deps(server),
    );
    expect(server.requests).toHaveLength(1);
    const prompt = userPrompt(server.requests[0]!.body);
    expect(prompt).toContain(
      '[1] Tortoises can live over a century.\n[2] Giant tortoises pass 150.',
    );
    expect(prompt).toContain('Reference answer:\nOften 80 to 150 years.');
    expect(result.scores).toEqual([
      {
        topic: 'q2',
        system: 'alpha',
        trial: 1,
        scores: { groundedness: 5, answer_relevance: 4, correctness: 3 },
        justification: 'j',
      },
    ]);
    expect(result.failures).toEqual([
      {
        topic: 'q2',
        system: 'beta',
        trial: 1,
        reason: "judge rag-groundedness needs the answer's references, and it has none",
      },
    ]);
  });

  it('refuses a comparative run with a judge that cannot compare, and a topic without request text', async () => {
    server = await startOpenAITestServer(() => ({ status: 500 }));
    await expect(
      scoreAnswers(
        { template: grounded, responses: RESPONSES, settings, mode: 'comparative' },
        deps(server),
      ),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      scoreAnswers(
        { template: quality, responses: [{ topic: 'q9', system: 'a', answer: 'x' }], settings },
        deps(server),
      ),
    ).rejects.toThrow(/no request text for topic q9/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('renderAnswersReport', () => {
  const rows = [
    { topic: 'q1', system: '<img src=x>', trial: 1, scores: { x: 4 } },
    { topic: 'q2', system: '<img src=x>', trial: 1, scores: { x: 2 } },
    { topic: 'q1', system: 'plain', trial: 1, scores: { x: 3 } },
    { topic: 'q2', system: 'plain', trial: 1, scores: { x: 3 } },
  ];
  const report = answerQualityReport(rows, { samples: 200 });
  const settings = { test: 'paired' as const, correction: 'holm' as const, alpha: 0.05 };

  it('renders system names from files as text in the HTML page', () => {
    const html = renderAnswersReport(report, 'html', { ...settings, spread: trialSpread(rows) });
    expect(html).toContain('&lt;img src=x&gt;');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('Trial spread');
  });

  it('gives JSON of exactly the report, and CSV with quoted cells', () => {
    expect(JSON.parse(renderAnswersReport(report, 'json', settings))).toEqual(
      JSON.parse(JSON.stringify(report)),
    );
    const csv = renderAnswersReport(report, 'csv', settings).split('\n');
    expect(csv[0]).toBe('system,criterion,n,mean,ci_low,ci_high,win_rate,win_rate_normalised');
    // <img src=x>: mean (4 + 2) / 2 = 3; wins q1 only (q2 goes to plain) → 0.5, normalised 0.5.
    expect(csv[1]).toMatch(/^<img src=x>,x,2,3,[0-9.]+,[0-9.]+,0\.5,0\.5$/);
  });
});
