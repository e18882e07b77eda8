import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HierarchicalNSW } from 'hnswlib-node';
import type { DenseHit, DenseIndex, DenseSearcher } from './dense-index.js';

/**
 * The parameters of an HNSW graph (Malkov & Yashunin 2018): `m` links per node and layer,
 * `efConstruction` candidates kept while inserting, `efSearch` candidates kept while
 * searching (raised to k when k is larger).
 */
export interface HnswParams {
  m: number;
  efConstruction: number;
  efSearch: number;
}

/** hnswlib's own defaults for M and efConstruction; efSearch above its 10, for recall. */
export const HNSW_DEFAULTS: Readonly<HnswParams> = { m: 16, efConstruction: 200, efSearch: 100 };

/** The range each parameter may take. */
export const HNSW_LIMITS: Readonly<Record<keyof HnswParams, readonly [number, number]>> = {
  m: [2, 128],
  efConstruction: [10, 10_000],
  efSearch: [1, 10_000],
};

/** Throws a RangeError naming the first parameter that is not a whole number in its range. */
export function checkHnswParams(params: HnswParams): void {
  for (const key of Object.keys(HNSW_LIMITS) as (keyof HnswParams)[]) {
    const [min, max] = HNSW_LIMITS[key];
    const value = params[key];
    if (!Number.isInteger(value) || value < min || value > max)
      throw new RangeError(`HNSW ${key} must be a whole number from ${min} to ${max}, not ${value}`);
  }
}

type Hnswlib = typeof import('hnswlib-node');
let hnswlib: Hnswlib | undefined;

/** hnswlib-node, loaded on first use (its native addon is built by `npm ci`). */
function loadHnswlib(): Hnswlib {
  if (hnswlib) return hnswlib;
  try {
    hnswlib = createRequire(import.meta.url)('hnswlib-node') as Hnswlib;
  } catch (error) {
    throw new Error(
      `the HNSW index needs hnswlib-node's native addon, built from source by npm install / npm ci (with python3, make and g++): ${(error as Error).message}`,
      { cause: error },
    );
  }
  return hnswlib;
}

/**
 * Approximate cosine search through an HNSW graph (hnswlib, inner product over the unit
 * vectors of a {@link DenseIndex}). The graph only proposes candidates: each hit's score is
 * the exact cosine from the vectors, and hits are ordered as the exact search orders them.
 */
export class HnswIndex implements DenseSearcher {
  /** Whether the graph was read from a file rather than built. */
  readonly loaded: boolean;

  private constructor(
    readonly exact: DenseIndex,
    readonly params: HnswParams,
    private readonly graph: HierarchicalNSW,
    loaded: boolean,
  ) {
    this.loaded = loaded;
  }

  /** Builds the graph over every vector of `exact` (row i gets label i). */
  static build(exact: DenseIndex, params: HnswParams = HNSW_DEFAULTS): HnswIndex {
    checkHnswParams(params);
    const graph = new (loadHnswlib().HierarchicalNSW)('ip', Math.max(exact.dimensions, 1));
    graph.initIndex(Math.max(exact.size, 1), params.m, params.efConstruction, 100);
    const rows = exact.rowsView;
    const d = exact.dimensions;
    for (let i = 0; i < exact.size; i++)
      graph.addPoint(Array.from(rows.subarray(i * d, (i + 1) * d)), i);
    return new HnswIndex(exact, params, graph, false);
  }

  /** Reads a graph saved by {@link save} for the same vectors. */
  static load(exact: DenseIndex, params: HnswParams, file: string): HnswIndex {
    checkHnswParams(params);
    const graph = new (loadHnswlib().HierarchicalNSW)('ip', Math.max(exact.dimensions, 1));
    graph.readIndexSync(file);
    if (graph.getCurrentCount() !== exact.size)
      throw new Error(
        `the HNSW index in ${file} holds ${graph.getCurrentCount()} vectors, not ${exact.size}`,
      );
    return new HnswIndex(exact, params, graph, true);
  }

  /** Writes the graph (with its vectors) to `file`. */
  save(file: string): void {
    this.graph.writeIndexSync(file);
  }

  get size(): number {
    return this.exact.size;
  }

  get dimensions(): number {
    return this.exact.dimensions;
  }

  vectorOf(docno: string): Float32Array | undefined {
    return this.exact.vectorOf(docno);
  }

  /** The k nearest by cosine as the graph finds them (`efSearch` defaults to the index's). */
  search(query: Float32Array, k: number, efSearch = this.params.efSearch): DenseHit[] {
    if (query.length !== this.dimensions)
      throw new RangeError(`query has ${query.length} dimensions, not ${this.dimensions}`);
    const n = Math.min(k, this.size);
    if (n <= 0) return [];
    this.graph.setEf(Math.max(efSearch, n));
    const { neighbors } = this.graph.searchKnn(Array.from(query), n);
    return this.exact.scoreRows(query, neighbors);
  }
}

/**
 * The folder where built HNSW graphs are kept between runs: ASSAY_ANN_CACHE, else
 * `$XDG_CACHE_HOME/assay/hnsw`, else `~/.cache/assay/hnsw`; ASSAY_ANN_CACHE=off keeps none.
 */
export function hnswCacheDir(): string | undefined {
  const set = process.env.ASSAY_ANN_CACHE;
  if (set === 'off') return undefined;
  if (set) return set;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'assay', 'hnsw');
}

/**
 * The file a graph of these vectors and build parameters is kept in: named by a hash of the
 * docnos, the unit vectors, M and efConstruction (efSearch is a search-time setting).
 */
export function hnswCacheFile(dir: string, exact: DenseIndex, params: HnswParams): string {
  const hash = createHash('sha256').update(
    `hnsw 1 ip m=${params.m} ef=${params.efConstruction} d=${exact.dimensions} n=${exact.size}\0`,
  );
  for (const docno of exact.docnos) hash.update(`${docno}\0`);
  const rows = exact.rowsView;
  hash.update(new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength));
  return join(dir, `hnsw-${hash.digest('hex').slice(0, 32)}.bin`);
}

/**
 * The HNSW index of these vectors: read from the cache when a run already built it, else
 * built and saved there (written beside its final name, then renamed). A cache that cannot
 * be read or written is no error: the graph is built again.
 */
export function cachedHnswIndex(
  exact: DenseIndex,
  params: HnswParams,
  dir: string | undefined = hnswCacheDir(),
): HnswIndex {
  checkHnswParams(params);
  if (dir === undefined) return HnswIndex.build(exact, params);
  const file = hnswCacheFile(dir, exact, params);
  if (existsSync(file)) {
    try {
      return HnswIndex.load(exact, params, file);
    } catch {
      // A damaged or foreign file: built again below and replaced.
    }
  }
  const index = HnswIndex.build(exact, params);
  const partial = `${file}.${process.pid}.partial`;
  try {
    mkdirSync(dir, { recursive: true });
    index.save(partial);
    renameSync(partial, file);
  } catch {
    rmSync(partial, { force: true });
  }
  return index;
}
