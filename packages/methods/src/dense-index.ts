import { TopK } from '@assay/retrieval';

/** One dense hit: the document and its cosine similarity to the query. */
export interface DenseHit {
  docno: string;
  score: number;
}

/**
 * What the methods search: the collection's vectors, by exact cosine ({@link DenseIndex})
 * or through an approximate nearest-neighbour graph (`HnswIndex`).
 */
export interface DenseSearcher {
  readonly size: number;
  readonly dimensions: number;
  /** A document's vector as stored (unit length), or undefined for an unknown docno. */
  vectorOf(docno: string): Float32Array | undefined;
  /** The k documents most similar to `query` by cosine, best first. */
  search(query: Float32Array, k: number): DenseHit[];
}

/**
 * Exact cosine search over document vectors held in one Float32Array (row i = document i,
 * scaled to unit length when added). Ties are ordered as trec_eval orders them: the
 * document later in docno byte order first.
 */
export class DenseIndex implements DenseSearcher {
  readonly docnos: string[];
  readonly dimensions: number;
  private readonly matrix: Float32Array;
  /** Position of each document in docno byte order (ties favour the later docno). */
  private readonly docnoOrder: Uint32Array;
  /** Row of each docno, made when a vector is first looked up. */
  private rows: Map<string, number> | undefined;

  constructor(docnos: readonly string[], vectors: readonly Float32Array[]) {
    if (docnos.length !== vectors.length)
      throw new RangeError(`${vectors.length} vectors for ${docnos.length} documents`);
    this.docnos = [...docnos];
    this.dimensions = vectors[0]?.length ?? 0;
    this.matrix = new Float32Array(vectors.length * this.dimensions);
    vectors.forEach((v, i) => {
      if (v.length !== this.dimensions)
        throw new RangeError(
          `document ${docnos[i]} has ${v.length} dimensions, not ${this.dimensions}`,
        );
      this.matrix.set(unitVector(v), i * this.dimensions);
    });
    const sorted = this.docnos.map((_, i) => i);
    sorted.sort((a, b) =>
      this.docnos[a]! < this.docnos[b]! ? -1 : this.docnos[a]! > this.docnos[b]! ? 1 : 0,
    );
    this.docnoOrder = new Uint32Array(this.docnos.length);
    sorted.forEach((doc, position) => (this.docnoOrder[doc] = position));
  }

  get size(): number {
    return this.docnos.length;
  }

  /** A document's vector as stored (unit length), or undefined for an unknown docno. */
  vectorOf(docno: string): Float32Array | undefined {
    this.rows ??= new Map(this.docnos.map((d, i) => [d, i]));
    const row = this.rows.get(docno);
    if (row === undefined) return undefined;
    return this.matrix.slice(row * this.dimensions, (row + 1) * this.dimensions);
  }

  /** The k documents most similar to `query` by cosine. */
  search(query: Float32Array, k: number): DenseHit[] {
    if (query.length !== this.dimensions)
      throw new RangeError(`query has ${query.length} dimensions, not ${this.dimensions}`);
    const q = unitVector(query);
    const d = this.dimensions;
    const top = new TopK(Math.min(k, this.size), this.docnoOrder);
    for (let i = 0; i < this.size; i++) {
      let score = 0;
      const row = i * d;
      for (let j = 0; j < d; j++) score += this.matrix[row + j]! * q[j]!;
      top.offer(i, score);
    }
    return top.results().map((h) => ({ docno: this.docnos[h.doc]!, score: h.score }));
  }

  /**
   * The exact cosine of `query` to each of the documents at `rows`, best first, ties in
   * trec_eval's order (an approximate search's candidates, scored as {@link search} would).
   */
  scoreRows(query: Float32Array, rows: readonly number[]): DenseHit[] {
    if (query.length !== this.dimensions)
      throw new RangeError(`query has ${query.length} dimensions, not ${this.dimensions}`);
    const q = unitVector(query);
    const d = this.dimensions;
    const top = new TopK(rows.length, this.docnoOrder);
    for (const i of rows) {
      let score = 0;
      const row = i * d;
      for (let j = 0; j < d; j++) score += this.matrix[row + j]! * q[j]!;
      top.offer(i, score);
    }
    return top.results().map((h) => ({ docno: this.docnos[h.doc]!, score: h.score }));
  }

  /** The unit-length vectors, row after row (what an approximate index is built from). */
  get rowsView(): Float32Array {
    return this.matrix;
  }
}

/** The vector scaled to unit length (a zero vector stays zero). */
export function unitVector(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return norm === 0 ? new Float32Array(v) : v.map((x) => x / norm);
}

/**
 * `wq · query + (1 − wq) · mean(others)`: AMD's dense aggregation (0.7 for the query, 0.3
 * for the mean of the refined answers' embeddings).
 */
export function weightedQueryVector(
  query: Float32Array,
  others: readonly Float32Array[],
  queryWeight: number,
): Float32Array {
  if (others.length === 0) return new Float32Array(query);
  const out = new Float32Array(query.length);
  for (let j = 0; j < query.length; j++) {
    let mean = 0;
    for (const o of others) mean += o[j]!;
    mean /= others.length;
    out[j] = queryWeight * query[j]! + (1 - queryWeight) * mean;
  }
  return out;
}
