// What the benches that drive a real `assay serve` process share: the CLI bundle built if
// missing, a free port, starting the server with an admin token and reading the address
// it prints, and quantiles of latencies.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** Options for the server's node from BENCH_NODE_ARGS (space-separated), e.g. --cpu-prof. */
function nodeArgs() {
  return (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
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
  const child = spawn(process.execPath, [...nodeArgs(), bin, 'serve'], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /serving (http:\/\/[^\s/]+:\d+)\/api/.exec(out);
      if (match) resolve(match[1]);
      // What the server logs after starting (errors) goes to this script's stderr.
      if (match && out.length > match.index + match[0].length + 200) process.stderr.write(chunk);
    });
    child.once('exit', (code) => reject(new Error(`assay serve exited with ${code}: ${out}`)));
  });
  return { url, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGINT'))) };
}
