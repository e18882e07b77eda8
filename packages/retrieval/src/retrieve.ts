import type { Run, RunEntry } from '@assay/trec';
import { describeAnalyzer } from './analysis.js';
import { type Bm25Index, type Bm25Params, DEFAULT_BM25 } from './bm25-index.js';
import { type DiskBm25Index, DiskBm25Searcher } from './disk-index.js';
import {
  DEFAULT_RM3,
  DEFAULT_ROCCHIO,
  DEFAULT_WEIGHTED_ROCCHIO,
  documentQuery,
  rm3Query,
  rocchioQuery,
  weightedRocchioQuery,
  type Rm3Options,
  type RocchioOptions,
  type WeightedRocchioOptions,
} from './feedback.js';
import { fuseRuns } from './fusion.js';
import { analyzeQuery, Bm25Searcher, type Hit } from './search.js';

/** The retrieval methods of {@link retrieveRun}. */
export const RETRIEVAL_METHODS = ['bm25', 'rm3', 'rocchio', 'rocchio-weighted', 'qbd'] as const;
/** One of {@link RETRIEVAL_METHODS}. */
export type RetrievalMethod = (typeof RETRIEVAL_METHODS)[number];

/** Query-by-document settings. */
export interface QbdOptions {
  /** Top documents of the first ranking used as queries. */
  fbDocs: number;
  /** Terms taken from each document. */
  fbTerms: number;
  /** RRF constant for fusing the query's ranking with the documents' rankings. */
  rrfK: number;
}

/** Query-by-document defaults: 10 documents of 10 terms each, RRF k = 60. */
export const DEFAULT_QBD: QbdOptions = { fbDocs: 10, fbTerms: 10, rrfK: 60 };

/** Options of {@link retrieveRun}; feedback settings not given take their defaults. */
export interface RetrieveOptions {
  method: RetrievalMethod;
  /** Documents per topic (default 1000). */
  k?: number;
  bm25?: Partial<Bm25Params>;
  rm3?: Partial<Rm3Options>;
  rocchio?: Partial<RocchioOptions>;
  weightedRocchio?: Partial<WeightedRocchioOptions>;
  qbd?: Partial<QbdOptions>;
  /** Run tag (default: the method). */
  tag?: string;
  /** Called after each topic with the number done. */
  onProgress?: (done: number, total: number) => void;
}

/** A retrieved run and the parameters that made it. */
export interface RetrievedRun {
  run: Run;
  /** Every setting that shaped the run, for `#` header lines and stored metadata. */
  parameters: Record<string, string | number>;
  /** The topics without entries, in topic order, and why. */
  missing: Array<{ topic: string; reason: string }>;
}

/** Why a query finds nothing: no term left after analysis, or none the collection has. */
export function emptyQueryReason(index: Bm25Index | DiskBm25Index, text: string): string {
  return index.analyzer.analyze(text).length === 0
    ? 'the query has no term after analysis (empty, or stopwords only)'
    : 'no term of the query occurs in the collection';
}

/** The settings a method actually uses, defaults filled in. */
export function resolveRetrieveParameters(
  index: Bm25Index,
  options: RetrieveOptions,
): Record<string, string | number> {
  const bm25 = { ...DEFAULT_BM25, ...options.bm25 };
  const p: Record<string, string | number> = {
    method: options.method,
    analyzer: describeAnalyzer(index.data.analyzer),
    k1: bm25.k1,
    b: bm25.b,
    k: options.k ?? 1000,
    index: index.data.fingerprint,
    documents: index.documentCount,
  };
  const prefix = (name: string, values: object) => {
    for (const [key, value] of Object.entries(values)) p[`${name}.${key}`] = value as number;
  };
  if (options.method === 'rm3') prefix('rm3', { ...DEFAULT_RM3, ...options.rm3 });
  if (options.method === 'rocchio') prefix('rocchio', { ...DEFAULT_ROCCHIO, ...options.rocchio });
  if (options.method === 'rocchio-weighted')
    prefix('rocchio-weighted', { ...DEFAULT_WEIGHTED_ROCCHIO, ...options.weightedRocchio });
  if (options.method === 'qbd') prefix('qbd', { ...DEFAULT_QBD, ...options.qbd });
  return p;
}

/**
 * Runs one retrieval method over topics and returns a TREC run (each topic's documents in
 * trec_eval order, ranks 1..n). A topic whose query has no known term gets no entries and
 * is listed in `missing` with the reason.
 */
export function retrieveRun(
  index: Bm25Index,
  topics: readonly { id: string; text: string }[],
  options: RetrieveOptions,
): RetrievedRun {
  const k = options.k ?? 1000;
  const searcher = new Bm25Searcher(index, { ...DEFAULT_BM25, ...options.bm25 });
  const rm3 = { ...DEFAULT_RM3, ...options.rm3 };
  const rocchio = { ...DEFAULT_ROCCHIO, ...options.rocchio };
  const weighted = { ...DEFAULT_WEIGHTED_ROCCHIO, ...options.weightedRocchio };
  const qbd = { ...DEFAULT_QBD, ...options.qbd };
  const tag = options.tag ?? options.method;
  const out = new Map<string, RunEntry[]>();
  const missing: RetrievedRun['missing'] = [];
  topics.forEach((topic, i) => {
    const query = analyzeQuery(index, topic.text);
    let hits: Hit[];
    switch (options.method) {
      case 'bm25':
        hits = searcher.searchWeighted(query, k);
        break;
      case 'rm3': {
        const first = searcher.searchWeighted(query, rm3.fbDocs);
        hits = searcher.searchWeighted(rm3Query(index, query, first, rm3), k);
        break;
      }
      case 'rocchio': {
        const depth = rocchio.gamma > 0 ? Math.max(k, rocchio.fbDocs) : rocchio.fbDocs;
        const first = searcher.searchWeighted(query, depth);
        hits = searcher.searchWeighted(rocchioQuery(index, query, first, rocchio), k);
        break;
      }
      case 'rocchio-weighted': {
        const first = searcher.searchWeighted(query, weighted.depth);
        hits = searcher.searchWeighted(weightedRocchioQuery(index, query, first, weighted), k);
        break;
      }
      case 'qbd':
        hits = queryByDocument(searcher, query, k, qbd);
        break;
    }
    out.set(
      topic.id,
      hits.map((h, r) => ({ docno: h.docno, rank: r + 1, score: h.score })),
    );
    if (hits.length === 0)
      missing.push({ topic: topic.id, reason: emptyQueryReason(index, topic.text) });
    options.onProgress?.(i + 1, topics.length);
  });
  return {
    run: { name: tag, topics: out },
    parameters: resolveRetrieveParameters(index, options),
    missing,
  };
}

/** The query's ranking fused by RRF with the rankings of its top documents used as queries. */
function queryByDocument(
  searcher: Bm25Searcher,
  query: Map<number, number>,
  k: number,
  options: QbdOptions,
): Hit[] {
  const first = searcher.searchWeighted(query, Math.max(k, options.fbDocs));
  const lists = [first.slice(0, k)];
  for (const hit of first.slice(0, options.fbDocs))
    lists.push(searcher.searchWeighted(documentQuery(searcher.index, hit.doc, options.fbTerms), k));
  const runs: Run[] = lists.map((hits) => ({
    name: 'part',
    topics: new Map([['q', hits.map((h, r) => ({ docno: h.docno, rank: r + 1, score: h.score }))]]),
  }));
  const fused = fuseRuns(runs, { method: 'rrf', k: options.rrfK, depth: k }).topics.get('q') ?? [];
  const docs = new Map<string, number>();
  for (const list of lists) for (const h of list) docs.set(h.docno, h.doc);
  return fused.map((e) => ({ doc: docs.get(e.docno)!, docno: e.docno, score: e.score }));
}

/** `# key: value` lines describing a run, for the top of a run file. */
export function runHeader(
  parameters: Record<string, string | number>,
  extra: Record<string, string> = {},
): string {
  const lines = Object.entries({ ...extra, ...parameters }).map(
    ([key, value]) => `# ${key}: ${String(value).replace(/[\r\n]+/g, ' ')}`,
  );
  return `${lines.join('\n')}\n`;
}

/** Options of {@link retrieveDiskRun}: BM25 only (an on-disk index has no forward index). */
export interface DiskRetrieveOptions {
  /** Documents per topic (default 1000). */
  k?: number;
  bm25?: Partial<Bm25Params>;
  /** MaxScore (the default) or, when false, scoring every posting: the same run. */
  pruning?: boolean;
  /** Run tag (default: bm25). */
  tag?: string;
  onProgress?: (done: number, total: number) => void;
  /**
   * A searcher of `index` with these parameters to search with, kept by a caller that
   * retrieves topics a slice at a time (its score buffer is as large as the collection).
   */
  searcher?: DiskBm25Searcher;
}

/**
 * BM25 over an on-disk index into a TREC run, with the parameters {@link retrieveRun}
 * records for `bm25`: the same documents indexed either way give the same run.
 */
export function retrieveDiskRun(
  index: DiskBm25Index,
  topics: readonly { id: string; text: string }[],
  options: DiskRetrieveOptions = {},
): RetrievedRun {
  const k = options.k ?? 1000;
  const bm25 = { ...DEFAULT_BM25, ...options.bm25 };
  const searcher = options.searcher ?? new DiskBm25Searcher(index, bm25, options.pruning ?? true);
  const out = new Map<string, RunEntry[]>();
  const missing: RetrievedRun['missing'] = [];
  topics.forEach((topic, i) => {
    const hits = searcher.search(topic.text, k);
    out.set(
      topic.id,
      hits.map((h, r) => ({ docno: h.docno, rank: r + 1, score: h.score })),
    );
    if (hits.length === 0)
      missing.push({ topic: topic.id, reason: emptyQueryReason(index, topic.text) });
    options.onProgress?.(i + 1, topics.length);
  });
  return {
    run: { name: options.tag ?? 'bm25', topics: out },
    parameters: {
      method: 'bm25',
      analyzer: describeAnalyzer(index.header.analyzer),
      k1: bm25.k1,
      b: bm25.b,
      k,
      index: index.header.fingerprint,
      documents: index.documentCount,
    },
    missing,
  };
}
