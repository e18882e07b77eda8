#!/usr/bin/env node
// Run-import throughput of `assay import run`: the 14 official TREC DL 2021 passage runs
// (668k lines, read from ../shared/data, which assay does not ship) imported with the
// built CLI into (a) a fresh embedded PGlite in a temporary ASSAY_DATA_DIR and (b)
// PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a
// schema of its own that is dropped afterwards. Prints lines/s for each.
//
//   npm run build && node bench/import.mjs [pglite] [postgres]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

const root = fileURLToPath(new URL('../', import.meta.url));
const shared = process.env.ASSAY_SHARED_DATA ?? join(root, '..', 'shared', 'data');
const runsDir = join(shared, 'syndl/TREC-DLs-files/TREC-DL-2021/passages-runs');
if (!existsSync(runsDir)) {
  console.error(`bench/import: needs the TREC DL 2021 runs in ${runsDir} (set ASSAY_SHARED_DATA)`);
  process.exit(1);
}
const runs = readdirSync(runsDir)
  .filter((name) => !name.startsWith('.'))
  .sort()
  .map((name) => join(runsDir, name));

const bin = join(root, 'apps/cli/bin/assay.js');
if (!existsSync(join(root, 'apps/cli/dist/assay.mjs'))) {
  console.log('building the CLI bundle (npm run build) …');
  spawnSync(process.execPath, [join(root, 'apps/cli/build.mjs')], { stdio: 'inherit' });
}

const engines = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['pglite', 'postgres'];
const scratch = mkdtempSync(join(tmpdir(), 'assay-bench-import-'));
// The runs name MS MARCO passages whose text assay may not ship: a one-line collection
// stands in (run entries do not reference documents).
const docs = join(scratch, 'docs.tsv');
writeFileSync(docs, 'placeholder\tthe runs name MS MARCO passages that are not imported\n');

/** Runs the built CLI with extra environment; throws with its stderr on failure. */
function assay(env, ...args) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: scratch,
    env: { ...process.env, DATABASE_URL: '', ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`assay ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return result.stdout;
}

const number = (n) => Math.round(n).toLocaleString('en-US');

function bench(label, env) {
  assay(env, 'db', 'migrate');
  assay(env, 'import', 'collection', '--name', 'dl21', '--format', 'tsv', docs);
  const started = process.hrtime.bigint();
  const out = assay(env, 'import', 'run', '--collection', 'dl21', ...runs);
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  // One line per file: `imported run "X" (…) from F: N lines in S s (R lines/s)`.
  const files = [...out.matchAll(/^imported run "([^"]+)".*: (\d+) lines in ([\d.]+) s/gm)].map(
    (m) => ({ run: m[1], lines: Number(m[2]), seconds: Number(m[3]) }),
  );
  if (files.length !== runs.length) throw new Error(`expected ${runs.length} runs:\n${out}`);
  const lines = files.reduce((sum, f) => sum + f.lines, 0);
  const importing = files.reduce((sum, f) => sum + f.seconds, 0);
  const rates = files.map((f) => f.lines / f.seconds).sort((a, b) => a - b);
  console.log(`${label}: ${number(lines)} lines in ${files.length} runs`);
  console.log(
    `  per file (read, parse, one transaction): ${importing.toFixed(1)} s → ${number(lines / importing)} lines/s` +
      ` (files ${number(rates[0])}–${number(rates.at(-1))} lines/s)`,
  );
  console.log(
    `  whole command (process start, opening the database, checking every file first): ${wall.toFixed(1)} s → ${number(lines / wall)} lines/s`,
  );
}

try {
  for (const engine of engines) {
    if (engine === 'pglite') {
      bench(`PGlite (fresh, ${join(scratch, 'data')})`, { ASSAY_DATA_DIR: join(scratch, 'data') });
    } else if (engine === 'postgres') {
      const base = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
      const schema = `assay_bench_${process.pid}_${Date.now()}`;
      const admin = postgres(base, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create schema "${schema}"`);
      try {
        const url = new URL(base);
        url.searchParams.set('search_path', schema);
        const where = `${url.hostname}:${url.port || 5432}${url.pathname}`;
        const version = (await admin`show server_version`)[0].server_version;
        bench(`PostgreSQL ${version} (${where}, fresh schema ${schema})`, {
          DATABASE_URL: url.toString(),
        });
      } finally {
        await admin.unsafe(`drop schema if exists "${schema}" cascade`);
        await admin.end();
      }
    } else {
      throw new Error(`unknown engine '${engine}' (pglite or postgres)`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
