import { existsSync, readFileSync } from 'node:fs';
import { listLabelSets, loadConfig, openDatabase } from '@assay/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { assay } from './run-cli.js';
import { listLlmCalls } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import type { Behaviour } from '@assay/test-support/openai-test-server';
import { describeOnEngines } from './cli-fixtures.js';
import { parsePoolFile } from '../src/judging/judge-items.js';
import {
  docNumber,
  expectedQrels,
  gradedAnswer,
  POOL_SIZE,
  judgeArgs,
  writeJudgeFixtures,
} from './judge-fixtures.js';

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

describeOnEngines('assay judge', { prefix: 'assay-judge-cli-' }, (ws) => {
  let files: ReturnType<typeof writeJudgeFixtures>;
  beforeAll(() => {
    files = writeJudgeFixtures(ws.dir);
  });

  const judge = (out: string, ...extra: string[]) =>
    assay(
      ws.env,
      'judge',
      ...judgeArgs(files, ws.path(out)),
      '--base-url',
      ws.double.server!.baseURL,
      ...extra,
    );

  it('--dry-run counts calls, tokens and cost and sends nothing', async () => {
    const server = await ws.double.start((body) => gradedAnswer(body));
    const dry = await judge('dry.qrels', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`${POOL_SIZE} pool items: 0 already labelled, 0 answered`);
    expect(dry.stdout).toContain(`calls to send: ${POOL_SIZE}`);
    expect(dry.stdout).toMatch(/estimated tokens: \d+ prompt \+ at most 3072 completion/);
    expect(dry.stdout).toMatch(/estimated cost: at most \$0\.\d{4}/);
    expect(server.requests).toHaveLength(0);
    expect(existsSync(ws.path('dry.qrels'))).toBe(false);
  });

  it('--budget stops with items pending; the same command without it finishes the rest', async () => {
    const server = await ws.double.start((body) => gradedAnswer(body));
    // 21 micro-USD a call: five calls reach 0.0001.
    const first = await judge('budget.qrels', '--budget', '0.0001', '--concurrency', '1');
    expect(first.code).toBe(6);
    expect(first.stderr).toContain('7 items not judged yet (the budget of $0.0001 was reached)');
    expect(readFileSync(ws.path('budget.qrels'), 'utf8').trim().split('\n')).toHaveLength(5);
    expect(server.requests).toHaveLength(5);

    const dry = await judge('budget.qrels', '--dry-run');
    expect(dry.stdout).toContain(`${POOL_SIZE} pool items: 5 already labelled`);
    expect(dry.stdout).toContain('calls to send: 7');

    const second = await judge('budget.qrels');
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('resuming label set "budget"');
    expect(readFileSync(ws.path('budget.qrels'), 'utf8')).toBe(expectedQrels());
    expect(server.requests).toHaveLength(POOL_SIZE);

    // Another label set over the same items costs nothing: every answer is stored.
    const again = await judge('again.qrels');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `(${POOL_SIZE} this run, ${POOL_SIZE} of them from stored answers); 0 calls paid`,
    );
    expect(server.requests).toHaveLength(POOL_SIZE);
  });

  it('lists failed items with their reason and raw answer, exits 5, and asks them anew next time', async () => {
    let broken = true;
    const server = await ws.double.start((body): Behaviour =>
      docNumber(body) === 3 && broken
        ? { reply: 'Hard to say. Maybe relevant?' }
        : gradedAnswer(body),
    );
    /** The document and seed of each request sent from `from` on. */
    const sent = (from: number) =>
      server.requests.slice(from).map((r) => [docNumber(r.body), r.body.seed ?? null]);
    // Another model than the tests above: no stored answers to reuse.
    const first = await judge('fail.qrels', '--concurrency', '4', '--model', 'gpt-4.1-nano');
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('1 items failed:');
    expect(first.stderr).toContain('1 × unreadable answer after 3 attempts');
    expect(first.stderr).toContain('101 D3: unreadable answer after 3 attempts');
    expect(first.stderr).toContain('answer: "Hard to say. Maybe relevant?"');
    // D3 asked three times: attempt 1 (no seed), then the re-asks with seeds 2 and 3.
    expect(sent(0).filter(([doc]) => doc === 3)).toEqual([
      [3, null],
      [3, 2],
      [3, 3],
    ]);
    const qrels = readFileSync(ws.path('fail.qrels'), 'utf8');
    expect(qrels).not.toMatch(/ D3 /);
    expect(qrels.trim().split('\n')).toHaveLength(POOL_SIZE - 1);

    // The dry run counts D3 as a call to send: its stored answer is no answer for the retry.
    const dry = await judge('fail.qrels', '--model', 'gpt-4.1-nano', '--dry-run');
    expect(dry.stdout).toContain(
      `${POOL_SIZE} pool items: ${POOL_SIZE - 1} already labelled, 0 answered by stored calls`,
    );
    expect(dry.stdout).toContain('calls to send: 1\n');

    // The rerun asks D3 anew: attempts 4 to 6 (seeds 4, 5, 6), not the stored answers of
    // attempts 1 to 3 again; the endpoint is still broken, so D3 fails again.
    const before = server.requests.length;
    const second = await judge('fail.qrels', '--model', 'gpt-4.1-nano');
    expect(second.code).toBe(5);
    expect(second.stderr).toContain('1 failed before and tried again');
    expect(second.stdout).toContain('3 calls paid');
    expect(sent(before)).toEqual([
      [3, 4],
      [3, 5],
      [3, 6],
    ]);

    const config = loadConfig(ws.env);
    const database = await openDatabase(config);
    try {
      // The unreadable answers of both tries are kept: 3 + 3.
      const calls = await listLlmCalls(database.db);
      expect(calls.filter((c) => c.response === 'Hard to say. Maybe relevant?')).toHaveLength(6);
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

    // Once the endpoint answers properly, the third try (attempt 7, seed 7) labels D3.
    broken = false;
    const third = await judge('fail.qrels', '--model', 'gpt-4.1-nano');
    expect(third.code, third.stderr).toBe(0);
    expect(sent(before + 3)).toEqual([[3, 7]]);
    expect(readFileSync(ws.path('fail.qrels'), 'utf8')).toBe(expectedQrels());
  });
});
