#!/usr/bin/env node
// Dense search benchmark: exact cosine top-k over N document vectors of D dimensions held
// in one Float32Array (assay's DenseIndex), with random unit vectors from a fixed seed.
// Prints index build time, memory of the matrix and queries per second.
//
// Usage: node bench/dense.mjs [--docs 100000] [--dims 384] [--queries 50] [--k 1000]
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { seeded } from './seeded.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const scratch = `${root}bench/out/dense/`;
const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i < 0 ? fallback : Number(argv[i + 1]);
};
const docs = arg('--docs', 100_000);
const dims = arg('--dims', 384);
const queries = arg('--queries', 50);
const k = arg('--k', 1000);

// Generated files go under dist/, which lint and git leave alone.
mkdirSync(`${scratch}dist`, { recursive: true });
writeFileSync(
  `${scratch}dist/entry.ts`,
  `export { DenseIndex } from '../../../../packages/methods/src/dense-index.ts';\n`,
);
createRequire(import.meta.url)('esbuild').buildSync({
  entryPoints: [`${scratch}dist/entry.ts`],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: `${scratch}dist/dense.mjs`,
  logLevel: 'warning',
});
const { DenseIndex } = await import(pathToFileURL(`${scratch}dist/dense.mjs`).href);

// Seeded, so every run measures the same vectors.
const random = seeded(42);
const vector = () => Float32Array.from({ length: dims }, () => random() * 2 - 1);

const vectors = Array.from({ length: docs }, vector);
const docnos = vectors.map((_, i) => `doc${i}`);
let start = performance.now();
const index = new DenseIndex(docnos, vectors);
const buildMs = performance.now() - start;
const topics = Array.from({ length: queries }, vector);
index.search(topics[0], k); // warm-up
start = performance.now();
for (const q of topics) index.search(q, k);
const seconds = (performance.now() - start) / 1000;
console.log(
  `dense exact cosine: ${docs} docs x ${dims} dims (${((docs * dims * 4) / 2 ** 20).toFixed(0)} MiB matrix), ` +
    `build ${buildMs.toFixed(0)} ms, top ${k}: ${(queries / seconds).toFixed(1)} queries/s ` +
    `(${((seconds / queries) * 1000).toFixed(1)} ms/query)`,
);
