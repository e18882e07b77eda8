// The RAG steps and answer scoring through batches, against TEST DOUBLES (never a judge):
// the OpenAI-compatible chat double, which must receive no request, and the double of the
// OpenAI Files and Batches endpoints. Batch files for offline engines (export, import, a
// second run with zero live calls) and the Batch API (submit, poll, import).
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import {
  startBatchTestServer,
  type BatchDoubleOptions,
  type BatchTestServer,
} from '../../../packages/llm/test/openai-batch-test-server.js';
import { describeOnEngines } from './cli-fixtures.js';
import { assay } from './run-cli.js';

let server: BatchTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function batchDouble(options: BatchDoubleOptions): Promise<BatchTestServer> {
  server = await startBatchTestServer(options);
  return server;
}

const DOCS = [
  ['d1', 'Solar power turns sunlight into electricity.'],
  ['d2', 'Wind power uses turbines.'],
];

/** Two systems' answers to t1, each citing d1 in its one sentence. */
const ANSWERS = [
  ['S1', 'Solar power and wind power help.'],
  ['S2', 'Coal is black.'],
]
  .map(([system, text]) =>
    JSON.stringify({
      run_id: system,
      topic_id: 't1',
      topic: 'energy sources',
      references: ['d1'],
      response_length: 5,
      answer: [{ text, citations: [0] }],
    }),
  )
  .join('\n');

const BANK = JSON.stringify({
  qid: 't1',
  nuggets: [
    { text: 'solar power', importance: 'vital' },
    { text: 'wind power', importance: 'okay' },
  ],
});

function userOf(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

function numbered(block: string): string[] {
  return [...block.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => m[2]!);
}

/** The assignment rule: a nugget the answer holds is supported, else not. */
function assignAnswer(body: Record<string, unknown>): string {
  const user = userOf(body);
  const answer = /The answer to check:\n([\s\S]*?)\n\nNuggets, numbered:/.exec(user)![1]!;
  const nuggets = numbered(user.split('Nuggets, numbered:\n')[1]!.split('\n\n')[0]!);
  return JSON.stringify(
    Object.fromEntries(
      nuggets.map((n, i) => [
        String(i + 1),
        answer.toLowerCase().includes(n) ? 'support' : 'not_support',
      ]),
    ),
  );
}

/** Batch output lines as `vllm run-batch` writes them: every request answered by `answer`. */
function batchOutput(
  requests: Array<{ custom_id: string; body: Record<string, unknown> }>,
  answer: (body: Record<string, unknown>) => string,
): string {
  return requests
    .map((r, i) =>
      JSON.stringify({
        id: `vllm-${i}`,
        custom_id: r.custom_id,
        response: {
          status_code: 200,
          body: {
            choices: [{ index: 0, message: { role: 'assistant', content: answer(r.body) } }],
            usage: { prompt_tokens: 100, completion_tokens: 10 },
          },
        },
        error: null,
      }),
    )
    .map((l) => `${l}\n`)
    .join('');
}

function requestsOf(file: string): Array<{ custom_id: string; body: Record<string, unknown> }> {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { custom_id: string; body: Record<string, unknown> });
}

describeOnEngines(
  'RAG steps and answer scoring through batches',
  {
    prefix: 'assay-rag-batch-',
    timeout: 240_000,
    files: {
      'docs.jsonl': DOCS.map(([id, text]) => JSON.stringify({ id, text })).join('\n'),
      'topics.tsv': 't1\tenergy sources\n',
      'bank.jsonl': `${BANK}\n`,
      'answers.jsonl': ANSWERS,
    },
  },
  (ws) => {
    it('nuggets assign: --batch-export, --batch-import, then a run with zero live calls', async () => {
      // The chat double answers nothing: a request reaching it fails the test.
      const chat = await ws.double.start(() => ({ status: 500, message: 'no live call' }));
      const env = { ...ws.env, OPENAI_BASE_URL: chat.baseURL };
      expect(
        (await assay(env, 'import', 'collection', '--name', 'rag', ws.path('docs.jsonl'))).code,
      ).toBe(0);
      expect(
        (await assay(env, 'import', 'topics', '--collection', 'rag', ws.path('topics.tsv'))).code,
      ).toBe(0);
      expect(
        (
          await assay(
            env,
            'nuggets',
            'import',
            ws.path('bank.jsonl'),
            '--collection',
            'rag',
            '--bank',
            'bank',
          )
        ).code,
      ).toBe(0);
      const assign = [
        'nuggets',
        'assign',
        '--collection',
        'rag',
        '--bank',
        'bank',
        '--responses',
        ws.path('answers.jsonl'),
        '--name',
        'llm',
        '--model',
        'gpt-4o-mini',
        '--out',
        ws.path('assign.jsonl'),
      ];
      const exported = await assay(env, ...assign, '--batch-export', ws.path('requests.jsonl'));
      expect(exported.stderr).not.toMatch(/Error/);
      expect(exported.code).toBe(0);
      // One prompt per answer (both nuggets in one batch of 10).
      const requests = requestsOf(ws.path('requests.jsonl'));
      expect(requests).toHaveLength(2);
      expect(exported.stdout).toContain('2 requests without a stored answer');

      writeFileSync(ws.path('output.jsonl'), batchOutput(requests, assignAnswer));
      const imported = await assay(env, ...assign, '--batch-import', ws.path('output.jsonl'));
      expect(imported.stderr).not.toMatch(/Error/);
      expect(imported.code).toBe(0);
      // 2 answers at half gpt-4o-mini's price: 2 × (100 × 0.075 + 10 × 0.3) / 2 / 1e6.
      expect(imported.stderr).toContain('2 answers stored ($0.0000 at batch prices)');
      expect(imported.stderr).toContain('0 calls paid');
      expect(imported.stdout).toContain('4 items judged, 0 failed');
      // S1 holds both nuggets; S2 neither.
      const records = readFileSync(ws.path('assign.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as {
              system: string;
              nuggets: Array<{ text: string; assignment: string }>;
            },
        );
      expect(records.map((r) => [r.system, r.nuggets.map((n) => n.assignment)])).toEqual([
        ['S1', ['support', 'support']],
        ['S2', ['not_support', 'not_support']],
      ]);

      const again = await assay(env, ...assign);
      expect(again.code).toBe(0);
      expect(again.stderr).toContain('0 calls paid');
      expect(again.stderr).toContain('2 prompts answered by stored calls');
      expect(chat.requests).toHaveLength(0);

      // Nothing left to ask: the export is empty.
      const none = await assay(env, ...assign, '--batch-export', ws.path('none.jsonl'));
      expect(none.stdout).toContain('0 requests without a stored answer');
      expect(readFileSync(ws.path('none.jsonl'), 'utf8')).toBe('');
    });

    it('answers score: --batch-export, --batch-import, then a run with zero live calls', async () => {
      const chat = await ws.double.start(() => ({ status: 500, message: 'no live call' }));
      const env = { ...ws.env, OPENAI_BASE_URL: chat.baseURL };
      const responses = ['a', 'b'].map((system, s) =>
        JSON.stringify({ topic: 'q1', system, query: 'request', answer: `<s${s}>` }),
      );
      writeFileSync(ws.path('responses.jsonl'), `${responses.join('\n')}\n`);
      const score = [
        'answers',
        'score',
        '--judge',
        'answer-quality',
        '--model',
        'gpt-4o-mini',
        '--responses',
        ws.path('responses.jsonl'),
        '--out',
        ws.path('scores.jsonl'),
      ];
      const exported = await assay(env, ...score, '--batch-export', ws.path('score-req.jsonl'));
      expect(exported.code).toBe(0);
      const requests = requestsOf(ws.path('score-req.jsonl'));
      expect(requests).toHaveLength(2);
      // informativeness = the system's number + 1.
      const grade = (body: Record<string, unknown>) =>
        JSON.stringify({
          informativeness: Number(/<s(\d)>/.exec(userOf(body))![1]) + 1,
          completeness: 1,
          novelty: 2,
          actionability: 3,
          justification: 'ok',
        });
      writeFileSync(ws.path('score-out.jsonl'), batchOutput(requests, grade));
      const imported = await assay(env, ...score, '--batch-import', ws.path('score-out.jsonl'));
      expect(imported.code).toBe(0);
      expect(imported.stderr).toContain('2 answers stored');
      expect(imported.stderr).toContain('0 calls paid');
      const scores = readFileSync(ws.path('scores.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { system: string; scores: Record<string, number> });
      expect(scores.map((x) => [x.system, x.scores.informativeness])).toEqual([
        ['a', 1],
        ['b', 2],
      ]);
      const again = await assay(env, ...score);
      expect(again.code).toBe(0);
      expect(again.stderr).toContain('0 calls paid');
      expect(again.stderr).toContain('2 answered from stored calls');
      expect(chat.requests).toHaveLength(0);
    });

    it('support assign --batch-api: submits, polls and imports the batch, then assesses with no live call', async () => {
      // The support rule: a passage sharing a word of more than 3 letters is full support.
      const s = await batchDouble({
        answer: (body) => {
          const user = userOf(body);
          const sentence = /The sentence: (.*)\n/.exec(user)![1]!.toLowerCase();
          const passages = numbered(
            user.split('Cited passages, numbered:\n')[1]!.split('\n\n')[0]!,
          );
          const label = (p: string) =>
            sentence
              .replace(/[^a-z ]/g, '')
              .split(' ')
              .some((w) => w.length > 3 && p.toLowerCase().includes(w))
              ? 'full'
              : 'none';
          return {
            reply: JSON.stringify(
              Object.fromEntries(passages.map((p, i) => [String(i + 1), label(p)])),
            ),
          };
        },
      });
      const env = { ...ws.env, OPENAI_BASE_URL: s.baseURL };
      const support = [
        'support',
        'assign',
        '--collection',
        'rag',
        '--response-set',
        'answers',
        '--name',
        'sup',
        '--model',
        'gpt-4o-mini',
        '--out',
        ws.path('support.jsonl'),
      ];
      const result = await assay(env, ...support, '--batch-api', '--batch-poll', '0.01');
      expect(result.stderr).not.toMatch(/Error/);
      expect(result.code).toBe(0);
      // One batch of the two sentences' prompts; no chat request went out live.
      expect(s.batches).toHaveLength(1);
      expect(s.batches[0]!.lines).toHaveLength(2);
      expect(s.chatRequests).toHaveLength(0);
      expect(result.stderr).toMatch(/batch batch_1 in_progress: 0 of 2 done/);
      expect(result.stderr).toContain('2 answers stored');
      expect(result.stderr).toContain('0 calls paid');
      // "Solar power and wind power help." shares "solar" and "power" with d1; "Coal is black." nothing.
      const text = readFileSync(ws.path('support.jsonl'), 'utf8');
      expect(text).toContain('"full"');
      expect(text).toContain('"none"');
      const again = await assay(env, ...support);
      expect(again.code).toBe(0);
      expect(s.chatRequests).toHaveLength(0);
      expect(s.batches).toHaveLength(1);
    });
  },
);
