#!/usr/bin/env node
// Answer-quality evaluation, timed.
//
// score:  `assay answers score` over synthetic answers (S systems × T topics) against the
//         OpenAI-compatible TEST DOUBLE (packages/llm/test/openai-test-server.ts, never a
//         judge) answering every request after a fixed latency, on a fresh embedded PGlite.
//         With concurrency C and latency L the ideal is C / L evaluations per second. The
//         same command is then run again: every answer comes from the call store.
// report: `assay answers report --format json` over a synthetic score file (S systems ×
//         T topics × N trials, four criteria, 10,000 bootstrap resamples per system and
//         criterion) and prints its wall time.
//
//   npm run build && node bench/answers.mjs [--systems S] [--topics T] [--trials N]
//        [--concurrency C] [--latency MS] [--report-topics T]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i < 0 ? fallback : Number(args[i + 1]);
};
const systems = option('--systems', 3);
const topics = option('--topics', 200);
const trials = option('--trials', 1);
const concurrency = option('--concurrency', 32);
const latencyMs = option('--latency', 100);
const reportTopics = option('--report-topics', 1000);

const bin = join(root, 'apps/cli/bin/assay.js');
if (!existsSync(join(root, 'apps/cli/dist/assay.mjs'))) {
  console.error('build the CLI first: npm run build');
  process.exit(1);
}
const cache = join(root, 'node_modules/.cache/assay-bench');
const doubleFile = join(cache, 'openai-test-server-answers.mjs');
await build({
  entryPoints: [join(root, 'packages/llm/test/openai-test-server.ts')],
  outfile: doubleFile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
});
const { startOpenAITestServer } = await import(pathToFileURL(doubleFile).href);

const scratch = mkdtempSync(join(tmpdir(), 'assay-bench-answers-'));
const CRITERIA = ['informativeness', 'completeness', 'novelty', 'actionability'];

function run(argv, env = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, ...argv], {
      cwd: scratch,
      env: { ...process.env, DATABASE_URL: '', OPENAI_API_KEY: 'bench', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (c) => (stderr += c));
    child.once('exit', (code) =>
      resolve({ code, seconds: (performance.now() - started) / 1000, stderr }),
    );
  });
}

try {
  // Scoring.
  const lines = [];
  for (let t = 0; t < topics; t++)
    for (let s = 0; s < systems; s++)
      lines.push(
        JSON.stringify({
          topic: `t${t}`,
          system: `system-${s}`,
          query: `synthetic request ${t}`,
          answer: `Synthetic answer of system ${s} to request ${t}: ${'words '.repeat(40)}`,
        }),
      );
  const responses = join(scratch, 'responses.jsonl');
  writeFileSync(responses, `${lines.join('\n')}\n`);
  const reply = JSON.stringify({
    informativeness: 3,
    completeness: 4,
    novelty: 2,
    actionability: 3,
    justification: 'synthetic',
  });
  const server = await startOpenAITestServer(() => ({ reply, delayMs: latencyMs }));
  const argv = [
    'answers',
    'score',
    '--judge',
    'answer-quality',
    '--model',
    'bench-model',
    '--responses',
    responses,
    '--out',
    join(scratch, 'scores.jsonl'),
    '--trials',
    String(trials),
    '--concurrency',
    String(concurrency),
    '--base-url',
    server.baseURL,
  ];
  const env = { ASSAY_DATA_DIR: join(scratch, 'data') };
  const evaluations = topics * systems * trials;
  const first = await run(argv, env);
  if (first.code !== 0) throw new Error(`score failed (${first.code}): ${first.stderr}`);
  const paid = server.requests.length;
  const again = await run(argv, env);
  if (again.code !== 0) throw new Error(`rerun failed (${again.code}): ${again.stderr}`);
  await server.close();
  const ideal = concurrency / (latencyMs / 1000);
  console.log(
    `score: ${evaluations} evaluations (${systems} systems × ${topics} topics × ${trials} trials), ` +
      `concurrency ${concurrency}, latency ${latencyMs} ms, ${cpus().length} CPUs ` +
      `(load average ${loadavg()[0].toFixed(1)}), PGlite`,
  );
  console.log(
    `  first run:  ${first.seconds.toFixed(2)} s wall (process start and migration included), ` +
      `${(evaluations / first.seconds).toFixed(0)} evaluations/s (ideal ${ideal.toFixed(0)}/s), ${paid} calls`,
  );
  console.log(
    `  rerun:      ${again.seconds.toFixed(2)} s wall, ${server.requests.length - paid} calls (all from the call store)`,
  );

  // Report.
  const scoreLines = [];
  let state = 12345;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 6;
  for (let t = 0; t < reportTopics; t++)
    for (let s = 0; s < systems; s++)
      for (let k = 1; k <= 3; k++)
        scoreLines.push(
          JSON.stringify({
            topic: `t${t}`,
            system: `system-${s}`,
            trial: k,
            scores: Object.fromEntries(CRITERIA.map((c) => [c, next()])),
            justification: 'synthetic',
          }),
        );
  const scoreFile = join(scratch, 'report-scores.jsonl');
  writeFileSync(scoreFile, `${scoreLines.join('\n')}\n`);
  const report = await run(['answers', 'report', scoreFile, '--format', 'json']);
  if (report.code !== 0) throw new Error(`report failed: ${report.stderr}`);
  console.log(
    `report: ${scoreLines.length} score lines (${systems} systems × ${reportTopics} topics × 3 trials × 4 criteria), ` +
      `${report.seconds.toFixed(2)} s wall including process start`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
