#!/usr/bin/env node
// Approximate against exact dense search: N seeded random document vectors of D dimensions,
// searched exactly (assay's DenseIndex, every cosine) and through an HNSW graph (hnswlib,
// assay's HnswIndex, hits rescored by exact cosine). Prints the graph's build time, memory
// and file size, query latency p50/p95 of both, their ratio, and HNSW's recall@k against
// the exact top k, for each efSearch given. pgvector is measured when the PostgreSQL server
// at DATABASE_URL offers the `vector` extension; otherwise the bench says why not.
//
// Usage: node bench/ann.mjs [--docs 100000] [--dims 384] [--queries 100] [--k 100]
//          [--m 16] [--ef-construction 200] [--ef-search 100,200,400] [--clusters 0]
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { numberFlag } from './args.mjs';
import { seeded } from './seeded.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const scratch = `${root}bench/out/ann/`;
const args = process.argv.slice(2);
const docs = numberFlag(args, '--docs', 100_000);
const dims = numberFlag(args, '--dims', 384);
const queries = numberFlag(args, '--queries', 100);
const k = numberFlag(args, '--k', 100);
const m = numberFlag(args, '--m', 16);
const efConstruction = numberFlag(args, '--ef-construction', 200);
const efAt = args.indexOf('--ef-search');
const efSearches = efAt < 0 ? [100, 200, 400] : args[efAt + 1].split(',').map(Number);

// Generated files go under dist/, which lint and git leave alone.
mkdirSync(`${scratch}dist`, { recursive: true });
writeFileSync(
  `${scratch}dist/entry.ts`,
  `export { DenseIndex } from '../../../../packages/methods/src/dense-index.ts';\n` +
    `export { HnswIndex } from '../../../../packages/methods/src/hnsw-index.ts';\n`,
);
createRequire(import.meta.url)('esbuild').buildSync({
  entryPoints: [`${scratch}dist/entry.ts`],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: `${scratch}dist/ann.mjs`,
  logLevel: 'warning',
});
const { DenseIndex, HnswIndex } = await import(pathToFileURL(`${scratch}dist/ann.mjs`).href);

const clusters = numberFlag(args, '--clusters', 0);
const random = seeded(42);
const uniform = () => Float32Array.from({ length: dims }, () => random() * 2 - 1);
// Uniform vectors have no structure, the hardest case for a graph; embeddings of text are
// clustered. With --clusters C each vector is one of C random centres plus noise a third
// of its size.
const centres = Array.from({ length: clusters }, uniform);
const vector = () => {
  if (clusters === 0) return uniform();
  const centre = centres[Math.floor(random() * clusters)];
  return centre.map((x) => x + (random() * 2 - 1) / 3);
};
const docnos = Array.from({ length: docs }, (_, i) => `doc${i}`);
const exact = new DenseIndex(docnos, Array.from({ length: docs }, vector));
const topics = Array.from({ length: queries }, vector);
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** Runs `search` on every topic: each one's hits and the latencies (ms) sorted. */
async function timed(search) {
  await search(topics[0]); // warm-up
  const hits = [];
  const ms = [];
  for (const q of topics) {
    const start = performance.now();
    hits.push(await search(q));
    ms.push(performance.now() - start);
  }
  return { hits, ms: ms.sort((a, b) => a - b) };
}
const latency = ({ ms }) =>
  `p50 ${percentile(ms, 0.5).toFixed(2)} ms, p95 ${percentile(ms, 0.95).toFixed(2)} ms`;
const recallOf = (hits) => {
  let found = 0;
  hits.forEach((h, i) => {
    const truth = new Set(exactRun.hits[i].map((x) => x.docno));
    found += h.filter((x) => truth.has(x.docno)).length;
  });
  return found / (exactRun.hits.length * Math.min(k, docs));
};

console.log(
  `${docs.toLocaleString('en-US')} docs x ${dims} dims (${mib(docs * dims * 4)} of vectors${clusters ? `, ${clusters} clusters` : ', uniform'}), ${queries} queries, top ${k}`,
);
const exactRun = await timed((q) => exact.search(q, k));
console.log(`exact cosine:  ${latency(exactRun)}`);

globalThis.gc?.();
const rssBefore = process.memoryUsage().rss;
let start = performance.now();
const params = { m, efConstruction, efSearch: efSearches[0] };
const hnsw = HnswIndex.build(exact, params);
const buildSeconds = (performance.now() - start) / 1000;
const rssAfter = process.memoryUsage().rss;
const dir = mkdtempSync(join(tmpdir(), 'assay-ann-'));
const file = join(dir, 'graph.bin');
hnsw.save(file);
start = performance.now();
HnswIndex.load(exact, params, file);
const loadSeconds = (performance.now() - start) / 1000;
console.log(
  `hnsw build (M ${m}, efConstruction ${efConstruction}): ${buildSeconds.toFixed(1)} s ` +
    `(${Math.round(docs / buildSeconds).toLocaleString('en-US')} vectors/s), memory +${mib(rssAfter - rssBefore)} RSS, ` +
    `file ${mib(statSync(file).size)}, load ${loadSeconds.toFixed(2)} s`,
);
rmSync(dir, { recursive: true, force: true });
const exactP50 = percentile(exactRun.ms, 0.5);
for (const efSearch of efSearches) {
  const run = await timed((q) => hnsw.search(q, k, efSearch));
  console.log(
    `hnsw efSearch ${efSearch}: ${latency(run)}, recall@${k} ${recallOf(run.hits).toFixed(3)}, ` +
      `exact/hnsw p50 ${(exactP50 / percentile(run.ms, 0.5)).toFixed(1)}x`,
  );
}

await pgvector();

/** pgvector's HNSW index over the same vectors, when the server offers the extension. */
async function pgvector() {
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  if (!/^postgres(ql)?:/.test(url)) {
    console.log('pgvector: not measured (DATABASE_URL is not a PostgreSQL server)');
    return;
  }
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const [row] =
      await sql`select default_version from pg_available_extensions where name = 'vector'`;
    if (!row) {
      console.log(
        `pgvector: not measured: the PostgreSQL server at ${new URL(url).host} does not offer the vector extension (no 'vector' in pg_available_extensions)`,
      );
      return;
    }
    await sql`create extension if not exists vector`;
    await sql`create temporary table ann_bench (id integer primary key, embedding vector(${sql.unsafe(String(dims))}))`;
    const literal = (v) => `[${Array.from(v).join(',')}]`;
    start = performance.now();
    for (let from = 0; from < docs; from += 1000) {
      const rows = [];
      for (let i = from; i < Math.min(docs, from + 1000); i++)
        rows.push({ id: i, embedding: literal(exact.vectorOf(docnos[i])) });
      await sql`insert into ann_bench ${sql(rows)}`;
    }
    const loadMs = performance.now() - start;
    start = performance.now();
    await sql.unsafe(
      `create index on ann_bench using hnsw (embedding vector_cosine_ops) with (m = ${m}, ef_construction = ${efConstruction})`,
    );
    const [size] = await sql`select pg_total_relation_size('ann_bench') as bytes`;
    console.log(
      `pgvector ${row.default_version} build (M ${m}, ef_construction ${efConstruction}): ${((performance.now() - start) / 1000).toFixed(1)} s ` +
        `(rows loaded in ${(loadMs / 1000).toFixed(1)} s), table and index ${mib(Number(size.bytes))}`,
    );
    for (const efSearch of efSearches) {
      await sql.unsafe(`set hnsw.ef_search = ${efSearch}`);
      const run = await timed(async (q) =>
        (
          await sql`select id from ann_bench order by embedding <=> ${literal(q)}::vector limit ${k}`
        ).map((r) => ({ docno: docnos[r.id] })),
      );
      console.log(
        `pgvector ef_search ${efSearch}: ${latency(run)}, recall@${k} ${recallOf(run.hits).toFixed(3)}`,
      );
    }
  } catch (error) {
    console.log(`pgvector: not measured: ${error.message}`);
  } finally {
    await sql.end();
  }
}
