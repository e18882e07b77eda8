// `assay judge` through batches, against the TEST DOUBLE of the OpenAI Files and Batches
// endpoints (never a judge): batch files for offline engines (export, import), the Batch
// API with a partly failed batch, a run killed while it waits, and answer scoring.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import {
  startBatchTestServer,
  type BatchDoubleOptions,
  type BatchTestServer,
} from '../../../packages/llm/test/openai-batch-test-server.js';
import { describeOnEngines } from './cli-fixtures.js';
import {
  docNumber,
  expectedQrels,
  judgeArgs,
  POOL_SIZE,
  writeJudgeFixtures,
} from './judge-fixtures.js';
import { assay } from './run-cli.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

let server: BatchTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function double(options: BatchDoubleOptions): Promise<BatchTestServer> {
  server = await startBatchTestServer(options);
  return server;
}

/** The graded-0-3 answer the tests give: grade = document number mod 4. */
function graded(body: Record<string, unknown>): string {
  return JSON.stringify({ intent_match: 1, trustworthiness: 1, grade: docNumber(body) % 4 });
}

/** JSON with sorted keys, written here for the test (the request hash's documented form). */
function sorted(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sorted).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${sorted((value as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}
const hashOf = (body: Record<string, unknown>) =>
  createHash('sha256')
    .update(sorted({ endpoint: 'chat.completions', ...body }))
    .digest('hex');

describeOnEngines('assay judge with batches', { prefix: 'assay-batch-', timeout: 120_000 }, (w) => {
  it('exports the requests, imports an offline engine output, then judges with no live call', async () => {
    const files = writeJudgeFixtures(w.dir);
    const out = w.path('export.qrels');
    const requests = w.path('requests.jsonl');
    const s = await double({ answer: () => ({ error: 'unused' }) });
    const env = { ...w.env, OPENAI_BASE_URL: s.baseURL };
    const exported = await assay(
      env,
      'judge',
      ...judgeArgs(files, out),
      '--batch-export',
      requests,
    );
    expect(exported.stderr).not.toMatch(/Error/);
    expect(exported.code).toBe(0);
    const lines = readFileSync(requests, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            custom_id: string;
            method: string;
            url: string;
            body: Record<string, unknown>;
          },
      );
    expect(lines).toHaveLength(POOL_SIZE);
    for (const line of lines) {
      expect(line.method).toBe('POST');
      expect(line.url).toBe('/v1/chat/completions');
      expect(line.custom_id).toBe(hashOf(line.body));
      expect(line.body.model).toBe('gpt-4o-mini');
    }
    // The offline engine's output (as `vllm run-batch` writes it), with one line of no
    // request of ours and one unreadable line.
    const output = lines.map((line, i) =>
      JSON.stringify({
        id: `vllm-${i}`,
        custom_id: line.custom_id,
        response: {
          status_code: 200,
          body: {
            choices: [{ index: 0, message: { role: 'assistant', content: graded(line.body) } }],
            usage: { prompt_tokens: 100, completion_tokens: 10 },
          },
        },
        error: null,
      }),
    );
    output.push(
      JSON.stringify({ id: 'x', custom_id: 'not-ours', response: null, error: { message: 'x' } }),
    );
    output.push('{"truncated": ');
    const outputFile = w.path('output.jsonl');
    writeFileSync(outputFile, output.join('\n') + '\n');

    const judged = await assay(
      env,
      'judge',
      ...judgeArgs(files, out),
      '--batch-import',
      outputFile,
    );
    expect(judged.code).toBe(0);
    // 12 calls at half gpt-4o-mini's price: (100 × 0.075 + 10 × 0.3) / 1e6 = $0.0000105 each.
    expect(judged.stderr).toContain(`${POOL_SIZE} answers stored ($0.0001 at batch prices)`);
    expect(judged.stderr).toContain('1 match no request');
    expect(judged.stderr).toContain('no request has custom_id not-ours');
    expect(judged.stderr).toContain(`line ${POOL_SIZE + 2}: not JSON`);
    expect(judged.stdout).toContain(
      `${POOL_SIZE} this run, ${POOL_SIZE} of them from stored answers`,
    );
    expect(judged.stdout).toContain('0 calls paid');
    expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
    expect(s.chatRequests).toHaveLength(0);
  });

  it('an imported answer that does not fit the judge fails its item with what is wrong with it', async () => {
    const files = writeJudgeFixtures(w.dir);
    const out = w.path('unfit.qrels');
    // A model of its own: requests none of the other tests stored.
    const model = ['--model', 'gpt-4.1-mini'];
    const requests = w.path('unfit-requests.jsonl');
    const s = await double({ answer: () => ({ error: 'unused' }) });
    const env = { ...w.env, OPENAI_BASE_URL: s.baseURL };
    const exported = await assay(
      env,
      'judge',
      ...judgeArgs(files, out),
      ...model,
      '--batch-export',
      requests,
    );
    expect(exported.code, exported.stderr).toBe(0);
    const ids = readFileSync(requests, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { custom_id: string }).custom_id);
    expect(ids).toHaveLength(POOL_SIZE);
    // Every answer lacks the two fields graded-0-3 requires beside the grade.
    const outputFile = w.path('unfit-output.jsonl');
    writeFileSync(
      outputFile,
      ids
        .map((id, i) =>
          JSON.stringify({
            id: `vllm-${i}`,
            custom_id: id,
            response: {
              status_code: 200,
              body: {
                choices: [{ index: 0, message: { role: 'assistant', content: '{"grade": 0}' } }],
                usage: { prompt_tokens: 100, completion_tokens: 5 },
              },
            },
            error: null,
          }),
        )
        .join('\n') + '\n',
    );
    const judged = await assay(
      env,
      'judge',
      ...judgeArgs(files, out),
      ...model,
      '--batch-import',
      outputFile,
    );
    expect(judged.code, judged.stderr).toBe(5);
    expect(judged.stderr).toContain(`${POOL_SIZE} answers stored`);
    // Each item says what is wrong with its answer (and what the re-ask lacks), with the answer.
    const missing = 'the answer does not match the schema: $.intent_match is missing';
    expect(judged.stderr).toContain(`${POOL_SIZE} items failed:`);
    expect(judged.stderr).toContain(
      `  ${POOL_SIZE} × unreadable answer: ${missing}; asked again: no answer in the imported batch file (export what is missing with --batch-export)`,
    );
    expect(judged.stderr).toContain(`101 D0: unreadable answer: ${missing}; asked again:`);
    expect(judged.stderr).toContain('— answer: "{\\"grade\\": 0}"');
    expect(s.chatRequests).toHaveLength(0);
    // The re-asks are what an export now writes: one per item.
    const again = await assay(
      env,
      'judge',
      ...judgeArgs(files, out),
      ...model,
      '--batch-export',
      requests,
    );
    expect(again.stdout).toContain(`${POOL_SIZE} requests without a stored answer`);
  });

  it('submits a batch, polls it, and resubmits only the lines the error file names', async () => {
    const files = writeJudgeFixtures(w.dir);
    const out = w.path('api.qrels');
    // Another model than the other tests': requests of its own, none stored yet.
    const model = ['--model', 'gpt-4o'];
    // The first batch fails documents 0, 5 and 7; the second answers what it is given.
    const s = await double({
      answer: (body, _id, batch) =>
        batch === 1 && [0, 5, 7].includes(docNumber(body))
          ? { error: 'the server had an error' }
          : { reply: graded(body) },
    });
    const env = { ...w.env, OPENAI_BASE_URL: s.baseURL };
    const result = await assay(
      env,
      'judge',
      ...judgeArgs(files, out),
      ...model,
      '--batch',
      '--batch-poll',
      '0.01',
    );
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    expect(s.batches, result.stderr + result.stdout).toHaveLength(2);
    expect(s.uploads.map((u) => u.purpose)).toEqual(['batch', 'batch']);
    expect(s.batches[0]!.lines).toHaveLength(POOL_SIZE);
    expect(s.batches[1]!.lines.map((l) => docNumber(l.body)).sort()).toEqual([0, 5, 7]);
    expect(result.stderr).toContain('3 failed');
    expect(result.stderr).toMatch(/batch_1 in_progress: 0 of 12 done/);
    expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
    expect(s.chatRequests).toHaveLength(0);
    // The batch record is gone once imported: a rerun has nothing to do.
    const again = await assay(env, 'judge', ...judgeArgs(files, out), ...model, '--batch');
    expect(again.code, again.stderr).toBe(0);
    expect(s.batches).toHaveLength(2);
  });

  it('a run killed while it waits for its batch waits for the same batch when run again', async () => {
    if (!existsSync(join(root, 'apps/cli/dist/assay.mjs')))
      execFileSync(process.execPath, ['apps/cli/build.mjs'], { cwd: root });
    const files = writeJudgeFixtures(w.dir);
    const out = w.path('killed.qrels');
    const model = ['--model', 'gpt-4.1-nano'];
    let releaseFirst = false;
    const s = await double({
      answer: (body) => ({ reply: graded(body) }),
      // The first batch stays in progress until the killed run is gone.
      pollsInProgress: () => (releaseFirst ? 0 : Infinity),
    });
    const env = { ...w.env, OPENAI_BASE_URL: s.baseURL };
    const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
    if (!('DATABASE_URL' in env)) delete childEnv.DATABASE_URL;
    const child = spawn(
      process.execPath,
      [
        'apps/cli/bin/assay.js',
        'judge',
        ...judgeArgs(files, out),
        ...model,
        '--batch',
        '--batch-poll',
        '0.05',
      ],
      { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 100_000;
    while (!(s.batches[0] && s.batches[0].polls >= 2)) {
      if (Date.now() > deadline) throw new Error(`the batch was never polled:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGKILL');
    await exited;
    releaseFirst = true;
    const result = await assay(
      env,
      'judge',
      ...judgeArgs(files, out),
      ...model,
      '--batch',
      '--batch-poll',
      '0.01',
    );
    expect(result.code).toBe(0);
    expect(s.batches).toHaveLength(1);
    expect(result.stderr).toContain(`batch batch_1: ${POOL_SIZE} answers stored`);
    expect(readFileSync(out, 'utf8')).toBe(expectedQrels());
    expect(s.chatRequests).toHaveLength(0);
  });

  it('assay answers score --batch scores from a batch with no live call', async () => {
    // Two topics, two systems; the answer names its grade: informativeness = s + t.
    const responses = [0, 1].flatMap((t) =>
      ['a', 'b'].map((system, s) =>
        JSON.stringify({ topic: `q${t}`, system, query: `request ${t}`, answer: `<s${s} t${t}>` }),
      ),
    );
    const file = w.path('responses.jsonl');
    writeFileSync(file, responses.join('\n') + '\n');
    const s = await double({
      answer: (body) => {
        const user = (body.messages as Array<{ content: string }>)[1]!.content;
        const m = /<s(\d) t(\d)>/.exec(user)!;
        const grades = {
          informativeness: Number(m[1]) + Number(m[2]),
          completeness: 1,
          novelty: 2,
        };
        return { reply: JSON.stringify({ ...grades, actionability: 3, justification: 'ok' }) };
      },
    });
    const env = { ...w.env, OPENAI_BASE_URL: s.baseURL };
    const out = w.path('scores.jsonl');
    const args = ['answers', 'score', '--judge', 'answer-quality', '--model', 'gpt-4o-mini'];
    const r = await assay(
      env,
      ...args,
      '--responses',
      file,
      '--out',
      out,
      '--batch',
      '--batch-poll',
      '0.01',
    );
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    expect(s.batches).toHaveLength(1);
    expect(s.batches[0]!.lines).toHaveLength(4);
    expect(s.chatRequests).toHaveLength(0);
    const scores = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { topic: string; system: string; scores: Record<string, number> },
      );
    expect(scores.map((x) => [x.topic, x.system, x.scores.informativeness])).toEqual([
      ['q0', 'a', 0],
      ['q0', 'b', 1],
      ['q1', 'a', 1],
      ['q1', 'b', 2],
    ]);
    expect(r.stderr).toContain('0 calls paid');
    expect(r.stderr).toContain('4 answered from stored calls');
  });
});
