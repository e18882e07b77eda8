import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createIsolatedSchema, testDatabaseUrl } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE: scripted answers.
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '../../../packages/llm/test/openai-test-server.js';
import { cliWith, type Env } from './run-cli.js';

/** The CLI run in-process against `env`, progress not drawn. */
const assay = (env: Env, ...argv: string[]) => cliWith({ env, stderrIsTTY: false }, ...argv);

/** GRILL's answers by prompt: the rewrite, the binary-filter judge (no to "pear kiwi"), gaps. */
function grillAnswer(body: Record<string, unknown>): Behaviour {
  const user = (body.messages as Array<{ content: string }>)[1]!.content;
  if (user.includes("The user's current request:"))
    return { reply: JSON.stringify({ query: 'apple' }) };
  if (user.startsWith('Query: '))
    return { reply: JSON.stringify({ relevant: user.includes('\npear kiwi\n') ? 0 : 1 }) };
  if (user.startsWith('The information need:'))
    return { reply: JSON.stringify({ gaps: [{ gap: 'citrus', queries: ['lime'] }] }) };
  return { status: 400, message: 'unexpected prompt' };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('assay retrieve --method grill: arguments', () => {
  it('takes the grill options for grill only and checks them', async () => {
    const env = { ASSAY_DATA_DIR: '/nonexistent', OPENAI_API_KEY: 'k' };
    const base = ['retrieve', '--docs', 'd.jsonl', '--topics', 't.tsv', '--out', 'o.run'];
    expect((await assay(env, ...base, '--method', 'amd', '--rounds', '3')).stderr).toContain(
      '--rounds applies to grill only',
    );
    expect((await assay(env, ...base, '--method', 'bm25', '--decompose')).stderr).toContain(
      '--decompose applies to grill only',
    );
    expect(
      (await assay(env, ...base, '--method', 'grill', '--model', 'm', '--min-gain', 'x')).stderr,
    ).toContain("--min-gain needs a whole number of documents, not 'x'");
    expect(
      (await assay(env, ...base, '--method', 'grill', '--model', 'm', '--rerank-budget', '0'))
        .stderr,
    ).toContain("--rerank-budget needs a positive integer, not '0'");
    const index = await assay(
      env,
      'retrieve',
      '--method',
      'grill',
      '--model',
      'm',
      '--index',
      'i',
      '--topics',
      't',
      '--out',
      'o',
    );
    expect(index.stderr).toContain("--method grill reads the documents' text: give --docs FILE");
  });
});

function describeOn(kind: 'pglite' | 'postgres') {
  describe.runIf(kind === 'pglite' || testDatabaseUrl())(`assay retrieve grill [${kind}]`, () => {
    let dir: string;
    let env: Env;
    let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'assay-grill-cli-'));
      writeFileSync(
        join(dir, 'docs.jsonl'),
        ['apple pear', 'pear plum', 'pear kiwi', 'plum fig', 'lime', 'lemon']
          .map((text, i) => `${JSON.stringify({ id: `d${i + 1}`, text })}\n`)
          .join(''),
      );
      writeFileSync(join(dir, 'topics.tsv'), '1\tapple\n');
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
        'grill',
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

    it('--dry-run counts the rewrite, one judgment per document at most, the gap call', async () => {
      server = await startOpenAITestServer(() => ({ status: 500 }));
      const result = await retrieve('dry.run', '--dry-run');
      expect(result.code).toBe(0);
      // 1 rewrite + 6 documents (the collection bounds the judgments) + 1 gap analysis.
      expect(result.stdout).toContain('chat calls: at most 8 ');
      expect(server.requests).toHaveLength(0);
    });

    it('writes the run, its settings and the trace; a rerun sends zero requests', async () => {
      server = await startOpenAITestServer((body) => grillAnswer(body));
      const first = await retrieve('grill.run', '--rounds', '10', '--min-gain', '1');
      expect(first.stderr).not.toContain('failed');
      expect(first.code).toBe(0);
      // "apple" → [d1]; d1 → [d1 d3 d2] without d3 (judged no) = [d1 d2]; round 2: d2 →
      // [d2 d4 d3 d1] without d3, d4 new; round 3: d4 → [d4 d2], nothing new (saturated);
      // "lime" → [d5]. RRF (k 60): d1 = 2/61 + 1/63 = .048660, d2 = 1/62 + 1/61 + 1/62 =
      // .048651, d4 = 1/62 + 1/61, d5 = 1/61.
      const run = readFileSync(join(dir, 'grill.run'), 'utf8');
      const ranking = run
        .split('\n')
        .filter((l) => l.startsWith('1 '))
        .map((l) => l.split(/\s+/)[2]);
      expect(ranking).toEqual(['d1', 'd2', 'd4', 'd5']);
      expect(run).toContain('# method: grill\n');
      expect(run).toContain('# grill.rounds: 10\n');
      expect(run).toContain('# grill.min-gain: 1\n');
      expect(run).toContain('# grill.rerank-budget: 500\n');
      expect(run).toContain('# grill.filter: binary-filter\n');
      // 1 rewrite, 5 judgments (d1 d3 d2 d4 d5), 1 gap analysis.
      expect(server.requests).toHaveLength(7);
      const trace = readFileSync(join(dir, 'grill.run.trace.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(trace.filter((t) => t.step === 'filtered-out')).toEqual([
        {
          topic: '1',
          method: 'grill',
          stage: 'expansion',
          round: 1,
          docno: 'd3',
          step: 'filtered-out',
          prompt: 'binary-filter',
          text: 'apple',
        },
      ]);
      expect(trace.filter((t) => t.step === 'round').map((t) => t.stop)).toEqual([
        undefined,
        undefined,
        'saturated',
      ]);

      const second = await retrieve('again.run', '--rounds', '10', '--min-gain', '1');
      expect(server.requests).toHaveLength(7);
      expect(second.stderr).toContain('calls sent: 0');
      const strip = (text: string) => text.replace(/^# trace: .*$/m, '');
      expect(strip(readFileSync(join(dir, 'again.run'), 'utf8'))).toBe(strip(run));
      // Two runs, each opening (and the first migrating) the database: slow on a busy machine.
    }, 120_000);
  });
}
describeOn('pglite');
describeOn('postgres');
