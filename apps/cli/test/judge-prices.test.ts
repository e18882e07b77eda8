// Prices for models assay has no list price for: --price-in/--price-out and the data
// directory's prices.json, for --dry-run's cost, a run's cost and --budget. Against the
// OpenAI-compatible TEST DOUBLE (never a judge), which reports 100 prompt and 10
// completion tokens per call.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { runCli } from '../src/main.js';
import type { JudgeCommandIo } from '../src/judging/judge-command.js';
import { gradedAnswer, POOL_SIZE, writeJudgeFixtures } from './judge-fixtures.js';

let dir: string;
let files: ReturnType<typeof writeJudgeFixtures>;
let server: TestServer | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'assay-judge-prices-'));
  files = writeJudgeFixtures(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function judge(dataDir: string, out: string, ...extra: string[]) {
  return judgeWith(['--model', 'local-model'], dataDir, out, ...extra);
}

async function judgeWith(model: string[], dataDir: string, out: string, ...extra: string[]) {
  let stdout = '';
  let stderr = '';
  const io: JudgeCommandIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { ASSAY_DATA_DIR: dataDir, OPENAI_API_KEY: 'test-key' },
    stderrIsTTY: false,
  };
  const argv = ['judge', '--judge', 'graded-0-3', ...model];
  argv.push('--topics', files.topics, '--docs', files.docs, '--pool', files.pool);
  argv.push('--out', join(dir, out), '--base-url', server?.baseURL ?? 'http://127.0.0.1:9');
  const code = await runCli([...argv, ...extra], io);
  return { code, stdout, stderr };
}

describe('assay judge: prices', () => {
  it('refuses --budget for a model without a price, saying how to give one', async () => {
    const data = join(dir, 'no-price');
    const r = await judge(data, 'none.qrels', '--budget', '1');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `--budget needs the price of local-model: give --price-in and --price-out (USD per million tokens), or add it to ${join(data, 'prices.json')}`,
    );
    expect((await judge(data, 'none.qrels', '--price-in', '1')).stderr).toContain(
      'give both --price-in and --price-out',
    );
    expect(
      (await judge(data, 'none.qrels', '--price-in', '-1', '--price-out', '1')).stderr,
    ).toContain('--price-in must be a number >= 0, got "-1"');
  });

  it('prices a dry run from prices.json, and --price-in/--price-out over it', async () => {
    const data = join(dir, 'dry');
    mkdirSync(data, { recursive: true });
    writeFileSync(
      join(data, 'prices.json'),
      JSON.stringify({ 'local-model': { input: 0, output: 2000 } }),
    );
    // 12 items × at most 256 completion tokens = 3072 tokens; prompts are free here.
    const fromFile = await judge(data, 'dry.qrels', '--dry-run');
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toContain(`at most ${POOL_SIZE * 256} completion`);
    // 3072 × 2000 / 1e6
    expect(fromFile.stdout).toContain('estimated cost: at most $6.1440');
    const flags = await judge(
      data,
      'dry.qrels',
      '--dry-run',
      '--price-in',
      '0',
      '--price-out',
      '1000',
    );
    // 3072 × 1000 / 1e6
    expect(flags.stdout).toContain('estimated cost: at most $3.0720');
  });

  it('stops at --budget with the prices of prices.json', async () => {
    const data = join(dir, 'budget');
    mkdirSync(data, { recursive: true });
    // Per call: 100 × 1000 / 1e6 + 10 × 10000 / 1e6 = 0.2 USD.
    writeFileSync(
      join(data, 'prices.json'),
      JSON.stringify({ 'local-model': { input: 1000, output: 10000 } }),
    );
    server = await startOpenAITestServer((body) => gradedAnswer(body));
    const r = await judge(data, 'budget.qrels', '--budget', '1', '--concurrency', '1');
    // Claiming stops once 1 USD is paid: after the fifth call.
    expect(r.code).toBe(6);
    expect(server.requests).toHaveLength(5);
    expect(r.stdout).toContain('5 calls paid');
    expect(r.stdout).toContain('$1.0000');
    expect(readFileSync(join(dir, 'budget.qrels'), 'utf8').trim().split('\n')).toHaveLength(5);
  });

  it('says "cost unknown" for a model without a price, never $0.0000', async () => {
    const data = join(dir, 'unpriced');
    server = await startOpenAITestServer((body) => gradedAnswer(body));
    const r = await judge(data, 'unpriced.qrels');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${POOL_SIZE} calls paid, 1.3k tokens, cost unknown`);
    expect(r.stdout).not.toContain('$0.0000');
    expect(r.stderr).toContain(
      `cost unknown for ${POOL_SIZE} calls: no price for local-model (give one with --price-in and --price-out, or in prices.json)`,
    );
    // The progress line says so too.
    expect(r.stderr).toMatch(/judging .*tokens 1\.3k {2}cost unknown/);
    expect(r.stderr).not.toContain('$0.0000');

    // Run again: nothing is left to pay for, and still no dollar figure.
    const again = await judge(data, 'unpriced.qrels');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 calls paid, 0 tokens, nothing paid');
    expect(again.stdout + again.stderr).not.toContain('$0.0000');
  });

  it('names a prices.json that is not a price table', async () => {
    const data = join(dir, 'bad');
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'prices.json'), JSON.stringify({ 'local-model': { input: 'cheap' } }));
    const r = await judge(data, 'bad.qrels', '--dry-run');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${join(data, 'prices.json')} at local-model.input:`);
  });
});

describe('assay judge: the model', () => {
  it('defaults to the model the judge template names when neither --model nor ASSAY_JUDGE_MODEL is given', async () => {
    const shipped = fileURLToPath(new URL('../../../judges/graded-0-3.md', import.meta.url));
    const judges = join(dir, 'judges');
    mkdirSync(judges, { recursive: true });
    const text = readFileSync(shipped, 'utf8').replace(
      /^model: \{ temperature: 0, max_tokens: 256 \}$/m,
      'model: { name: template-model, temperature: 0, max_tokens: 256 }',
    );
    expect(text).toContain('name: template-model');
    writeFileSync(join(judges, 'graded-0-3.md'), text);
    const r = await judgeWith(['--judges', judges], join(dir, 'tmpl'), 'tmpl.qrels', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('dry run: judge graded-0-3, model template-model,');
  });
});
