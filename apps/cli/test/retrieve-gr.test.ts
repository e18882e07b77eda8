import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE: scripted answers.
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

describe('assay retrieve gr-*: arguments', () => {
  it('checks --first-stage-k and --rerank-depth', async () => {
    const env = { ASSAY_DATA_DIR: '/nonexistent', OPENAI_API_KEY: 'k' };
    const base = ['retrieve', '--docs', 'd.jsonl', '--topics', 't.tsv', '--out', 'o.run'];
    const bm25 = await assay(env, ...base, '--method', 'bm25', '--first-stage-k', '10');
    expect(bm25.code).toBe(1);
    expect(bm25.stderr).toContain('--first-stage-k applies to the gr-* methods only');
    // A rerank depth means nothing without a reranker.
    const depth = await assay(env, ...base, '--method', 'gr-qd', '--rerank-depth', '10');
    expect(depth.code).toBe(1);
    expect(depth.stderr).toContain('--rerank-depth needs --reranker');
    const zero = await assay(env, ...base, '--method', 'gr-qd', '--first-stage-k', '0');
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain("--first-stage-k needs a positive integer, not '0'");
    const noModel = await assay(env, ...base, '--method', 'gr-aqd-a');
    expect(noModel.stderr).toContain('--method gr-aqd-a needs --model');
  });
});

function describeOn(kind: 'pglite' | 'postgres') {
  describe.runIf(kind === 'pglite' || testDatabaseUrl())(`assay retrieve gr-qd [${kind}]`, () => {
    let dir: string;
    let env: Env;
    let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'assay-gr-cli-'));
      writeFileSync(
        join(dir, 'docs.jsonl'),
        '{"id":"d1","text":"alpha beta"}\n{"id":"d2","text":"beta"}\n{"id":"d3","text":"gamma"}\n',
      );
      writeFileSync(
        join(dir, 'topics.jsonl'),
        '{"id":"1","text":"beta"}\n{"id":"2","text":"broken"}\n',
      );
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
        'gr-qd',
        '--model',
        'm',
        '--docs',
        join(dir, 'docs.jsonl'),
        '--topics',
        join(dir, 'topics.jsonl'),
        '--out',
        join(dir, out),
        ...extra,
      );

    it('--dry-run counts one queries call per topic and sends nothing', async () => {
      server = await startOpenAITestServer(() => ({ status: 500 }));
      const result = await retrieve('dry.run', '--dry-run');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('chat calls: at most 2 ');
      expect(server.requests).toHaveLength(0);
    });

    it('writes the interleaved run, the trace and the failed topic; a rerun sends nothing', async () => {
      server = await startOpenAITestServer((body) => {
        const user = (body.messages as Array<{ content: string }>)[1]!.content;
        return user.includes('User question: broken')
          ? { reply: 'not JSON' }
          : { reply: JSON.stringify({ queries: ['alpha', 'gamma', 'beta'] }) };
      });
      const first = await retrieve('gr.run', '--first-stage-k', '50');
      expect(first.code).toBe(5);
      expect(first.stderr).toContain(
        'topic 2 failed: gr-queries: unusable answer after 3 attempts: answer is not JSON',
      );
      // One call for topic 1, three attempts for topic 2.
      expect(server.requests).toHaveLength(4);
      const run = readFileSync(join(dir, 'gr.run'), 'utf8');
      expect(run).toContain('# method: gr-qd\n');
      expect(run).toContain('# gr.first-stage-k: 50\n');
      expect(run).toContain('# gr.max-queries: 5\n');
      expect(run).toContain('# failed topics: 2\n');
      // No reranker: BM25 lists alpha [d1], gamma [d3], beta [d2 d1] (d2 is shorter);
      // round robin: d1, d3, d2.
      const entries = run.split('\n').filter((l) => l && !l.startsWith('#'));
      expect(entries.map((l) => l.split(/\s+/).slice(0, 5).join(' '))).toEqual([
        '1 Q0 d1 1 3',
        '1 Q0 d3 2 2',
        '1 Q0 d2 3 1',
      ]);
      const trace = readFileSync(join(dir, 'gr.run.trace.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { topic: string; step: string; text: string });
      expect(trace.filter((t) => t.step === 'generated-query').map((t) => t.text)).toEqual([
        'alpha',
        'gamma',
        'beta',
      ]);
      expect(trace.at(-1)).toMatchObject({ topic: '2', step: 'failed' });

      const second = await retrieve('again.run', '--first-stage-k', '50');
      expect(server.requests).toHaveLength(4);
      expect(second.stderr).toContain('calls sent: 0');
      const strip = (text: string) => text.replace(/^# trace: .*$/m, '');
      expect(strip(readFileSync(join(dir, 'again.run'), 'utf8'))).toBe(strip(run));
    }, 300_000);
  });
}
describeOn('pglite');
describeOn('postgres');
