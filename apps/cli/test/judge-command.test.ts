import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listLabelSets, loadConfig, openDatabase } from '@assay/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliWith, type Env } from './run-cli.js';
import { createIsolatedSchema, listLlmCalls, testDatabaseUrl } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '../../../packages/llm/test/openai-test-server.js';
import { parsePoolFile } from '../src/judge-items.js';
import {
  docNumber,
  expectedQrels,
  gradedAnswer,
  POOL_SIZE,
  writeJudgeFixtures,
} from './judge-fixtures.js';

/** Runs the CLI in-process against the database `env` configures. */
function assay(env: Env, ...argv: string[]) {
  return cliWith({ env, stderrIsTTY: false }, ...argv);
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('assay judge: arguments', () => {
  it('needs a pool and a judge it knows', async () => {
    const env = { ASSAY_DATA_DIR: '/nonexistent', OPENAI_API_KEY: 'k' };
    const base = ['judge', '--topics', 't', '--docs', 'd.jsonl', '--out', 'o.qrels'];
    expect((await assay(env, ...base, '--judge', 'graded-0-3')).stderr).toContain(
      'give either --pool FILE or --depth K RUN...',
    );
    const unknown = await assay(env, ...base, '--judge', 'nope', '--pool', 'p');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no judge 'nope' \(known: .*graded-0-3/);
    const quality = await assay(env, ...base, '--judge', 'answer-quality', '--pool', 'p');
    expect(quality.stderr).toContain('pick a relevance judge');
  });

  it('reads pool files as assay pool writes them, with file:line errors', () => {
    expect(parsePoolFile('1\tD1\n\n2 D2\n', 'p')).toEqual([
      { topic: '1', docno: 'D1' },
      { topic: '2', docno: 'D2' },
    ]);
    expect(() => parsePoolFile('1\tD1\n1\tD1\n', 'p')).toThrow(
      'p:2: topic 1 document D1 is listed twice',
    );
    expect(() => parsePoolFile('1 D1 x\n', 'p')).toThrow('p:1: expected topic<TAB>docno');
  });
});

function describeOn(kind: 'pglite' | 'postgres') {
  describe.runIf(kind === 'pglite' || testDatabaseUrl())(`assay judge [${kind}]`, () => {
    let dir: string;
    let env: Env;
    let files: ReturnType<typeof writeJudgeFixtures>;
    let schema: Awaited<ReturnType<typeof createIsolatedSchema>> | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'assay-judge-cli-'));
      files = writeJudgeFixtures(dir);
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

    const judge = (out: string, ...extra: string[]) =>
      assay(
        env,
        'judge',
        '--judge',
        'graded-0-3',
        '--model',
        'gpt-4o-mini',
        '--topics',
        files.topics,
        '--docs',
        files.docs,
        '--pool',
        files.pool,
        '--out',
        join(dir, out),
        '--base-url',
        server!.baseURL,
        ...extra,
      );

    it('--dry-run counts calls, tokens and cost and sends nothing', async () => {
      server = await startOpenAITestServer((body) => gradedAnswer(body));
      const dry = await judge('dry.qrels', '--dry-run');
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(`${POOL_SIZE} pool items: 0 already labelled, 0 answered`);
      expect(dry.stdout).toContain(`calls to send: ${POOL_SIZE}`);
      expect(dry.stdout).toMatch(/estimated tokens: \d+ prompt \+ at most 3072 completion/);
      expect(dry.stdout).toMatch(/estimated cost: at most \$0\.\d{4}/);
      expect(server.requests).toHaveLength(0);
      expect(existsSync(join(dir, 'dry.qrels'))).toBe(false);
    });

    it('--budget stops with items pending; the same command without it finishes the rest', async () => {
      server = await startOpenAITestServer((body) => gradedAnswer(body));
      // 21 micro-USD a call: five calls reach 0.0001.
      const first = await judge('budget.qrels', '--budget', '0.0001', '--concurrency', '1');
      expect(first.code).toBe(6);
      expect(first.stderr).toContain('7 items not judged yet (the budget of $0.0001 was reached)');
      expect(readFileSync(join(dir, 'budget.qrels'), 'utf8').trim().split('\n')).toHaveLength(5);
      expect(server.requests).toHaveLength(5);

      const dry = await judge('budget.qrels', '--dry-run');
      expect(dry.stdout).toContain(`${POOL_SIZE} pool items: 5 already labelled`);
      expect(dry.stdout).toContain('calls to send: 7');

      const second = await judge('budget.qrels');
      expect(second.code).toBe(0);
      expect(second.stderr).toContain('resuming label set "budget"');
      expect(readFileSync(join(dir, 'budget.qrels'), 'utf8')).toBe(expectedQrels());
      expect(server.requests).toHaveLength(POOL_SIZE);

      // Another label set over the same items costs nothing: every answer is stored.
      const again = await judge('again.qrels');
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(
        `(${POOL_SIZE} this run, ${POOL_SIZE} of them from stored answers); 0 calls paid`,
      );
      expect(server.requests).toHaveLength(POOL_SIZE);
    });

    it('lists failed items with their reason and raw answer, exits 5, and tries them again next time', async () => {
      let broken = true;
      server = await startOpenAITestServer((body): Behaviour =>
        docNumber(body) === 3 && broken
          ? { reply: 'Hard to say. Maybe relevant?' }
          : gradedAnswer(body),
      );
      // Another model than the tests above: no stored answers to reuse.
      const first = await judge('fail.qrels', '--concurrency', '4', '--model', 'gpt-4.1-nano');
      expect(first.code).toBe(5);
      expect(first.stderr).toContain('1 items failed:');
      expect(first.stderr).toContain('1 × unreadable answer after 3 attempts');
      expect(first.stderr).toContain('101 D3: unreadable answer after 3 attempts');
      expect(first.stderr).toContain('answer: "Hard to say. Maybe relevant?"');
      const qrels = readFileSync(join(dir, 'fail.qrels'), 'utf8');
      expect(qrels).not.toMatch(/ D3 /);
      expect(qrels.trim().split('\n')).toHaveLength(POOL_SIZE - 1);

      // The stored unreadable answers are reused (free) and still unreadable.
      const before = server.requests.length;
      const second = await judge('fail.qrels', '--model', 'gpt-4.1-nano');
      expect(second.code).toBe(5);
      expect(second.stderr).toContain('1 failed before and tried again');
      expect(server.requests.length).toBe(before);

      const config = loadConfig(env);
      const database = await openDatabase(config);
      try {
        const calls = await listLlmCalls(database.db);
        expect(calls.filter((c) => c.response === 'Hard to say. Maybe relevant?')).toHaveLength(3);
        const sets = await listLabelSets(database.db, 'judge-files');
        expect(sets.find((s) => s.name === 'fail')).toMatchObject({
          kind: 'llm_judge',
          scaleMin: 0,
          scaleMax: 3,
          labelCount: POOL_SIZE - 1,
          config: {
            judgeId: 'graded-0-3',
            model: 'gpt-4.1-nano',
            promptHash: expect.stringMatching(/^[0-9a-f]{64}$/),
          },
        });
      } finally {
        await database.close();
      }

      // Once the endpoint answers properly (a new request: another model), all are labelled.
      broken = false;
      const third = await judge('fail-2.qrels', '--model', 'gpt-4o');
      expect(third.code).toBe(0);
      expect(readFileSync(join(dir, 'fail-2.qrels'), 'utf8')).toBe(expectedQrels());
    });
  });
}

describeOn('pglite');
describeOn('postgres');
