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
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import postgres from 'postgres';
import { ensureCliBundle, quantile, startServer } from './serve.mjs';
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

// The health sampler runs on a worker thread of its own, so that this process's upload
// (50 MB handed to fetch, and the garbage it leaves) cannot delay a sample: what is timed is
// the server's answer.
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const latencies = [];
let failures = 0;
let running = true;
parentPort.on('message', () => (running = false));
(async () => {
  while (running) {
    const started = performance.now();
    try {
      const response = await fetch(workerData.base + '/api/health');
      await response.arrayBuffer();
      if (!response.ok) failures++;
      if (!response.ok) console.error('health answered ' + response.status);
    } catch (error) {
      failures++;
      console.error('health failed: ' + error.message + ' (' + (error.cause?.message ?? 'no cause') + ')');
    }
    const took = performance.now() - started;
    latencies.push(took);
    await new Promise((r) => setTimeout(r, Math.max(0, 50 - took)));
  }
  parentPort.postMessage({ latencies, failures });
})();
`;

/** Samples GET /api/health every 50 ms until `stop()`; resolves the latencies in ms. */
function sampleHealth(base) {
  const worker = new Worker(SAMPLER, { eval: true, workerData: { base } });
  const done = new Promise((resolve, reject) => {
    worker.once('message', (result) => worker.terminate().then(() => resolve(result)));
    worker.once('error', reject);
  });
  return () => (worker.postMessage('stop'), done);
}

async function run(engine) {
  // Made first: generating and encoding 50 MB here takes seconds, during which a kept-alive
  // connection to the server would sit idle long enough for the server to close it.
  // Encoded before the clock starts, so that this process keeps up with its health sampling.
  const big = new TextEncoder().encode(generateRun(lines, 'big'));
  let dataDir;
  let database;
  const env = {};
  if (engine === 'pglite') {
    dataDir = mkdtempSync(join(tmpdir(), 'assay-bench-health-'));
    env.ASSAY_DATA_DIR = dataDir;
  } else {
    const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
    const name = `assay_bench_health_${process.pid}`;
    const sql = postgres(baseUrl, { max: 1, onnotice: () => {} });
    await sql.unsafe(`create database "${name}"`);
    await sql.end();
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    env.ASSAY_DATA_DIR = mkdtempSync(join(tmpdir(), 'assay-bench-unused-'));
    dataDir = env.ASSAY_DATA_DIR;
    database = { baseUrl, name };
  }
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
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (database) {
      const sql = postgres(database.baseUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists "${database.name}" with (force)`);
      await sql.end();
    }
  }
}

console.log(
  `bench/health-under-import: node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}`,
);
for (const engine of engines) await run(engine);
