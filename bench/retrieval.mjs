#!/usr/bin/env node
// Retrieval benchmark: effectiveness on Cranfield (nDCG@10, MAP against the human qrels,
// codes 1..4 -> gains 4..1, -1 -> 0) for every assay method and RRF(bm25, rm3), next to
// MiniSearch 7 and Orama 3 with their default BM25, with index and query throughput; then
// a scale test on a 200,000-document synthetic collection drawn (fixed seed) from
// Cranfield's word and length distributions, 1,000 queries, top 100.
//
// MiniSearch and Orama are installed with npm into bench/out/retrieval (not project
// dependencies). Each scale measurement runs in its own process so peak memory is its own.
//
// Usage: node bench/retrieval.mjs [--skip-cranfield] [--skip-scale] [--docs 200000] [--queries 1000]
//                                 [--minisearch-queries 100]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { seeded } from './seeded.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const scratch = `${root}bench/out/retrieval/`;
const cranfield = `${root}datasets/cranfield/`;
const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i < 0 ? fallback : argv[i + 1];
};

// ---------------------------------------------------------------- setup (main process)

function setup() {
  mkdirSync(scratch, { recursive: true });
  if (
    !existsSync(`${scratch}node_modules/minisearch`) ||
    !existsSync(`${scratch}node_modules/@orama/orama`)
  ) {
    if (!existsSync(`${scratch}package.json`))
      writeFileSync(`${scratch}package.json`, '{"name":"assay-bench-retrieval","private":true}\n');
    console.error(
      'bench/retrieval: installing minisearch@7 and @orama/orama@3 into bench/out/retrieval',
    );
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--silent', 'minisearch@7', '@orama/orama@3'],
      {
        cwd: scratch,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
  }
  // The retrieval package is TypeScript: bundle it (with the TREC readers) for plain node.
  // Generated files go under dist/, which lint and git leave alone.
  mkdirSync(`${scratch}dist`, { recursive: true });
  writeFileSync(
    `${scratch}dist/entry.ts`,
    `export * from '../../../../packages/retrieval/src/index.ts';\n` +
      `export { parseCollection, formatRun } from '../../../../packages/trec/src/index.ts';\n`,
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

const lib = () => import(pathToFileURL(`${scratch}dist/assay-retrieval.mjs`).href);
const minisearch = async () =>
  (await import(pathToFileURL(`${scratch}node_modules/minisearch/dist/es/index.js`).href)).default;
const orama = () =>
  import(pathToFileURL(`${scratch}node_modules/@orama/orama/dist/esm/index.js`).href);

// ---------------------------------------------------------------- data

/** Cranfield queries numbered by position 1..225 (as cranqrel numbers them). */
function cranfieldQueries() {
  const text = readFileSync(`${cranfield}cran.qry`, 'utf8').replace(/\r/g, '');
  return text
    .split(/^\.I .*$/m)
    .slice(1)
    .map((block, i) => ({
      id: String(i + 1),
      text: block
        .replace(/^\s*\.W\s*/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    }));
}

function writeQrels(path) {
  const gain = { 1: 4, 2: 3, 3: 2, 4: 1, '-1': 0 };
  const lines = readFileSync(`${cranfield}cranqrel`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .map(([q, d, code]) => `${q} 0 ${d} ${gain[code]}\n`);
  writeFileSync(path, lines.join(''));
}

/** A synthetic collection and queries drawn from Cranfield's words and lengths. */
function synthetic(parseCollection, documents, queryCount) {
  const docs = parseCollection(
    readFileSync(`${cranfield}cran.all.1400`, 'utf8'),
    'cran.all.1400',
    'cranfield',
  );
  const words = [];
  const lengths = [];
  for (const d of docs) {
    const tokens = `${d.title ?? ''} ${d.text}`.toLowerCase().match(/[a-z0-9]+/g) ?? [];
    words.push(...tokens);
    lengths.push(tokens.length);
  }
  const queryLengths = cranfieldQueries().map((q) => q.text.split(' ').length);
  const rand = seeded(20260611);
  const draw = (n) => {
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = words[Math.floor(rand() * words.length)];
    return out.join(' ');
  };
  const collection = new Array(documents);
  for (let i = 0; i < documents; i++)
    collection[i] = { id: `s${i}`, text: draw(lengths[Math.floor(rand() * lengths.length)]) };
  const queries = [];
  for (let i = 0; i < queryCount; i++)
    queries.push({
      id: String(i + 1),
      text: draw(queryLengths[Math.floor(rand() * queryLengths.length)]),
    });
  return { collection, queries };
}

// ---------------------------------------------------------------- engines

/** Runs a search function over queries into a TREC run text. */
function runText(queries, search, tag) {
  let out = '';
  for (const q of queries) {
    const hits = search(q.text);
    hits.forEach((h, i) => (out += `${q.id} Q0 ${h.id} ${i + 1} ${h.score} ${tag}\n`));
  }
  return out;
}

async function minisearchEngine(docs) {
  const MiniSearch = await minisearch();
  const started = performance.now();
  const ms = new MiniSearch({ fields: ['title', 'text'], idField: 'id' });
  ms.addAll(docs.map((d) => ({ id: d.id, title: d.title ?? '', text: d.text })));
  const indexSeconds = (performance.now() - started) / 1000;
  return {
    indexSeconds,
    index: ms,
    search: (text, k) =>
      ms
        .search(text)
        .slice(0, k)
        .map((r) => ({ id: r.id, score: r.score })),
  };
}

async function oramaEngine(docs) {
  const { create, insertMultiple, search } = await orama();
  const started = performance.now();
  const db = create({ schema: { docid: 'string', title: 'string', text: 'string' } });
  await insertMultiple(
    db,
    docs.map((d) => ({ docid: d.id, title: d.title ?? '', text: d.text })),
    5000,
  );
  const indexSeconds = (performance.now() - started) / 1000;
  return {
    indexSeconds,
    index: db,
    search: (text, k) => {
      const r = search(db, { term: text, properties: ['title', 'text'], limit: k });
      if (typeof r?.then === 'function') throw new Error('Orama search returned a promise');
      return r.hits.map((h) => ({ id: h.document.docid, score: h.score }));
    },
  };
}

// ---------------------------------------------------------------- Cranfield effectiveness

function evaluate(qrels, run) {
  const r = spawnSync(
    process.execPath,
    [`${root}apps/cli/bin/assay.js`, 'eval', '-c', '-m', 'ndcg_cut.10', '-m', 'map', qrels, run],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  const value = (name) => Number(new RegExp(`^${name}\\s+all\\s+(\\S+)`, 'm').exec(r.stdout)[1]);
  return { ndcg: value('ndcg_cut_10'), map: value('map') };
}

async function cranfieldTable() {
  const R = await lib();
  const docs = R.parseCollection(
    readFileSync(`${cranfield}cran.all.1400`, 'utf8'),
    'cran.all.1400',
    'cranfield',
  );
  const queries = cranfieldQueries();
  const qrels = `${scratch}cran.qrels`;
  writeQrels(qrels);
  const rows = [];
  const repeat = 5;
  let index;
  let indexSeconds = Infinity;
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    index = R.buildIndex(docs, R.DEFAULT_ANALYZER);
    indexSeconds = Math.min(indexSeconds, (performance.now() - started) / 1000);
  }
  const runs = {};
  for (const method of R.RETRIEVAL_METHODS) {
    let seconds = Infinity;
    let result;
    for (let i = 0; i < repeat; i++) {
      const started = performance.now();
      result = R.retrieveRun(index, queries, { method, k: 1000 });
      seconds = Math.min(seconds, (performance.now() - started) / 1000);
    }
    runs[method] = result.run;
    const path = `${scratch}cran.${method}.run`;
    writeFileSync(path, R.runHeader(result.parameters) + R.formatRun(result.run));
    rows.push({
      system: `assay ${method}`,
      ...evaluate(qrels, path),
      indexSeconds,
      querySeconds: seconds,
    });
  }
  const fused = R.fuseRuns([runs.bm25, runs.rm3], { method: 'rrf', k: 60, name: 'rrf' });
  writeFileSync(`${scratch}cran.rrf.run`, R.formatRun(fused));
  rows.push({
    system: 'assay RRF(bm25, rm3)',
    ...evaluate(qrels, `${scratch}cran.rrf.run`),
    indexSeconds: NaN,
    querySeconds: NaN,
  });

  for (const [name, make] of [
    ['MiniSearch 7', minisearchEngine],
    ['Orama 3', oramaEngine],
  ]) {
    let engine;
    let indexBest = Infinity;
    for (let i = 0; i < 3; i++) {
      engine = await make(docs);
      indexBest = Math.min(indexBest, engine.indexSeconds);
    }
    let text;
    let seconds = Infinity;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      text = runText(queries, (q) => engine.search(q, 1000), name.split(' ')[0]);
      seconds = Math.min(seconds, (performance.now() - started) / 1000);
    }
    const path = `${scratch}cran.${name.split(' ')[0].toLowerCase()}.run`;
    writeFileSync(path, text);
    rows.push({
      system: `${name} (default BM25)`,
      ...evaluate(qrels, path),
      indexSeconds: indexBest,
      querySeconds: seconds,
    });
  }

  console.log(
    `Cranfield: ${docs.length} documents, ${queries.length} queries, top 1000, best of ${repeat} (MiniSearch/Orama 3)`,
  );
  console.log('| system | nDCG@10 | MAP | index docs/s | queries/s |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${r.system} | ${r.ndcg.toFixed(4)} | ${r.map.toFixed(4)} | ${Number.isNaN(r.indexSeconds) ? '' : Math.round(docs.length / r.indexSeconds)} | ${Number.isNaN(r.querySeconds) ? '' : Math.round(queries.length / r.querySeconds)} |`,
    );
}

// ---------------------------------------------------------------- scale (one child per engine)

async function scaleChild(engine, documents, queryCount) {
  const R = await lib();
  const { collection, queries } = synthetic(R.parseCollection, documents, queryCount);
  globalThis.gc?.();
  const baseHeap = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  let indexSeconds;
  let search;
  let size = '';
  let keep;
  if (engine === 'assay') {
    const started = performance.now();
    const builder = new R.IndexBuilder(R.DEFAULT_ANALYZER);
    for (const d of collection) builder.add(d);
    const index = builder.finish();
    indexSeconds = (performance.now() - started) / 1000;
    const path = `${scratch}synthetic.index`;
    R.saveIndex(path, index, R.DEFAULT_BM25);
    size = `${(statSync(path).size / 1e6).toFixed(0)} MB file`;
    const searcher = new R.Bm25Searcher(index);
    keep = index;
    search = (text) => searcher.search(text, 100);
  } else {
    const e = await minisearchEngine(collection);
    indexSeconds = e.indexSeconds;
    keep = e.index;
    search = (text) => e.search(text, 100);
  }
  globalThis.gc?.();
  const heap = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - baseHeap;
  const started = performance.now();
  let returned = 0;
  for (const q of queries) returned += search(q.text).length;
  const querySeconds = (performance.now() - started) / 1000;
  void keep;
  console.log(
    JSON.stringify({
      engine,
      documents,
      queries: queries.length,
      indexSeconds,
      querySeconds,
      returned,
      peakRssMB: process.resourceUsage().maxRSS / 1024,
      indexHeapMB: heap / 1e6,
      size,
    }),
  );
}

function scaleTable(documents, queryCount, minisearchQueries) {
  const rows = [];
  for (const [engine, queries] of [
    ['assay', queryCount],
    ['minisearch', minisearchQueries],
  ]) {
    const r = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        '--max-old-space-size=8192',
        fileURLToPath(import.meta.url),
        '--child',
        engine,
        '--docs',
        String(documents),
        '--queries',
        String(queries),
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );
    if (r.status !== 0) throw new Error(`scale run of ${engine} failed`);
    rows.push(JSON.parse(r.stdout.trim().split('\n').at(-1)));
  }
  console.log(
    `\nScale: ${documents} synthetic documents (seeded, Cranfield words and lengths), top 100`,
  );
  console.log(
    '| engine | index s | docs/s | queries | ms/query | queries/s | peak RSS MB | index heap MB | saved |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of rows)
    console.log(
      `| ${r.engine} | ${r.indexSeconds.toFixed(1)} | ${Math.round(r.documents / r.indexSeconds)} | ${r.queries} | ${((1000 * r.querySeconds) / r.queries).toFixed(2)} | ${(r.queries / r.querySeconds).toFixed(1)} | ${Math.round(r.peakRssMB)} | ${Math.round(r.indexHeapMB)} | ${r.size} |`,
    );
  const [a, m] = rows;
  console.log(
    `assay vs MiniSearch: indexing ${(m.indexSeconds / a.indexSeconds).toFixed(1)}x faster, queries ${(m.querySeconds / m.queries / (a.querySeconds / a.queries)).toFixed(1)}x faster, index heap ${(m.indexHeapMB / a.indexHeapMB).toFixed(1)}x smaller`,
  );
}

// ---------------------------------------------------------------- main

const documents = Number(arg('--docs', 200000));
const queryCount = Number(arg('--queries', 1000));
if (argv[0] === '--child') {
  await scaleChild(argv[1], documents, queryCount);
} else {
  setup();
  if (!argv.includes('--skip-cranfield')) await cranfieldTable();
  if (!argv.includes('--skip-scale'))
    scaleTable(documents, queryCount, Number(arg('--minisearch-queries', 100)));
}
