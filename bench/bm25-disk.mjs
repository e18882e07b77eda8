#!/usr/bin/env node
// On-disk BM25 index at MS MARCO size: builds the index of a seeded synthetic collection
// with MS MARCO passage-like statistics (8.8 M passages by default, Zipfian vocabulary,
// 20–92 terms a passage, 56 on average), then runs 200 seeded queries of 2–6 terms, BM25
// top 1000, exhaustive and with MaxScore. Prints index time, peak memory (RSS high-water)
// of the build and of the search, the index's size on disk, the open index's memory and
// query latency p50/p95. The build and the search each run in their own process, so
// each peak is its own. Files go under bench/out/bm25-disk (the index is removed at the
// end unless --keep).
//
// Usage: node bench/bm25-disk.mjs [--docs 8800000] [--queries 200] [--k 1000]
//                                 [--budget-mib 1024] [--vocabulary 2600000] [--keep]
//                                 [--warm] (time the queries after two untimed passes)
//                                 [--search-only] (search an index kept by an earlier --keep run)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { numberFlag } from './args.mjs';
import { seeded } from './seeded.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const scratch = `${root}bench/out/bm25-disk/`;
const args = process.argv.slice(2);
const phase = args.includes('--phase') ? args[args.indexOf('--phase') + 1] : 'main';
const docs = numberFlag(args, '--docs', 8_800_000);
const queryCount = numberFlag(args, '--queries', 200);
const k = numberFlag(args, '--k', 1000);
const budgetMiB = numberFlag(args, '--budget-mib', 1024);
const vocabulary = numberFlag(args, '--vocabulary', 2_600_000);
const keep = args.includes('--keep');
const warm = args.includes('--warm');
const searchOnly = args.includes('--search-only');
const indexFile = `${scratch}index-${docs}.bm25d`;

const lib = () => import(pathToFileURL(`${scratch}dist/assay-retrieval.mjs`).href);
const peakMiB = () => process.resourceUsage().maxRSS / 1024;

// A Zipf-like rank in [0, vocabulary): P(r) ∝ ln((r + 2)/(r + 1)) ≈ 1/(r + 1.5).
const logV = Math.log(vocabulary + 1);
const rank = (random) => Math.min(vocabulary - 1, Math.floor(Math.exp(random() * logV)) - 1);
// Words the analyzer keeps as they are (no stopword ends in q, no Porter rule strips it).
const common = Array.from({ length: 100_000 }, (_, r) => `${r.toString(36)}q`);
const word = (r) => (r < common.length ? common[r] : `${r.toString(36)}q`);

/** The synthetic collection, document by document (ids 0, 1, 2 … as MS MARCO numbers them). */
function* collection() {
  const random = seeded(8_841_823);
  const tokens = [];
  for (let d = 0; d < docs; d++) {
    const length = 20 + Math.floor(random() * 73);
    tokens.length = 0;
    for (let i = 0; i < length; i++) tokens.push(word(rank(random)));
    yield { id: String(d), text: tokens.join(' ') };
  }
}

/** 200 queries of 2–6 terms from the same distribution, leaving out the 30 most frequent terms. */
function queries() {
  const random = seeded(20_190_101);
  return Array.from({ length: queryCount }, () => {
    const terms = [];
    const length = 2 + Math.floor(random() * 5);
    while (terms.length < length) {
      const r = rank(random);
      if (r >= 30) terms.push(word(r));
    }
    return terms.join(' ');
  });
}

async function build() {
  const { DiskIndexBuilder } = await lib();
  const started = performance.now();
  const builder = new DiskIndexBuilder(indexFile, { memoryBudget: budgetMiB * 2 ** 20 });
  let n = 0;
  for (const doc of collection()) {
    builder.add(doc);
    if (++n % 1_000_000 === 0)
      console.error(
        `bench/bm25-disk: ${n} documents, ${((performance.now() - started) / 1000).toFixed(0)} s, ${builder.runCount} runs`,
      );
  }
  const summary = builder.finish();
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ ...summary, seconds, peakMiB: peakMiB() }));
}

async function search() {
  const { DiskBm25Index, DiskBm25Searcher } = await lib();
  const texts = queries();
  const out = {};
  for (const pruning of [false, true]) {
    const opened = performance.now();
    const index = DiskBm25Index.open(indexFile);
    const openSeconds = (performance.now() - opened) / 1000;
    const searcher = new DiskBm25Searcher(index, undefined, pruning);
    // --warm: two untimed passes first (postings cached, code compiled), as a server sees.
    if (warm)
      for (let pass = 0; pass < 2; pass++) for (const text of texts) searcher.search(text, k);
    const times = [];
    let hits = 0;
    for (const text of texts) {
      const started = performance.now();
      hits += searcher.search(text, k).length;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
    out[pruning ? 'maxscore' : 'exhaustive'] = {
      openSeconds,
      p50: at(0.5),
      p95: at(0.95),
      mean: times.reduce((a, b) => a + b, 0) / times.length,
      hits,
      memoryMiB: index.memoryBytes / 2 ** 20,
    };
    index.close();
  }
  console.log(JSON.stringify({ ...out, peakMiB: peakMiB() }));
}

function bundle() {
  mkdirSync(`${scratch}dist`, { recursive: true });
  writeFileSync(
    `${scratch}dist/entry.ts`,
    `export * from '../../../../packages/retrieval/src/index.ts';\n`,
  );
  const { buildSync } = createRequire(import.meta.url)('esbuild');
  buildSync({
    entryPoints: [`${scratch}dist/entry.ts`],
    bundle: true,
    platform: 'node',
    format: 'esm',
    conditions: ['source'],
    external: ['stemmer', 'stopword'],
    outfile: `${scratch}dist/assay-retrieval.mjs`,
    logLevel: 'warning',
  });
}

/** Runs this script's `phase` in a child process and returns the JSON line it prints. */
function child(name) {
  const result = spawnSync(
    process.execPath,
    [
      fileURLToPath(import.meta.url),
      ...['--phase', name, '--docs', String(docs), '--queries', String(queryCount)],
      ...['--k', String(k), '--budget-mib', String(budgetMiB), '--vocabulary', String(vocabulary)],
      ...(warm ? ['--warm'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (result.status !== 0) throw new Error(`bench/bm25-disk: the ${name} phase failed`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1));
}

async function main() {
  bundle();
  console.log(
    `on-disk BM25${warm ? ' (warm)' : ''}: ${docs.toLocaleString('en')} synthetic passages (Zipfian over ${vocabulary.toLocaleString('en')} words, 20–92 terms), memory budget ${budgetMiB} MiB, ${queryCount} queries of 2–6 terms, top ${k}`,
  );
  if (searchOnly) {
    if (!existsSync(indexFile))
      throw new Error(
        `bench/bm25-disk: --search-only needs ${indexFile}, kept by an earlier run with --keep and the same --docs`,
      );
    console.log(
      `index: kept from an earlier run, ${(statSync(indexFile).size / 2 ** 20).toFixed(1)} MiB on disk`,
    );
  } else {
    const built = child('build');
    const bytes = statSync(indexFile).size;
    console.log(
      `index: ${built.seconds.toFixed(1)} s (${Math.round(docs / built.seconds).toLocaleString('en')} docs/s), peak RSS ${built.peakMiB.toFixed(0)} MiB, ${built.runs} runs, ${built.terms.toLocaleString('en')} terms, ${built.postings.toLocaleString('en')} postings, ${(bytes / 2 ** 20).toFixed(1)} MiB on disk`,
    );
  }
  const searched = child('search');
  for (const mode of ['exhaustive', 'maxscore']) {
    const s = searched[mode];
    console.log(
      `search ${mode.padEnd(10)}: p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, mean ${s.mean.toFixed(1)} ms (open ${s.openSeconds.toFixed(2)} s, index in memory ${s.memoryMiB.toFixed(0)} MiB, ${s.hits} hits)`,
    );
  }
  console.log(`search peak RSS ${searched.peakMiB.toFixed(0)} MiB`);
  if (!keep) rmSync(indexFile, { force: true });
}

if (phase === 'build') await build();
else if (phase === 'search') await search();
else await main();
