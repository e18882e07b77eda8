// Public surface of @assay/retrieval: analysis, a BM25 index in typed arrays, fusion,
// pseudo-relevance feedback and query-by-document, producing TREC runs.

/** Analysis: Unicode lowercasing, stopwords, Porter stemming; recorded with every index. */
export {
  ANALYZER_VERSION,
  createAnalyzer,
  DEFAULT_ANALYZER,
  describeAnalyzer,
  sameAnalyzer,
  type Analyzer,
  type AnalyzerConfig,
} from './analysis.js';
/** The BM25 index (Lucene BM25, k1 0.9, b 0.4) and its builder. */
export {
  bm25Idf,
  Bm25Index,
  buildIndex,
  DEFAULT_BM25,
  documentDigest,
  documentText,
  IndexBuilder,
  type Bm25IndexData,
  type Bm25Params,
  type IndexableDocument,
} from './bm25-index.js';
/**
 * BM25 search with a bounded heap; ties ordered as trec_eval orders them. One searcher
 * (exhaustive or MaxScore) over any postings source, in memory or on disk.
 */
export {
  analyzeQuery,
  Bm25Searcher,
  PostingsSearcher,
  weightTerms,
  type Hit,
  type Postings,
  type PostingsSource,
  type WeightedQuery,
} from './search.js';
/** Bounded top-k heap (score desc, docno desc). */
export { TopK } from './top-k.js';
/** Saving an index to one file and loading it back, with version and analyzer checks. */
export {
  deserializeIndex,
  INDEX_FORMAT_VERSION,
  loadIndex,
  saveIndex,
  serializeIndex,
  type IndexFileHeader,
} from './index-file.js';
/** The header both index files (saved whole, on disk) start with, and its error. */
export { IndexFileError, type IndexHeader } from './index-header.js';
/** Run fusion: RRF, CombSUM, CombMNZ (minmax, zscore, sum norms; weights), interleaving. */
export {
  fuseRuns,
  interleave,
  normalizeScores,
  type FusionMethod,
  type FusionOptions,
  type ScoreNorm,
} from './fusion.js';
/** Pseudo-relevance feedback: RM3, Rocchio, weighted Rocchio; documents as queries. */
export {
  DEFAULT_RM3,
  DEFAULT_ROCCHIO,
  DEFAULT_WEIGHTED_ROCCHIO,
  documentQuery,
  rm3Query,
  rocchioQuery,
  weightedRocchioQuery,
  wholeDocumentQuery,
  type Rm3Options,
  type RocchioOptions,
  type WeightedRocchioOptions,
} from './feedback.js';
/** Sparse tf-idf term vectors (unit length) and their helpers. */
export {
  documentVector,
  dot,
  queryVector,
  topTerms,
  unitLength,
  weightedCentroid,
  type TermVector,
} from './term-vectors.js';
/** Running a method over topics into a TREC run with its parameters. */
export {
  DEFAULT_QBD,
  emptyQueryReason,
  resolveRetrieveParameters,
  RETRIEVAL_METHODS,
  retrieveDiskRun,
  retrieveRun,
  runHeader,
  type DiskRetrieveOptions,
  type QbdOptions,
  type RetrievalMethod,
  type RetrievedRun,
  type RetrieveOptions,
} from './retrieve.js';
/**
 * An on-disk BM25 index for collections too large to hold: built by streaming documents
 * through sorted runs and a merge, searched with positioned reads (exhaustive or MaxScore),
 * scoring and ordering exactly as the in-memory index does.
 */
export {
  buildDiskIndex,
  DISK_INDEX_FORMAT_VERSION,
  DiskBm25Index,
  DiskBm25Searcher,
  DiskIndexBuilder,
  isDiskIndexFile,
  readDiskIndexHeader,
  type DiskIndexBuildOptions,
  type DiskIndexHeader,
  type DiskIndexOpenOptions,
  type DiskIndexSummary,
} from './disk-index.js';
