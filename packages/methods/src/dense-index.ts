/** One dense hit: the document and its cosine similarity to the query. */
export interface DenseHit {
  docno: string;
  score: number;
}

/**
 * Exact cosine search over document vectors held in one Float32Array (row i = document i,
 * scaled to unit length when added). Ties are ordered as trec_eval orders them: the
 * document later in docno byte order first.
 */
export class DenseIndex {
  readonly docnos: string[];
  readonly dimensions: number;
  private readonly matrix: Float32Array;

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
  }

  get size(): number {
    return this.docnos.length;
  }

  /** The k documents most similar to `query` by cosine. */
  search(query: Float32Array, k: number): DenseHit[] {
    if (query.length !== this.dimensions)
      throw new RangeError(`query has ${query.length} dimensions, not ${this.dimensions}`);
    const q = unitVector(query);
    const d = this.dimensions;
    const scores = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) {
      let s = 0;
      const row = i * d;
      for (let j = 0; j < d; j++) s += this.matrix[row + j]! * q[j]!;
      scores[i] = s;
    }
    const order = Array.from({ length: this.size }, (_, i) => i);
    order.sort((a, b) => {
      const diff = scores[b]! - scores[a]!;
      if (diff !== 0) return diff;
      const x = this.docnos[a]!;
      const y = this.docnos[b]!;
      return x < y ? 1 : x > y ? -1 : 0;
    });
    return order.slice(0, k).map((i) => ({ docno: this.docnos[i]!, score: scores[i]! }));
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
