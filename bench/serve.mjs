// What the benches that drive a real `assay serve` process share: the CLI bundle built if
// missing, a free port, a fresh database of either engine, starting the server with an
// admin token and reading the address it prints, sampling its health check, and quantiles
// of latencies.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import postgres from 'postgres';

const root = fileURLToPath(new URL('../', import.meta.url));
const bin = join(root, 'apps/cli/bin/assay.js');

/** Builds the CLI bundle when it is missing. */
export function ensureCliBundle() {
  if (existsSync(join(root, 'apps/cli/dist/assay.mjs'))) return;
  console.log('building the CLI bundle (npm run build) …');
  spawnSync(process.execPath, [join(root, 'apps/cli/build.mjs')], { stdio: 'inherit' });
}

/** The q-quantile of ascending `sorted` (nearest rank). */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/** A port nobody listens on right now. */
function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `assay serve` with `env` (DATABASE_URL for PostgreSQL, else embedded PGlite) and
 * `adminToken`, without the in-process judge worker; resolves with its URL and a stop.
 */
export async function startServer(env, adminToken) {
  const childEnv = {
    ...process.env,
    ...env,
    PORT: String(await freePort()),
    ASSAY_ADMIN_TOKEN: adminToken,
    ASSAY_SERVER_WORKER: '0',
  };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  // BENCH_NODE_ARGS passes options to the server's node, e.g. "--cpu-prof".
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /serving (http:\/\/[^\s/]+:\d+)\/api/.exec(out);
      // A first start also retrieves the Cranfield demo runs in the background; the
      // bench measures once they are stored, so that work does not share its time.
      const demo = out.includes('retrieving its demo runs');
      const demoDone = /(stored|could not store) the demo runs/.test(out);
      if (match && (!demo || demoDone)) resolve(match[1]);
      // What the server logs after starting (errors) goes to this script's stderr.
      if (match && out.length > match.index + match[0].length + 200) process.stderr.write(chunk);
    });
    child.once('exit', (code) => reject(new Error(`assay serve exited with ${code}: ${out}`)));
  });
  return { url, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGINT'))) };
}

/**
 * A fresh database for one server: on `pglite` a temporary ASSAY_DATA_DIR; on `postgres` a
 * new database at DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432),
 * named after `label` and this process. Resolves with the server's env and a cleanup that
 * removes it.
 */
export async function benchDatabase(engine, label) {
  if (engine === 'pglite') {
    const dataDir = mkdtempSync(join(tmpdir(), `assay-bench-${label}-`));
    return {
      env: { ASSAY_DATA_DIR: dataDir },
      cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const name = `assay_bench_${label}_${process.pid}`;
  const sql = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await sql.unsafe(`create database "${name}"`);
  await sql.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'assay-bench-unused-'));
  return {
    env: { DATABASE_URL: url.toString(), ASSAY_DATA_DIR: dataDir },
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

// The health sampler runs on a worker thread of its own, so that what the bench itself does
// meanwhile (50 MB handed to fetch, and the garbage it leaves) cannot delay a sample: what
// is timed is the server's answer.
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
export function sampleHealth(base) {
  const worker = new Worker(SAMPLER, { eval: true, workerData: { base } });
  const done = new Promise((resolve, reject) => {
    worker.once('message', (result) => worker.terminate().then(() => resolve(result)));
    worker.once('error', reject);
  });
  return () => (worker.postMessage('stop'), done);
}
