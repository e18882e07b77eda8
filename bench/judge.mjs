#!/usr/bin/env node
// Judging throughput of `assay judge` against the OpenAI-compatible TEST DOUBLE
// (packages/test-support/src/openai-test-server.ts, never a judge) answering every request after
// a fixed latency. With concurrency C and latency L the ideal is C / L judgments per
// second (64 / 0.1 s = 640/s); the bench prints what assay reaches and its overhead, on a
// fresh embedded PGlite and on PostgreSQL at DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test, in a schema of its own, dropped afterwards).
// `baseline` runs judgeItem with an in-memory call store and no database in a process of
// its own: the ceiling of the HTTP client and the double on this machine. The items are
// synthetic text generated here.
//
//   npm run build && node bench/judge.mjs [baseline] [pglite] [postgres] [--items N] [--concurrency C] [--latency MS]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import postgres from 'postgres';
import { numberFlag } from './args.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => numberFlag(args, name, fallback);
const items = flag('--items', 2000);
const concurrency = flag('--concurrency', 64);
const latencyMs = flag('--latency', 100);
const engines = args.length > 0 ? args : ['baseline', 'pglite', 'postgres'];

const bin = join(root, 'apps/cli/bin/assay.js');
if (!existsSync(join(root, 'apps/cli/dist/assay.mjs'))) {
  console.log('building the CLI bundle (npm run build) …');
  spawnSync(process.execPath, [join(root, 'apps/cli/build.mjs')], { stdio: 'inherit' });
}

// The test double is TypeScript: bundle it once for this script.
const cache = join(root, 'node_modules/.cache/assay-bench');
const doubleFile = join(cache, 'openai-test-server.mjs');
await build({
  entryPoints: [join(root, 'packages/test-support/src/openai-test-server.ts')],
  outfile: doubleFile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
});
const { startOpenAITestServer } = await import(pathToFileURL(doubleFile).href);

// The baseline: the judge engine alone (no database), as a process of its own.
const baselineFile = join(cache, 'judge-baseline.mjs');
await build({
  stdin: {
    resolveDir: root,
    loader: 'ts',
    contents: `
      import { readFileSync } from 'node:fs';
      import { judgeItem, loadJudgeTemplates } from './packages/judge/src/index.ts';
      import { MemoryCallStore, OpenAIChatClient } from './packages/llm/src/index.ts';
      const [baseURL, poolFile, concurrency] = process.argv.slice(2);
      const template = loadJudgeTemplates('${join(root, 'judges')}').get('graded-0-3');
      const client = new OpenAIChatClient({ baseURL, apiKey: 'bench' });
      const store = new MemoryCallStore();
      const items = readFileSync(poolFile, 'utf8').trim().split('\\n');
      let next = 0;
      await Promise.all(Array.from({ length: Number(concurrency) }, async () => {
        while (next < items.length) {
          const [topic, doc] = items[next++].split('\\t');
          const outcome = await judgeItem(template, { query: 'synthetic query number ' + topic, passage: 'Synthetic passage ' + doc }, { model: 'gpt-4o-mini' }, { client, store });
          if (outcome.status !== 'labelled') throw new Error(outcome.reason);
        }
      }));`,
  },
  outfile: baselineFile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  conditions: ['source'],
  // Workspace packages are TypeScript and get bundled; the others load from node_modules.
  plugins: [
    {
      name: 'external-node-modules',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (a) =>
          a.path.startsWith('@assay/') ? undefined : { path: a.path, external: true },
        );
      },
    },
  ],
  logLevel: 'warning',
});

const scratch = mkdtempSync(join(tmpdir(), 'assay-bench-judge-'));
const topicsPerRun = 20;
const topicLines = [];
for (let t = 1; t <= topicsPerRun; t++) topicLines.push(`${t}\tsynthetic query number ${t}`);
const docLines = [];
const poolLines = [];
for (let k = 0; k < items; k++) {
  const topic = 1 + (k % topicsPerRun);
  const words = Array.from({ length: 60 }, (_, w) => `w${(k * 31 + w * 7) % 997}`).join(' ');
  docLines.push(JSON.stringify({ id: `P${k}`, text: `Synthetic passage ${k}: ${words}.` }));
  poolLines.push(`${topic}\tP${k}`);
}
const files = {
  topics: join(scratch, 'topics.tsv'),
  docs: join(scratch, 'docs.jsonl'),
  pool: join(scratch, 'pool.txt'),
};
writeFileSync(files.topics, `${topicLines.join('\n')}\n`);
writeFileSync(files.docs, `${docLines.join('\n')}\n`);
writeFileSync(files.pool, `${poolLines.join('\n')}\n`);

/** Runs `assay judge` over the pool and times it from the double's side. */
async function bench(engine, env) {
  const reply = JSON.stringify({ intent_match: 1, trustworthiness: 1, grade: 2 });
  const server = await startOpenAITestServer(() => ({ reply, delayMs: latencyMs }));
  // The judging phase: from the first request received to the last answer delivered.
  let first = 0;
  let last = 0;
  const watch = setInterval(() => {
    if (!first && server.requests.length > 0) first = performance.now();
    if (!last && server.delivered.length >= items) last = performance.now();
  }, 1);
  const started = performance.now();
  const command =
    engine === 'baseline'
      ? [baselineFile, server.baseURL, files.pool, String(concurrency)]
      : [
          bin,
          'judge',
          ...['--judge', 'graded-0-3', '--model', 'gpt-4o-mini'],
          ...['--topics', files.topics, '--docs', files.docs, '--pool', files.pool],
          ...['--out', join(scratch, `${engine}.qrels`), '--concurrency', String(concurrency)],
          ...['--base-url', server.baseURL],
        ];
  const child = spawn(process.execPath, command, {
    cwd: scratch,
    env: { ...process.env, DATABASE_URL: '', OPENAI_API_KEY: 'bench', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  const wall = (performance.now() - started) / 1000;
  clearInterval(watch);
  await server.close();
  if (code !== 0) throw new Error(`${engine} failed (${code}):\n${output}`);
  if (server.delivered.length !== items)
    throw new Error(`expected ${items} answers, the double delivered ${server.delivered.length}`);
  const judging = (last - first) / 1000;
  const rate = items / judging;
  const ideal = concurrency / (latencyMs / 1000);
  console.log(
    `${engine.padEnd(8)} ${items} items, concurrency ${concurrency}, latency ${latencyMs} ms: ` +
      `${rate.toFixed(0)} judgments/s (ideal ${ideal.toFixed(0)}/s, overhead ${((ideal / rate - 1) * 100).toFixed(1)}%); ` +
      `judging ${judging.toFixed(2)} s, whole command ${wall.toFixed(2)} s`,
  );
}

console.log(
  `${cpus().length} CPUs, load average ${loadavg()[0].toFixed(1)}; the double, the worker and the database share them`,
);
try {
  for (const engine of engines) {
    if (engine === 'baseline') {
      await bench('baseline', {});
    } else if (engine === 'pglite') {
      await bench('pglite', { ASSAY_DATA_DIR: join(scratch, 'data') });
    } else if (engine === 'postgres') {
      const base = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
      const schema = `assay_bench_judge_${process.pid}`;
      const admin = postgres(base, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create schema "${schema}"`);
      try {
        const url = new URL(base);
        url.searchParams.set('search_path', schema);
        await bench('postgres', { DATABASE_URL: url.toString(), ASSAY_DATA_DIR: scratch });
      } finally {
        await admin.unsafe(`drop schema "${schema}" cascade`);
        await admin.end();
      }
    } else throw new Error(`unknown engine ${engine} (baseline, pglite or postgres)`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
