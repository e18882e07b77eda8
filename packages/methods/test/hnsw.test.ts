import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryCallStore } from '@assay/llm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '@assay/test-support/openai-test-server';
import { DenseIndex } from '../src/dense-index.js';
import {
  cachedHnswIndex,
  checkHnswParams,
  HNSW_DEFAULTS,
  hnswCacheFile,
  HnswIndex,
} from '../src/hnsw-index.js';
import { retrieveWithModels } from '../src/index.js';
import { resources, startDouble } from './helpers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'assay-hnsw-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// Park-Miller with a fixed seed: the same 2,000 × 32 vectors and 50 queries every run.
let seed = 11;
const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
const DIMS = 32;
const vector = () => Float32Array.from({ length: DIMS }, random);
const VECTORS = Array.from({ length: 2000 }, vector);
const DOCNOS = VECTORS.map((_, i) => `d${String(i).padStart(4, '0')}`);
const QUERIES = Array.from({ length: 50 }, vector);

/** Cosine in double precision, written out here rather than taken from the index. */
function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let j = 0; j < a.length; j++) {
    dot += a[j]! * b[j]!;
    na += a[j]! * a[j]!;
    nb += b[j]! * b[j]!;
  }
  return dot / Math.sqrt(na * nb);
}

/** The k nearest docnos by brute force: every cosine computed, sorted. */
function bruteForce(query: Float32Array, k: number): string[] {
  return VECTORS.map((v, i) => ({ docno: DOCNOS[i]!, score: cosine(query, v) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((h) => h.docno);
}

describe('HnswIndex', () => {
  const exact = new DenseIndex(DOCNOS, VECTORS);
  const hnsw = HnswIndex.build(exact, HNSW_DEFAULTS);

  it('finds at least 95% of the true top 10 with the default parameters', () => {
    let found = 0;
    for (const q of QUERIES) {
      const truth = new Set(bruteForce(q, 10));
      const hits = hnsw.search(q, 10);
      expect(hits).toHaveLength(10);
      found += hits.filter((h) => truth.has(h.docno)).length;
    }
    expect(found / (10 * QUERIES.length)).toBeGreaterThanOrEqual(0.95);
  });

  it("scores each hit by its exact cosine, best first", () => {
    const byDocno = new Map(DOCNOS.map((d, i) => [d, VECTORS[i]!]));
    for (const q of QUERIES.slice(0, 10)) {
      const hits = hnsw.search(q, 10);
      for (const h of hits) expect(h.score).toBeCloseTo(cosine(q, byDocno.get(h.docno)!), 5);
      for (let i = 1; i < hits.length; i++)
        expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    }
    expect(hnsw.search(QUERIES[0]!, 5000)).toHaveLength(2000);
    expect(() => hnsw.search(Float32Array.from([1, 2]), 1)).toThrow(
      'query has 2 dimensions, not 32',
    );
  });

  it('saves and loads the graph: the same hits, without building', () => {
    const file = join(dir, 'graph.bin');
    hnsw.save(file);
    const loaded = HnswIndex.load(exact, HNSW_DEFAULTS, file);
    expect(loaded.loaded).toBe(true);
    expect(hnsw.loaded).toBe(false);
    for (const q of QUERIES.slice(0, 10)) expect(loaded.search(q, 10)).toEqual(hnsw.search(q, 10));
    const fewer = new DenseIndex(DOCNOS.slice(0, 3), VECTORS.slice(0, 3));
    expect(() => HnswIndex.load(fewer, HNSW_DEFAULTS, file)).toThrow(
      `the HNSW index in ${file} holds 2000 vectors, not 3`,
    );
  });

  it('keeps a built graph in the cache folder and reads it on the next run', () => {
    const cache = join(dir, 'cache');
    const first = cachedHnswIndex(exact, HNSW_DEFAULTS, cache);
    expect(first.loaded).toBe(false);
    expect(readdirSync(cache)).toEqual([hnswCacheFile(cache, exact, HNSW_DEFAULTS).slice(cache.length + 1)]);
    const second = cachedHnswIndex(exact, HNSW_DEFAULTS, cache);
    expect(second.loaded).toBe(true);
    expect(second.search(QUERIES[1]!, 10)).toEqual(first.search(QUERIES[1]!, 10));
    // Another M is another graph; efSearch is not part of the graph.
    expect(hnswCacheFile(cache, exact, { ...HNSW_DEFAULTS, m: 8 })).not.toBe(
      hnswCacheFile(cache, exact, HNSW_DEFAULTS),
    );
    expect(hnswCacheFile(cache, exact, { ...HNSW_DEFAULTS, efSearch: 500 })).toBe(
      hnswCacheFile(cache, exact, HNSW_DEFAULTS),
    );
    // A damaged file is built again and replaced.
    writeFileSync(hnswCacheFile(cache, exact, HNSW_DEFAULTS), 'not a graph');
    const third = cachedHnswIndex(exact, HNSW_DEFAULTS, cache);
    expect(third.loaded).toBe(false);
    expect(cachedHnswIndex(exact, HNSW_DEFAULTS, cache).loaded).toBe(true);
  });

  it('rejects parameters out of range, naming them', () => {
    expect(() => checkHnswParams({ ...HNSW_DEFAULTS, m: 1 })).toThrow(
      'HNSW m must be a whole number from 2 to 128, not 1',
    );
    expect(() => checkHnswParams({ ...HNSW_DEFAULTS, efConstruction: 20.5 })).toThrow(
      'HNSW efConstruction must be a whole number from 10 to 10000, not 20.5',
    );
    expect(() => HnswIndex.build(exact, { ...HNSW_DEFAULTS, efSearch: 0 })).toThrow(
      'HNSW efSearch must be a whole number from 1 to 10000, not 0',
    );
  });
});

describe('dense with --dense-index hnsw', () => {
  const TOY = { 'alpha beta': [1, 0], beta: [0, 1], gamma: [1, 1], 'what about alpha': [3, 1] };

  it('ranks as exact search does on a small collection and records the parameters', async () => {
    process.env.ASSAY_ANN_CACHE = join(dir, 'run-cache');
    try {
      server = await startDouble(() => ({ status: 400 }), TOY);
      const result = await retrieveWithModels(
        [{ id: 't1', text: 'what about alpha' }],
        resources(server, new MemoryCallStore(), { embeddingModel: 'e' }),
        { method: 'dense', k: 3, settings: { denseIndex: 'hnsw', hnswEfSearch: 50 } },
      );
      // [3,1]: cos with d1 [1,0] = 3/√10, with d3 [1,1] = 4/√20, with d2 [0,1] = 1/√10.
      const entries = result.run.topics.get('t1')!;
      expect(entries.map((e) => e.docno)).toEqual(['d1', 'd3', 'd2']);
      expect(entries[1]!.score).toBeCloseTo(4 / Math.sqrt(20), 6);
      expect(result.parameters).toMatchObject({
        'dense.dense-index': 'hnsw',
        'dense.hnsw-m': 16,
        'dense.hnsw-ef-construction': 200,
        'dense.hnsw-ef-search': 50,
      });
      expect(readdirSync(join(dir, 'run-cache'))).toHaveLength(1);
    } finally {
      delete process.env.ASSAY_ANN_CACHE;
    }
  });

  it('rejects HNSW settings without --dense-index hnsw, and out-of-range values', async () => {
    server = await startDouble(() => ({ status: 400 }), TOY);
    const run = (settings: Record<string, unknown>) =>
      retrieveWithModels(
        [{ id: 't1', text: 'beta' }],
        resources(server!, new MemoryCallStore(), { embeddingModel: 'e' }),
        { method: 'dense', k: 3, settings },
      );
    await expect(run({ hnswM: 8 })).rejects.toThrow('hnswM applies to denseIndex hnsw');
    await expect(run({ denseIndex: 'hnsw', hnswM: 1 })).rejects.toThrow(
      'hnswM needs a whole number from 2 to 128, not 1',
    );
    await expect(run({ denseIndex: 'faiss' })).rejects.toThrow('denseIndex needs one of exact');
  });
});
