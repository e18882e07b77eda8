import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE: scripted answers and injected faults.
import {
  startOpenAITestServer,
  type TestServer,
} from '../../../packages/llm/test/openai-test-server.js';
import { cliWith, type Env } from './run-cli.js';

/** The CLI run in-process against `env`, progress not drawn. */
const assay = (env: Env, ...argv: string[]) => cliWith({ env, stderrIsTTY: false }, ...argv);

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('assay retrieve --reranker: arguments', () => {
  const env = { ASSAY_DATA_DIR: '/nonexistent', OPENAI_API_KEY: 'k' };
  const base = ['retrieve', '--docs', 'd.jsonl', '--topics', 't.tsv', '--out', 'o.run'];
  it.each([
    [['--method', 'rerank'], '--method rerank needs --reranker cross-encoder or rankgpt'],
    [
      ['--method', 'rerank', '--reranker', 'mono'],
      "--reranker must be cross-encoder or rankgpt, not 'mono'",
    ],
    [
      ['--method', 'rerank', '--reranker', 'cross-encoder'],
      '--reranker cross-encoder needs --reranker-model',
    ],
    [['--method', 'rerank', '--reranker', 'rankgpt'], '--method rerank needs --model'],
    [
      ['--method', 'rerank', '--reranker', 'rankgpt', '--model', 'm', '--reranker-model', 'x'],
      '--reranker-model applies to cross-encoder; rankgpt uses --model',
    ],
    [
      [
        '--method',
        'rerank',
        '--reranker',
        'cross-encoder',
        '--reranker-model',
        'x',
        '--rankgpt-window',
        '5',
      ],
      '--rankgpt-window applies to --reranker rankgpt',
    ],
    [
      ['--method', 'rerank', '--reranker', 'rankgpt', '--model', 'm', '--rankgpt-window', '5'],
      '--rankgpt-step (10) must not exceed --rankgpt-window (5)',
    ],
    [['--method', 'amd', '--model', 'm', '--rerank-depth', '5'], '--rerank-depth needs --reranker'],
    [['--method', 'bm25', '--reranker', 'rankgpt'], '--reranker applies to methods with models'],
    [
      ['--method', 'rerank', '--reranker', 'rankgpt', '--model', 'm', '--rerank-depth', '0'],
      "--rerank-depth needs a positive integer, not '0'",
    ],
  ])('%j', async (extra, message) => {
    const result = await assay(env, ...base, ...extra);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });

  it('a reranker reads the documents: --index is refused', async () => {
    const result = await assay(
      env,
      'retrieve',
      '--index',
      'i.idx',
      '--topics',
      't.tsv',
      '--out',
      'o.run',
      '--method',
      'rerank',
      '--reranker',
      'cross-encoder',
      '--reranker-model',
      'x',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--method rerank reads the documents' text: give --docs FILE");
  });
});

function describeOn(kind: 'pglite' | 'postgres') {
  // Generous timeouts: the first command creates the embedded database.
  describe.runIf(kind === 'pglite' || testDatabaseUrl())(
    `assay retrieve rerank [${kind}]`,
    { timeout: 120_000 },
    () => {
      let dir: string;
      let env: Env;
      let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'assay-rerank-cli-'));
        writeFileSync(
          join(dir, 'docs.jsonl'),
          '{"id":"d1","text":"alpha beta"}\n{"id":"d2","text":"beta"}\n{"id":"d3","text":"gamma"}\n',
        );
        writeFileSync(join(dir, 'topics.tsv'), '1\tbeta\n');
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
          '--docs',
          join(dir, 'docs.jsonl'),
          '--topics',
          join(dir, 'topics.tsv'),
          '--out',
          join(dir, out),
          ...extra,
        );

      it('cross-encoder: reorders BM25 by the endpoint scores; a rerun sends nothing', async () => {
        const scores: Record<string, number> = { 'alpha beta': 0.8, beta: 0.3 };
        server = await startOpenAITestServer((body) => ({
          json: {
            results: (body.documents as string[]).map((d, index) => ({
              index,
              relevance_score: scores[d],
            })),
          },
        }));
        const args = [
          '--method',
          'rerank',
          '--reranker',
          'cross-encoder',
          '--reranker-model',
          'minilm',
        ];
        const first = await retrieve('ce.run', ...args);
        expect(first.code).toBe(0);
        // BM25 "beta": d2 (dl 1) above d1 (dl 2); d3 does not match.
        expect(server.requests.map((r) => [r.path, r.body.documents])).toEqual([
          ['/v1/rerank', ['beta', 'alpha beta']],
        ]);
        const run = readFileSync(join(dir, 'ce.run'), 'utf8');
        expect(run).toContain('# reranker: cross-encoder:minilm\n');
        expect(run).toContain('# rerank.depth: 100\n');
        expect(
          run
            .split('\n')
            .filter((l) => l && !l.startsWith('#'))
            .map((l) => l.split(/\s+/).slice(2, 5).join(' ')),
        ).toEqual(['d1 1 0.8', 'd2 2 0.3']);
        await retrieve('ce-again.run', ...args);
        expect(server.requests).toHaveLength(1);
      });

      it('rankgpt: one window with --model; settings in the header', async () => {
        server = await startOpenAITestServer(() => ({ reply: '[2] > [1]' }));
        const result = await retrieve(
          'gpt.run',
          '--method',
          'rerank',
          '--reranker',
          'rankgpt',
          '--model',
          'm',
          '--rankgpt-words',
          '50',
        );
        expect(result.stderr + result.code).not.toMatch(/[1-9]$/);
        expect(server.requests).toHaveLength(1);
        const run = readFileSync(join(dir, 'gpt.run'), 'utf8');
        expect(run).toContain('# reranker: rankgpt:m\n');
        expect(run).toContain('# rankgpt.passage-words: 50\n');
        expect(run).toContain('# rankgpt.window: 20\n');
        expect(
          run
            .split('\n')
            .filter((l) => l && !l.startsWith('#'))
            .map((l) => l.split(/\s+/)[2]),
        ).toEqual(['d1', 'd2']);
        const trace = readFileSync(join(dir, 'gpt.run.trace.jsonl'), 'utf8');
        expect(JSON.parse(trace.trim())).toMatchObject({
          topic: '1',
          method: 'rankgpt',
          step: 'permutation',
          text: '1-2: [2] > [1]',
        });
      });

      it('--dry-run counts the RankGPT windows of --rerank-depth and sends nothing', async () => {
        server = await startOpenAITestServer(() => ({ status: 500 }));
        const rankgpt = await retrieve(
          'dry.run',
          '--method',
          'rerank',
          '--reranker',
          'rankgpt',
          '--model',
          'm',
          '--dry-run',
        );
        // Depth 100, window 20, step 10: windows start at 80, 70, …, 0.
        expect(rankgpt.stdout).toContain('chat calls: at most 9 ');
        const cross = await retrieve(
          'dry.run',
          '--method',
          'rerank',
          '--reranker',
          'cross-encoder',
          '--reranker-model',
          'minilm',
          '--dry-run',
        );
        expect(cross.stdout).toContain('rerank requests (minilm) are not counted or priced.');
        expect(server.requests).toHaveLength(0);
      });

      it('--budget runs an embedding method with a priced embeddings model', async () => {
        const vectors: Record<string, number[]> = {
          'alpha beta': [1, 0],
          beta: [0, 1],
          gamma: [1, 1],
        };
        server = await startOpenAITestServer((body) => ({
          json: {
            data: (body.input as string[]).map((t, index) => ({ index, embedding: vectors[t] })),
            usage: { prompt_tokens: 10 },
          },
        }));
        const result = await retrieve(
          'dense.run',
          '--method',
          'dense',
          '--embedding-model',
          'text-embedding-3-small',
          '--budget',
          '1',
        );
        expect(result.stderr).not.toContain('does not know');
        expect(result.stderr + result.code).not.toMatch(/[1-9]$/);
        expect(readFileSync(join(dir, 'dense.run'), 'utf8')).toContain('# budget-usd: 1\n');
      });
    },
  );
}
describeOn('pglite');
describeOn('postgres');
