#!/usr/bin/env node
// Whether `assay serve` keeps answering while it imports a large run. On a fresh embedded
// PGlite (temporary ASSAY_DATA_DIR) and on PostgreSQL (a fresh database created at
// DATABASE_URL's server, default postgres://postgres@127.0.0.1:5432, dropped afterwards),
// once the server has stored the Cranfield demo's runs (retrieved in the background after
// a first start, which is other work than the import being measured):
//   1. uploads a generated run of N lines (default 1,000,000: 1,000 topics × 1,000
//      documents) through POST /api/collections/{c}/runs while GET /api/health is sampled
//      every 50 ms; prints the import time and the health latency p50/p95/max;
//   2. uploads 20 small runs (1,000 lines each) at once and prints the total time.
//
//   npm run build && node bench/health-under-import.mjs [pglite] [postgres] [--lines N]
//
// BENCH_NODE_ARGS passes options to the server's node, e.g. BENCH_NODE_ARGS=--cpu-prof
// to profile it.
import { cpus, loadavg } from 'node:os';
import { benchDatabase, ensureCliBundle, quantile, sampleHealth, startServer } from './serve.mjs';
import { numberFlag } from './args.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => numberFlag(args, name, fallback);
const lines = flag('--lines', 1_000_000);
const engines = args.length > 0 ? args : ['pglite', 'postgres'];
const ADMIN = 'assay_bench-admin-token-0123456789';
const SMALL_RUNS = 20;
const SMALL_LINES = 1_000;

ensureCliBundle();

async function call(base, method, path, body) {
  const headers = { authorization: `Bearer ${ADMIN}` };
  if (body !== undefined) headers['content-type'] = 'text/plain';
  const response = await fetch(`${base}/api${path}`, { method, headers, body });
  if (response.status >= 400)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A run of `n` lines: topics of 1,000 documents each (fewer when n is small). */
function generateRun(n, tag) {
  const perTopic = Math.min(1_000, n);
  const parts = [];
  for (let i = 0; i < n; i++) {
    const topic = Math.floor(i / perTopic) + 1;
    const rank = (i % perTopic) + 1;
    parts.push(
      `${topic} Q0 doc${(i * 7919) % 10_000_000} ${rank} ${(1000 - rank / 10).toFixed(3)} ${tag}`,
    );
  }
  return `${parts.join('\n')}\n`;
}

async function run(engine) {
  // Made first: generating and encoding 50 MB here takes seconds, during which a kept-alive
  // connection to the server would sit idle long enough for the server to close it.
  // Encoded before the clock starts, so that this process keeps up with its health sampling.
  const big = new TextEncoder().encode(generateRun(lines, 'big'));
  const { env, cleanup } = await benchDatabase(engine, 'health');
  const server = await startServer(env, ADMIN);
  const base = server.url;
  try {
    await call(base, 'POST', '/collections?name=bench&format=tsv', 'd1\tplaceholder passage\n');
    const stop = sampleHealth(base);
    const started = performance.now();
    const stored = await call(base, 'POST', '/collections/bench/runs?name=big', big);
    const importSeconds = (performance.now() - started) / 1000;
    const { latencies, failures } = await stop();
    latencies.sort((a, b) => a - b);
    if (stored.entryCount !== lines) throw new Error(`stored ${stored.entryCount} of ${lines}`);

    const small = Array.from({ length: SMALL_RUNS }, (_, i) => generateRun(SMALL_LINES, `s${i}`));
    const smallStarted = performance.now();
    await Promise.all(
      small.map((text, i) => call(base, 'POST', `/collections/bench/runs?name=small${i}`, text)),
    );
    const smallSeconds = (performance.now() - smallStarted) / 1000;

    const f = (x) => x.toFixed(1);
    console.log(
      `${engine.padEnd(8)} import of ${lines.toLocaleString('en-US')} lines: ${importSeconds.toFixed(1)} s; ` +
        `health (${latencies.length} samples) p50 ${f(quantile(latencies, 0.5))} ms, ` +
        `p95 ${f(quantile(latencies, 0.95))} ms, max ${f(latencies.at(-1))} ms, ${failures} failed; ` +
        `${SMALL_RUNS} concurrent imports of ${SMALL_LINES.toLocaleString('en-US')} lines: ${smallSeconds.toFixed(2)} s`,
    );
  } finally {
    await server.stop();
    await cleanup();
  }
}

console.log(
  `bench/health-under-import: node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}`,
);
for (const engine of engines) await run(engine);
