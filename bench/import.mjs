#!/usr/bin/env node
// Run-import speed of `assay import run` against the database's own bulk load. A run of N
// lines (default 1,000,000: 1,000 topics × 1,000 documents, generated with a fixed seed) is
// imported with the built CLI into (a) a fresh embedded PGlite in a temporary
// ASSAY_DATA_DIR and (b) PostgreSQL at DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test) in a schema of its own, dropped afterwards. The
// yardstick is the same file loaded by plain COPY into a plain table of the same four
// columns (no key, no index): psql's `\copy` for PostgreSQL (COPY FROM STDIN from
// postgres.js where psql is missing), `COPY … FROM '/dev/blob'` in a fresh PGlite for
// PGlite. Prints both times and their ratio; on PostgreSQL also psql's `\copy` into a table
// like run_entries (the same indexes), which is what the schema costs by itself.
//
//   npm run build && node bench/import.mjs [pglite] [postgres] [--lines N]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import {
  createReadStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { numberFlag } from './args.mjs';
import { seeded } from './seeded.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const lines = numberFlag(args, '--lines', 1_000_000);
const engines = args.length > 0 ? args : ['pglite', 'postgres'];
for (const engine of engines)
  if (engine !== 'pglite' && engine !== 'postgres')
    throw new Error(`unknown engine '${engine}' (pglite or postgres)`);

const bin = join(root, 'apps/cli/bin/assay.js');
if (!existsSync(join(root, 'apps/cli/dist/assay.mjs'))) {
  console.log('building the CLI bundle (npm run build) …');
  spawnSync(process.execPath, [join(root, 'apps/cli/build.mjs')], { stdio: 'inherit' });
}

const scratch = mkdtempSync(join(tmpdir(), 'assay-bench-import-'));
// A one-line collection: run entries do not reference documents.
const docs = join(scratch, 'docs.tsv');
writeFileSync(docs, 'placeholder\tthe run names documents that are not imported\n');

// The run: up to 1,000 documents per topic, as TREC runs are; and the same rows as
// tab-separated COPY text for the yardstick.
const run = join(scratch, 'run.txt');
const copyText = join(scratch, 'run.copy');
{
  const random = seeded(20261126);
  const depth = Math.min(1000, lines);
  const runParts = [];
  const copyParts = [];
  for (let i = 0; i < lines; i++) {
    const topic = String(1000 + Math.floor(i / depth));
    const rank = (i % depth) + 1;
    const doc = `msmarco_passage_${String(Math.floor(random() * 1e8)).padStart(8, '0')}_${i}`;
    const score = (40 - rank / 50).toFixed(4);
    runParts.push(`${topic} Q0 ${doc} ${rank} ${score} bench\n`);
    copyParts.push(`${topic}\t${doc}\t${rank}\t${score}\n`);
  }
  writeFileSync(run, runParts.join(''));
  writeFileSync(copyText, copyParts.join(''));
}

/** Runs the built CLI with extra environment; throws with its stderr on failure. */
function assay(env, ...argv) {
  const result = spawnSync(process.execPath, [bin, ...argv], {
    cwd: scratch,
    env: { ...process.env, DATABASE_URL: '', ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`assay ${argv.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return result.stdout;
}

const PLAIN_TABLE = 'create table plain_run (topic_id text, doc_id text, rank int4, score float8)';
const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;

/** Times `assay import run` of the file (process start and opening the database included). */
function timeImport(env) {
  assay(env, 'db', 'migrate');
  assay(env, 'import', 'collection', '--name', 'bench', '--format', 'tsv', docs);
  const start = process.hrtime.bigint();
  const out = assay(env, 'import', 'run', '--collection', 'bench', '--name', 'bench', run);
  const wall = seconds(start);
  const m = /: (\d+) lines in ([\d.]+) s/.exec(out);
  if (!m || Number(m[1]) !== lines) throw new Error(`expected ${lines} lines imported:\n${out}`);
  return { wall, importing: Number(m[2]) };
}

function report(label, imported, plain, plainLabel, same) {
  const n = lines.toLocaleString('en-US');
  console.log(`${label}: ${n} lines`);
  console.log(
    `  assay import run: ${imported.wall.toFixed(2)} s whole command, ${imported.importing.toFixed(2)} s reading and writing (${Math.round(lines / imported.importing).toLocaleString('en-US')} lines/s)`,
  );
  console.log(`  ${plainLabel}: ${plain.toFixed(2)} s`);
  console.log(
    `  assay/plain COPY: ${(imported.wall / plain).toFixed(2)}x whole command, ${(imported.importing / plain).toFixed(2)}x reading and writing`,
  );
  if (same === undefined) return;
  console.log(`  psql \\copy into a table like run_entries (its indexes): ${same.toFixed(2)} s`);
  console.log(
    `  assay/same-schema COPY: ${(imported.importing / same).toFixed(2)}x reading and writing; same-schema/plain COPY: ${(same / plain).toFixed(2)}x`,
  );
}

async function pglite() {
  const imported = timeImport({ ASSAY_DATA_DIR: join(scratch, 'data') });
  // PGlite as @assay/db has it (a dependency of that package, not of the repository root).
  const fromDb = createRequire(join(root, 'packages/db/package.json'));
  const entry = fromDb.resolve(['@electric-sql', 'pglite'].join('/')).replace(/\.cjs$/, '.js');
  const { PGlite } = await import(pathToFileURL(entry).href);
  const db = await PGlite.create(join(scratch, 'plain'));
  await db.exec(PLAIN_TABLE);
  const start = process.hrtime.bigint();
  const blob = new Blob([readFileSync(copyText)]);
  await db.query(`copy plain_run from '/dev/blob'`, [], { blob });
  const plain = seconds(start);
  await db.close();
  report('PGlite (fresh)', imported, plain, "PGlite's COPY FROM '/dev/blob' into a plain table");
}

async function postgresEngine() {
  const base = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `assay_bench_${process.pid}_${Date.now()}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema "${schema}"`);
  try {
    const url = new URL(base);
    url.searchParams.set('search_path', schema);
    const version = (await admin`show server_version`)[0].server_version;
    const imported = timeImport({ DATABASE_URL: url.toString() });
    await admin.unsafe(`set search_path to "${schema}"; ${PLAIN_TABLE}`);
    let plain;
    let how;
    let same;
    const psql = spawnSync('psql', ['--version']);
    if (psql.error === undefined && psql.status === 0) {
      how = 'psql \\copy into a plain table';
      /** Seconds psql's `\copy` of the rows into `table` takes. */
      const psqlCopy = (table) => {
        const start = process.hrtime.bigint();
        const copied = spawnSync(
          'psql',
          [base, '-v', 'ON_ERROR_STOP=1', '-c', `\\copy "${schema}".${table} from '${copyText}'`],
          { encoding: 'utf8' },
        );
        if (copied.status !== 0) throw new Error(`psql \\copy failed:\n${copied.stderr}`);
        return seconds(start);
      };
      plain = psqlCopy('plain_run');
      // The schema's own table and index, the run id a column default (one run, as imported).
      await admin.unsafe(
        `create table "${schema}".same_run (like "${schema}".run_entries including indexes);
         alter table "${schema}".same_run alter column run_id set default 1`,
      );
      same = psqlCopy('same_run (topic_id, doc_id, rank, score)');
    } else {
      how = 'COPY FROM STDIN (postgres.js) into a plain table';
      const start = process.hrtime.bigint();
      const writable = await admin.unsafe(`copy "${schema}".plain_run from stdin`).writable();
      await pipeline(createReadStream(copyText), writable);
      plain = seconds(start);
    }
    const [{ count }] = await admin.unsafe(
      `select count(*)::int as count from "${schema}".plain_run`,
    );
    if (count !== lines) throw new Error(`the plain COPY loaded ${count} rows, not ${lines}`);
    report(`PostgreSQL ${version} (fresh schema)`, imported, plain, how, same);
  } finally {
    await admin.unsafe(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  }
}

console.log(
  `node ${process.version}; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
);
try {
  for (const engine of engines) {
    if (engine === 'pglite') await pglite();
    else await postgresEngine();
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
