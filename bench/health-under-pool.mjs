#!/usr/bin/env node
// Whether `assay serve` keeps answering while it pools large runs. On a fresh embedded
// PGlite (temporary ASSAY_DATA_DIR) and on PostgreSQL (a fresh database created at
// DATABASE_URL's server, default postgres://postgres@127.0.0.1:5432, dropped afterwards):
// stores R generated runs of N/R lines each (default N 1,000,000 and R 1: 1,000 topics ×
// 1,000 documents; R 100: 100 runs of 10 topics, mostly different documents) in a
// collection that stores no documents (so it holds every pair), then asks twice for their
// depth-1000 pool (N candidates: the cap of one pool) through POST
// /api/collections/{c}/pools while GET /api/health is sampled every 50 ms; prints each
// pool's time and size and the health latency p50/p95/max. The slowest health check is
// about the longest the server stopped answering.
//
//   npm run build && node bench/health-under-pool.mjs [pglite] [postgres] [--lines N] [--runs R]
//
// BENCH_NODE_ARGS passes options to the server's node, e.g. BENCH_NODE_ARGS=--cpu-prof
// to profile it.
import { cpus, loadavg } from 'node:os';
import { numberFlag } from './args.mjs';
import { benchDatabase, ensureCliBundle, quantile, sampleHealth, startServer } from './serve.mjs';

const args = process.argv.slice(2);
const lines = numberFlag(args, '--lines', 1_000_000);
const runCount = numberFlag(args, '--runs', 1);
const engines = args.length > 0 ? args : ['pglite', 'postgres'];
const ADMIN = 'assay_bench-admin-token-0123456789';
const DEPTH = 1_000;
const POOLS = 2;

ensureCliBundle();

async function call(base, method, path, body, type = 'text/plain') {
  const headers = { authorization: `Bearer ${ADMIN}` };
  if (body !== undefined) headers['content-type'] = type;
  const response = await fetch(`${base}/api${path}`, { method, headers, body });
  if (response.status >= 400)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Run `r` of `n` lines: topics of 1,000 documents each (fewer when n is small). */
function generateRun(n, r) {
  const perTopic = Math.min(DEPTH, n);
  // A stride of its own per run: the runs share few documents (none twice in a topic).
  const stride = 7919 + 2 * r * 3;
  const parts = [];
  for (let i = 0; i < n; i++) {
    const topic = Math.floor(i / perTopic) + 1;
    const rank = (i % perTopic) + 1;
    parts.push(
      `${topic} Q0 doc${(i * stride) % 10_000_000} ${rank} ${(1000 - rank / 10).toFixed(3)} r${r}`,
    );
  }
  return `${parts.join('\n')}\n`;
}

async function run(engine) {
  const perRun = Math.floor(lines / runCount);
  const { env, cleanup } = await benchDatabase(engine, 'pool');
  const server = await startServer(env, ADMIN);
  const base = server.url;
  try {
    await call(base, 'POST', '/collections?name=open&format=tsv', '');
    const names = [];
    for (let r = 0; r < runCount; r++) {
      const text = new TextEncoder().encode(generateRun(perRun, r));
      const stored = await call(base, 'POST', `/collections/open/runs?name=r${r}`, text);
      if (stored.entryCount !== perRun) throw new Error(`stored ${stored.entryCount} of ${perRun}`);
      names.push(`r${r}`);
    }
    const f = (x) => x.toFixed(1);
    for (let k = 1; k <= POOLS; k++) {
      const stop = sampleHealth(base);
      const started = performance.now();
      const pool = await call(
        base,
        'POST',
        '/collections/open/pools?limit=1',
        JSON.stringify({ runs: names, depth: DEPTH }),
        'application/json',
      );
      const seconds = (performance.now() - started) / 1000;
      const { latencies, failures } = await stop();
      latencies.sort((a, b) => a - b);
      const candidates = (perRun * runCount).toLocaleString('en-US');
      console.log(
        `${engine.padEnd(8)} pool ${k} of ${candidates} candidates (${runCount} runs): ${seconds.toFixed(1)} s, ` +
          `${pool.stats.total.toLocaleString('en-US')} items; ` +
          `health (${latencies.length} samples) p50 ${f(quantile(latencies, 0.5))} ms, ` +
          `p95 ${f(quantile(latencies, 0.95))} ms, max ${f(latencies.at(-1))} ms, ${failures} failed`,
      );
    }
  } finally {
    await server.stop();
    await cleanup();
  }
}

console.log(
  `bench/health-under-pool: node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}`,
);
for (const engine of engines) await run(engine);
