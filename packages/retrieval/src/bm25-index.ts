import { createHash } from 'node:crypto';
import { compareBytewise } from '@assay/trec';
import { type Analyzer, type AnalyzerConfig, createAnalyzer } from './analysis.js';
import { TermCounter } from './term-counter.js';
import { GrowableUint32 } from './growable.js';

/** BM25 parameters: term-frequency saturation k1 and length normalisation b. */
export interface Bm25Params {
  k1: number;
  b: number;
}

/** Lucene's and Anserini's defaults: k1 = 0.9, b = 0.4. */
export const DEFAULT_BM25: Bm25Params = { k1: 0.9, b: 0.4 };

/** A document to index: title and text are indexed together as one field. */
export interface IndexableDocument {
  id: string;
  title?: string;
  text: string;
}

/** The arrays an index is made of (what a saved index holds). */
export interface Bm25IndexData {
  analyzer: AnalyzerConfig;
  /** Document ids in index order (document number = position). */
  docIds: string[];
  /** Vocabulary in term-number order. */
  terms: string[];
  /** Tokens per document after analysis. */
  docLengths: Uint32Array;
  /** Postings of term t are positions termOffsets[t] .. termOffsets[t+1]. */
  termOffsets: Uint32Array;
  /** Document numbers of the postings, ascending within a term. */
  postingDocs: Uint32Array;
  /** Term frequencies of the postings (saturating at 65,535). */
  postingTfs: Uint16Array;
  /** Terms of document d are positions docOffsets[d] .. docOffsets[d+1] (forward index). */
  docOffsets: Uint32Array;
  docTerms: Uint32Array;
  docTfs: Uint16Array;
  /**
   * `sha256:` fingerprint of the indexed documents (see {@link documentsFingerprint}): the
   * same documents give the same fingerprint in whatever order they were indexed.
   */
  fingerprint: string;
}

/** The text a document is indexed, embedded and shown by: its title (if any), a newline, its text. */
export function documentText(doc: { title?: string | undefined; text: string }): string {
  return doc.title ? `${doc.title}\n${doc.text}` : doc.text;
}

/** Lucene's BM25 idf: ln(1 + (N − df + 0.5) / (df + 0.5)). */
export function bm25Idf(documents: number, df: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

/**
 * An inverted index for BM25 in typed arrays, with a forward index (each document's terms
 * and frequencies) for pseudo-relevance feedback. Build with {@link IndexBuilder} or
 * {@link buildIndex}; save and load with `saveIndex`/`loadIndex`.
 */
export class Bm25Index {
  readonly analyzer: Analyzer;
  readonly data: Bm25IndexData;
  readonly termIds: Map<string, number>;
  readonly documentCount: number;
  readonly averageLength: number;
  private docOrder: Uint32Array | undefined;
  private normCache: { key: string; norms: Float64Array } | undefined;
  private boundCache: { key: string; bounds: Float64Array } | undefined;

  constructor(data: Bm25IndexData) {
    this.data = data;
    this.analyzer = createAnalyzer(data.analyzer);
    this.termIds = new Map(data.terms.map((t, i) => [t, i]));
    this.documentCount = data.docIds.length;
    let total = 0;
    for (let d = 0; d < data.docLengths.length; d++) total += data.docLengths[d]!;
    this.averageLength = this.documentCount === 0 ? 0 : total / this.documentCount;
  }

  /** Number of documents containing term number `t`. */
  df(t: number): number {
    return this.data.termOffsets[t + 1]! - this.data.termOffsets[t]!;
  }

  /** Lucene idf of term number `t`. */
  idf(t: number): number {
    return bm25Idf(this.documentCount, this.df(t));
  }

  /** Term number `t`'s postings (documents ascending, with their tfs): views of the index's arrays. */
  postings(t: number): { docs: Uint32Array; tfs: Uint16Array } {
    const { termOffsets, postingDocs, postingTfs } = this.data;
    const from = termOffsets[t]!;
    const to = termOffsets[t + 1]!;
    return { docs: postingDocs.subarray(from, to), tfs: postingTfs.subarray(from, to) };
  }

  /** The largest tf/(tf + k1·(1 − b + b·dl/avgdl)) among term t's postings (kept for the last parameters). */
  bound(t: number, params: Bm25Params): number {
    const key = `${params.k1}/${params.b}`;
    if (this.boundCache?.key !== key)
      this.boundCache = { key, bounds: new Float64Array(this.data.terms.length).fill(Number.NaN) };
    let b = this.boundCache.bounds[t]!;
    if (Number.isNaN(b)) {
      const { docs, tfs } = this.postings(t);
      b = saturationBound(docs, tfs, this.lengthNorms(params));
      this.boundCache.bounds[t] = b;
    }
    return b;
  }

  /** Document number `d`'s id. */
  docno(d: number): string {
    return this.data.docIds[d]!;
  }

  /** Total postings (document–term pairs). */
  get postingCount(): number {
    return this.data.postingDocs.length;
  }

  /** Term numbers and frequencies of document `d`. */
  documentTerms(d: number): { terms: Uint32Array; tfs: Uint16Array } {
    const from = this.data.docOffsets[d]!;
    const to = this.data.docOffsets[d + 1]!;
    return {
      terms: this.data.docTerms.subarray(from, to),
      tfs: this.data.docTfs.subarray(from, to),
    };
  }

  /**
   * Each document's position in docno byte order, so ties can be broken as trec_eval
   * breaks them (higher docno first) with an integer comparison.
   */
  docnoOrder(): Uint32Array {
    if (!this.docOrder) {
      const ids = this.data.docIds;
      const sorted = ids.map((_, i) => i).sort((a, b) => compareBytewise(ids[a]!, ids[b]!));
      const order = new Uint32Array(ids.length);
      sorted.forEach((d, position) => (order[d] = position));
      this.docOrder = order;
    }
    return this.docOrder;
  }

  /** k1·(1 − b + b·dl/avgdl) for every document, cached for the last parameters. */
  lengthNorms(params: Bm25Params): Float64Array {
    const key = `${params.k1}/${params.b}`;
    if (this.normCache?.key === key) return this.normCache.norms;
    const { k1, b } = params;
    const lengths = this.data.docLengths;
    const norms = new Float64Array(lengths.length);
    const avg = this.averageLength || 1;
    for (let d = 0; d < lengths.length; d++) norms[d] = k1 * (1 - b + (b * lengths[d]!) / avg);
    this.normCache = { key, norms };
    return norms;
  }
}

/** The largest tf/(tf + norm) among postings `docs`/`tfs`, with `norms` by document (0 if none). */
export function saturationBound(docs: Uint32Array, tfs: Uint16Array, norms: Float64Array): number {
  let b = 0;
  for (let i = 0; i < docs.length; i++) {
    const v = tfs[i]! / (tfs[i]! + norms[docs[i]!]!);
    if (v > b) b = v;
  }
  return b;
}

/** Builds an index one document at a time (the CLI reports progress between documents). */
export class IndexBuilder {
  private readonly analyzer: Analyzer;
  private readonly counter = new TermCounter();
  private readonly docIds: string[] = [];
  private readonly lengths = new GrowableUint32();
  private readonly df = new GrowableUint32();
  private readonly docOffsets = new GrowableUint32();
  private readonly docTerms = new GrowableUint32(1 << 16);
  private readonly docTfs = new GrowableUint32(1 << 16);
  private readonly digests: Buffer[] = [];

  constructor(readonly config: AnalyzerConfig) {
    this.analyzer = createAnalyzer(config);
    this.docOffsets.push(0);
  }

  /** Number of documents added so far. */
  get size(): number {
    return this.docIds.length;
  }

  /** Analyses and adds one document (title and text together). */
  add(doc: IndexableDocument): void {
    this.digests.push(documentDigest(doc));
    const tokens = this.analyzer.analyze(documentText(doc));
    const touched = this.counter.count(tokens);
    touched.sort((a, b) => a - b);
    for (const t of touched) {
      this.docTerms.push(t);
      this.docTfs.push(this.counter.take(t));
      this.df.increment(t);
    }
    this.docOffsets.push(this.docTerms.length);
    this.lengths.push(tokens.length);
    this.docIds.push(doc.id);
  }

  /** The finished index (postings laid out term by term). */
  finish(): Bm25Index {
    const termCount = this.counter.terms.length;
    const df = this.df.toArray();
    const termOffsets = new Uint32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) termOffsets[t + 1] = termOffsets[t]! + (df[t] ?? 0);
    const docOffsets = this.docOffsets.toArray();
    const docTerms = this.docTerms.toArray();
    const docTfs = Uint16Array.from(this.docTfs.toArray());
    const postingDocs = new Uint32Array(docTerms.length);
    const postingTfs = new Uint16Array(docTerms.length);
    const fill = termOffsets.slice(0, termCount);
    for (let d = 0; d < this.docIds.length; d++) {
      for (let i = docOffsets[d]!; i < docOffsets[d + 1]!; i++) {
        const t = docTerms[i]!;
        const at = fill[t]!++;
        postingDocs[at] = d;
        postingTfs[at] = docTfs[i]!;
      }
    }
    return new Bm25Index({
      analyzer: this.config,
      docIds: this.docIds,
      terms: this.counter.terms,
      docLengths: this.lengths.toArray(),
      termOffsets,
      postingDocs,
      postingTfs,
      docOffsets,
      docTerms,
      docTfs,
      fingerprint: combineDigests(this.docIds, this.digests),
    });
  }
}

/** SHA-256 of one document's id, title and text. */
export function documentDigest(doc: IndexableDocument): Buffer {
  return createHash('sha256')
    .update(`${doc.id}\u0000${doc.title ?? ''}\u0000${doc.text}`)
    .digest();
}

/**
 * The fingerprint of a collection, as every index records it: SHA-256 over the SHA-256 of
 * each document's id, title and text, taken in docno byte order, so a collection read from
 * a file (file order) and the same collection read from the database (docno order) have
 * one fingerprint. A missing title and an empty one count the same.
 */
function combineDigests(ids: readonly string[], digests: readonly Buffer[]): string {
  const order = ids.map((_, i) => i).sort((a, b) => compareBytewise(ids[a]!, ids[b]!));
  const hash = createHash('sha256');
  for (const i of order) hash.update(digests[i]!);
  return `sha256:${hash.digest('hex')}`;
}

/** Indexes documents in one call. Duplicate ids are the caller's to prevent (the readers do). */
export function buildIndex(docs: Iterable<IndexableDocument>, analyzer: AnalyzerConfig): Bm25Index {
  const builder = new IndexBuilder(analyzer);
  for (const doc of docs) builder.add(doc);
  return builder.finish();
}
