import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methodNeeds, MODEL_METHODS, parseMethodSettings, type ModelMethod } from '@assay/methods';
import { parseRun } from '@assay/trec';
// The OpenAI-compatible TEST DOUBLE, here answering any prompt from its JSON schema and
// injecting faults: 429s, 500s, dropped connections, malformed bodies, answers that are
// not JSON. It never ships.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { faultyAnswer } from '@assay/test-support/schema-answers';
import { cliWith, type Env } from './run-cli.js';

/** The CLI run in-process against `env`, progress not drawn. */
const assay = (env: Env, ...argv: string[]) => cliWith({ env, stderrIsTTY: false }, ...argv);

const DOCS = [
  { id: 'd1', text: 'wing flutter in wind tunnels' },
  { id: 'd2', text: 'shock waves and shock layers' },
  { id: 'd3', text: 'the flutter of a wing, and wing flutter again' },
  { id: 'd4', text: 'heat transfer in hypersonic flow' },
  { id: 'd5', text: 'boundary layer transition and heat transfer' },
  { id: 'd6', text: 'shock wave boundary layer interaction' },
];

const TOPICS = [
  {
    id: '1',
    text: 'wing flutter',
    previous_turns: ['I am studying aircraft structures', 'What causes vibration?'],
    user_background: ['I am an engineering student'],
  },
  { id: '2', text: 'shock waves near the boundary layer' },
];

describe('every method with models, end to end, against a faulty endpoint', () => {
  let dir: string;
  let server: TestServer;
  let env: Env;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'assay-methods-e2e-'));
    writeFileSync(join(dir, 'docs.jsonl'), DOCS.map((d) => `${JSON.stringify(d)}\n`).join(''));
    writeFileSync(join(dir, 'topics.jsonl'), TOPICS.map((t) => `${JSON.stringify(t)}\n`).join(''));
    writeFileSync(
      join(dir, 'qrels'),
      ['1 0 d1 2', '1 0 d3 3', '1 0 d4 0', '2 0 d2 2', '2 0 d6 3', '2 0 d5 1']
        .map((l) => `${l}\n`)
        .join(''),
    );
    server = await startOpenAITestServer(faultyAnswer);
    env = {
      ASSAY_DATA_DIR: join(dir, 'data'),
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: server.baseURL,
    };
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const retrieve = (method: ModelMethod, out: string) => {
    const args = ['retrieve', '--method', method, '--k', '5'];
    args.push('--docs', join(dir, 'docs.jsonl'), '--topics', join(dir, 'topics.jsonl'));
    // rerank and gr-aqd-a need a reranker: RankGPT, over the same faulty chat endpoint.
    const reranks = method === 'rerank' || method === 'gr-aqd-a';
    if (reranks) args.push('--reranker', 'rankgpt');
    const needs = methodNeeds(
      method,
      parseMethodSettings(method, reranks ? { reranker: 'rankgpt' } : {}),
    );
    if (needs.chat) args.push('--model', 'm');
    // llmforum embeds when it can: the paper's dense method.
    if (needs.embeddings !== 'none') args.push('--embedding-model', 'e');
    args.push('--out', join(dir, out));
    return assay(env, ...args);
  };

  it.each(MODEL_METHODS.map((m) => [m]))(
    '%s: a valid run that evaluates and pools; the same run again sends nothing',
    async (method) => {
      const first = await retrieve(method, `${method}.run`);
      expect(first.stderr).not.toMatch(/failed:/);
      expect(first.code).toBe(0);
      const text = readFileSync(join(dir, `${method}.run`), 'utf8');
      const run = parseRun(text, `${method}.run`);
      expect([...run.topics.keys()].sort()).toEqual(['1', '2']);
      for (const entries of run.topics.values()) {
        expect(entries.length).toBeGreaterThan(0);
        expect(entries.length).toBeLessThanOrEqual(5);
        for (const e of entries) expect(DOCS.map((d) => d.id)).toContain(e.docno);
      }

      const evaluated = await assay(
        env,
        'eval',
        '-m',
        'ndcg_cut.5',
        join(dir, 'qrels'),
        join(dir, `${method}.run`),
      );
      expect(evaluated.code).toBe(0);
      expect(evaluated.stdout).toMatch(/^ndcg_cut_5\s+all\s+[01]\.\d{4}$/m);
      const pooled = await assay(env, 'pool', '--depth', '3', join(dir, `${method}.run`));
      expect(pooled.code).toBe(0);
      expect(pooled.stdout.trim().split('\n').length).toBeGreaterThan(0);

      const sent = server.requests.length;
      const again = await retrieve(method, `${method}.again.run`);
      expect(again.code).toBe(0);
      expect(server.requests.length).toBe(sent);
      const body = (t: string) =>
        t
          .split('\n')
          .filter((l) => !l.startsWith('#'))
          .join('\n');
      expect(body(readFileSync(join(dir, `${method}.again.run`), 'utf8'))).toBe(body(text));
    },
    // Retries back off for real (up to a few seconds), and the first test creates the
    // embedded database.
    240_000,
  );

  it('judges a pool of the runs with the same faulty endpoint', async () => {
    const runs = MODEL_METHODS.map((m) => join(dir, `${m}.run`));
    const judged = await assay(
      env,
      'judge',
      '--judge',
      'graded-0-3',
      '--model',
      'm',
      '--topics',
      join(dir, 'topics.jsonl'),
      '--docs',
      join(dir, 'docs.jsonl'),
      '--depth',
      '3',
      ...runs,
      '--out',
      join(dir, 'llm.qrels'),
    );
    expect(judged.stderr).not.toMatch(/\bfailed: [1-9]/);
    expect(judged.code).toBe(0);
    const qrels = readFileSync(join(dir, 'llm.qrels'), 'utf8').trim().split('\n');
    expect(qrels.length).toBeGreaterThan(0);
    for (const line of qrels) expect(line).toMatch(/^[12] 0 d[1-6] [0-3]$/);
    // The endpoint did fail along the way: requests it never answered.
    expect(server.requests.length - server.delivered.length).toBeGreaterThan(3);
  }, 240_000);
});
