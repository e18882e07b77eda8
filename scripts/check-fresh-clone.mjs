#!/usr/bin/env node
// Checks the README's quick start on a fresh clone of the current commit: clones it into
// a temporary folder (no node_modules, no build), runs `npm start` until the API answers
// /api/health, stops it, then runs `npm test` there (the whole suite, or the Vitest
// projects named after --projects). Slow (a full `npm ci`); run it by hand or in CI:
//
//   node scripts/check-fresh-clone.mjs [--projects trec,cli] [--keep]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const keep = args.includes('--keep');
const projectsAt = args.indexOf('--projects');
const projects = projectsAt >= 0 ? (args[projectsAt + 1] ?? '').split(',').filter(Boolean) : [];

const say = (text) => process.stdout.write(`${text}\n`);
const seconds = (start) => ((performance.now() - start) / 1000).toFixed(1);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url, child, limitMs) {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no answer from ${url} within ${limitMs / 1000} s`);
}

const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const dir = mkdtempSync(join(tmpdir(), 'assay-fresh-clone-'));
const checkout = join(dir, 'assay');
let failed = false;
try {
  say(`cloning ${commit.slice(0, 12)} into ${checkout}`);
  execFileSync('git', ['clone', '--quiet', '--no-checkout', root, checkout]);
  execFileSync('git', ['checkout', '--quiet', '--detach', commit], { cwd: checkout });

  const port = await freePort();
  const env = { ...process.env, PORT: String(port), ASSAY_DATA_DIR: join(dir, 'data') };
  delete env.DATABASE_URL;
  let start = performance.now();
  say(`npm start (PORT=${port})`);
  const server = spawn('npm', ['start'], { cwd: checkout, env, stdio: 'inherit', detached: true });
  try {
    await waitForHealth(`http://127.0.0.1:${port}/api/health`, server, 15 * 60_000);
    say(`npm start: the API answers /api/health after ${seconds(start)} s`);
  } finally {
    if (server.exitCode === null) {
      process.kill(-server.pid, 'SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  }

  start = performance.now();
  const testArgs = [
    'test',
    ...(projects.length ? ['--', ...projects.map((p) => `--project=${p}`)] : []),
  ];
  say(`npm ${testArgs.join(' ')}`);
  const testEnv = { ...process.env };
  delete testEnv.ASSAY_DATA_DIR;
  const tests = spawnSync('npm', testArgs, { cwd: checkout, env: testEnv, stdio: 'inherit' });
  if (tests.status !== 0) throw new Error(`npm test exited with ${tests.status}`);
  say(`npm test passed in ${seconds(start)} s`);
} catch (error) {
  failed = true;
  say(`fresh clone check FAILED: ${error.message}`);
} finally {
  if (keep) say(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
