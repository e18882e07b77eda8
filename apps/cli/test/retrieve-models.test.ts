import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE: scripted answers and injected faults.
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '../../../packages/llm/test/openai-test-server.js';
import { cliWith, type Env } from './run-cli.js';

/** The CLI run in-process against `env`, progress not drawn. */
const assay = (env: Env, ...argv: string[]) => cliWith({ env, stderrIsTTY: false }, ...argv);

const QUESTIONS = JSON.stringify({
  clarification: 'Which beta?',
  assumption_probing: 'Is it Greek?',
  implication_probing: 'What follows?',
});

/** AMD's answers by prompt; topic "broken" gets prose where JSON is expected. */
function amdAnswer(user: string): Behaviour {
  if (user.startsWith('A user searched for:\nbroken')) return { reply: 'no JSON here' };
  if (user.startsWith('A user searched for:')) return { reply: QUESTIONS };
  if (user.includes('clarification dimension')) return { reply: 'alpha' };
  if (user.includes('assumption probing dimension')) return { reply: 'beta' };
  if (user.includes('implication probing dimension')) return { reply: 'gamma' };
  if (user.startsWith('The user searched for:'))
    return {
      reply: JSON.stringify({
        clarification: 'alpha',
        assumption_probing: 'beta',
        implication_probing: 'gamma',
      }),
    };
  return { status: 400, message: 'unexpected prompt' };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('assay retrieve with models: arguments', () => {
  it('needs the models a method uses and checks --aggregation', async () => {
    const env = { ASSAY_DATA_DIR: '/nonexistent', OPENAI_API_KEY: 'k' };
    const base = ['retrieve', '--docs', 'd.jsonl', '--topics', 't.tsv', '--out', 'o.run'];
    expect((await assay(env, ...base, '--method', 'bm25', '--model', 'm')).stderr).toContain(
      '--model applies to methods with models',
    );
    expect(
      (await assay(env, ...base, '--method', 'amd', '--aggregation', 'mean')).stderr,
    ).toContain("--aggregation for amd must be one of sparse, dense, rrf, not 'mean'");
    expect((await assay(env, ...base, '--method', 'query2doc', '--no-feedback')).stderr).toContain(
      '--no-feedback applies to amd only',
    );
  });
});

function describeOn(kind: 'pglite' | 'postgres') {
  describe.runIf(kind === 'pglite' || testDatabaseUrl())(`assay retrieve amd [${kind}]`, () => {
    let dir: string;
    let env: Env;
    let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'assay-methods-cli-'));
      writeFileSync(
        join(dir, 'docs.jsonl'),
        [
          '{"id":"d1","text":"alpha beta"}',
          '{"id":"d2","text":"beta"}',
          '{"id":"d3","text":"gamma"}',
        ]
          .map((l) => `${l}\n`)
          .join(''),
      );
      writeFileSync(join(dir, 'topics.tsv'), '1\tbeta\n2\tbroken\n');
      env = { ASSAY_DATA_DIR: join(dir, 'data'), OPENAI_API_KEY: 'test-key' };
      if (kind === 'postgres') {
        schema = await createIsolatedSchema(testDatabaseUrl()!);
        env.DATABASE_URL = schema.url;
      }
    });
    afterAll(async () => {
      await schema?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const retrieve = (out: string, ...extra: string[]) =>
      assay(
        { ...env, OPENAI_BASE_URL: server!.baseURL },
        'retrieve',
        '--method',
        'amd',
        '--model',
        'm',
        '--docs',
        join(dir, 'docs.jsonl'),
        '--topics',
        join(dir, 'topics.tsv'),
        '--out',
        join(dir, out),
        ...extra,
      );

    it('--dry-run prints the estimate and sends nothing', async () => {
      server = await startOpenAITestServer(() => ({ status: 500 }));
      const result = await retrieve('dry.run', '--dry-run');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('chat calls: at most 10 ');
      expect(result.stdout).toContain('nothing was sent.');
      expect(server.requests).toHaveLength(0);
    });

    it('writes the run, the trace and the failed topic; a rerun sends zero requests', async () => {
      server = await startOpenAITestServer((body, n) =>
        n === 1
          ? { status: 429, retryAfter: '0' }
          : amdAnswer((body.messages as Array<{ content: string }>)[1]!.content),
      );
      const first = await retrieve('amd.run');
      expect(first.stderr).toContain(
        'topic 2 failed: amd-questions: unusable answer after 3 attempts: answer is not JSON',
      );
      expect(first.code).toBe(5);
      // 1 refused + 5 for topic 1 + 3 attempts for topic 2.
      expect(server.requests).toHaveLength(9);
      const run = readFileSync(join(dir, 'amd.run'), 'utf8');
      expect(run).toContain('# method: amd\n');
      expect(run).toContain('# amd.aggregation: sparse\n');
      expect(run).toContain('# failed topics: 2\n');
      const entries = run.split('\n').filter((l) => l && !l.startsWith('#'));
      // BM25 (k1 0.9, b 0.4; N 3, avgdl 4/3) of beta×4 alpha gamma: idf(beta) = ln 1.6,
      // idf(alpha) = idf(gamma) = ln(8/3); tf parts 1.9/2.08 (d1, dl 2) and 1.9/1.81 (dl 1):
      // d1 = (4·0.470 + 0.981)·0.913 = 2.61, d2 = 4·0.470·1.050 = 1.97, d3 = 0.981·1.050 = 1.03.
      expect(entries.map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual([
        '1 Q0 d1',
        '1 Q0 d2',
        '1 Q0 d3',
      ]);
      const trace = readFileSync(join(dir, 'amd.run.trace.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { topic: string; step: string; text: string });
      expect(trace.find((t) => t.step === 'query')).toMatchObject({
        topic: '1',
        text: 'beta [SEP] beta [SEP] beta [SEP] alpha [SEP] beta [SEP] gamma',
      });
      expect(trace.at(-1)).toMatchObject({ topic: '2', step: 'failed' });

      const second = await retrieve('again.run');
      expect(server.requests).toHaveLength(9);
      expect(second.stderr).toContain('calls sent: 0');
      const strip = (text: string) => text.replace(/^# trace: .*$/m, '');
      expect(strip(readFileSync(join(dir, 'again.run'), 'utf8'))).toBe(strip(run));
    });

    it('hybrid: embeds the collection once; a rerun sends nothing', async () => {
      const vectors: Record<string, number[]> = {
        'alpha beta': [1, 0],
        beta: [0, 1],
        gamma: [1, 1],
        broken: [1, 0],
      };
      server = await startOpenAITestServer((body) => ({
        json: {
          data: (body.input as string[]).map((t, index) => ({ index, embedding: vectors[t] })),
        },
      }));
      const hybrid = (out: string) =>
        assay(
          { ...env, OPENAI_BASE_URL: server!.baseURL },
          'retrieve',
          '--method',
          'hybrid',
          '--embedding-model',
          'e',
          '--docs',
          join(dir, 'docs.jsonl'),
          '--topics',
          join(dir, 'topics.tsv'),
          '--out',
          join(dir, out),
        );
      const first = await hybrid('hybrid.run');
      expect(first.code).toBe(0);
      // The collection in one request; "beta" (topic 1) is d2's text, "broken" is new.
      expect(server.requests.map((r) => r.body.input)).toEqual([
        ['alpha beta', 'beta', 'gamma'],
        ['broken'],
      ]);
      const run = readFileSync(join(dir, 'hybrid.run'), 'utf8');
      expect(run).toContain('# embedding-model: e\n');
      // Topic 1 "beta": BM25 [d2, d1]; dense [0,1] → d2 (1), then d3 and d1 (1/√2 and 0):
      // d2 = 2/61, d1 = 1/62 + 1/63, d3 = 1/62.
      const topic1 = run
        .split('\n')
        .filter((l) => l.startsWith('1 '))
        .map((l) => l.split(/\s+/)[2]);
      expect(topic1).toEqual(['d2', 'd1', 'd3']);
      await hybrid('hybrid-again.run');
      expect(server.requests).toHaveLength(2);
    });
  });
}
describeOn('pglite');
describeOn('postgres');
