import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import {
  ANALYZER_VERSION,
  type AnalyzerConfig,
  sameAnalyzer,
  describeAnalyzer,
} from './analysis.js';
import { Bm25Index, type Bm25IndexData, type Bm25Params } from './bm25-index.js';

// Layout: 8-byte magic, u32 format version, u32 header length, JSON header, padding to 8,
// then the typed arrays one after another, each starting on an 8-byte boundary.
const MAGIC = 'ASSAYBM5';
/** Version of the file layout (not of the analyzer). */
export const INDEX_FORMAT_VERSION = 1;

/** What a saved index records besides its arrays. */
export interface IndexFileHeader {
  format: number;
  analyzer: AnalyzerConfig;
  analyzerVersion: number;
  /** BM25 parameters the index was built for (a search may use others). */
  params: Bm25Params;
  fingerprint: string;
  documents: number;
  terms: number;
  postings: number;
  docIds: string[];
  vocabulary: string[];
  /** Free-form provenance: the assay version, the source file. */
  createdBy?: Record<string, string>;
}

/** A saved index that cannot be read or does not fit what the caller expects. */
export class IndexFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'IndexFileError';
  }
}

type ArrayName =
  | 'docLengths'
  | 'termOffsets'
  | 'postingDocs'
  | 'postingTfs'
  | 'docOffsets'
  | 'docTerms'
  | 'docTfs';
const ARRAYS: { name: ArrayName; kind: 'u32' | 'u16' }[] = [
  { name: 'docLengths', kind: 'u32' },
  { name: 'termOffsets', kind: 'u32' },
  { name: 'postingDocs', kind: 'u32' },
  { name: 'postingTfs', kind: 'u16' },
  { name: 'docOffsets', kind: 'u32' },
  { name: 'docTerms', kind: 'u32' },
  { name: 'docTfs', kind: 'u16' },
];

const pad8 = (n: number) => (n + 7) & ~7;

/** The bytes of a saved index. */
export function serializeIndex(
  index: Bm25Index,
  params: Bm25Params,
  createdBy?: Record<string, string>,
): Buffer {
  const data = index.data;
  const header: IndexFileHeader = {
    format: INDEX_FORMAT_VERSION,
    analyzer: data.analyzer,
    analyzerVersion: index.analyzer.version,
    params,
    fingerprint: data.fingerprint,
    documents: index.documentCount,
    terms: data.terms.length,
    postings: index.postingCount,
    docIds: data.docIds,
    vocabulary: data.terms,
    ...(createdBy ? { createdBy } : {}),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  let size = pad8(16 + json.length);
  const offsets: number[] = [];
  for (const { name } of ARRAYS) {
    offsets.push(size);
    size = pad8(size + data[name].byteLength);
  }
  const out = Buffer.alloc(size);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(INDEX_FORMAT_VERSION, 8);
  out.writeUInt32LE(json.length, 12);
  json.copy(out, 16);
  ARRAYS.forEach(({ name }, i) => {
    const array = data[name];
    Buffer.from(array.buffer, array.byteOffset, array.byteLength).copy(out, offsets[i]!);
  });
  return out;
}

/**
 * Reads an index from the bytes of a saved one. Refuses a file of another layout or made
 * with another analyzer version, and, when `expect` is given, one whose analyzer differs.
 * The typed arrays are views on `bytes` when it is 8-byte aligned (no copy).
 */
export function deserializeIndex(
  bytes: Uint8Array,
  file = '<index>',
  expect?: { analyzer?: AnalyzerConfig },
): { index: Bm25Index; header: IndexFileHeader } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 16 || buffer.toString('latin1', 0, 8) !== MAGIC)
    throw new IndexFileError(file, 'not an assay index (made with assay index build)');
  const format = buffer.readUInt32LE(8);
  if (format !== INDEX_FORMAT_VERSION)
    throw new IndexFileError(
      file,
      `index file format ${format}, this assay reads format ${INDEX_FORMAT_VERSION}: rebuild it with assay index build`,
    );
  const jsonLength = buffer.readUInt32LE(12);
  if (16 + jsonLength > buffer.length) throw new IndexFileError(file, 'truncated index header');
  let header: IndexFileHeader;
  try {
    header = JSON.parse(buffer.toString('utf8', 16, 16 + jsonLength)) as IndexFileHeader;
  } catch {
    throw new IndexFileError(file, 'unreadable index header');
  }
  if (header.analyzerVersion !== ANALYZER_VERSION)
    throw new IndexFileError(
      file,
      `index made with analyzer version ${header.analyzerVersion}, this assay analyses text with version ${ANALYZER_VERSION}: rebuild it with assay index build`,
    );
  if (expect?.analyzer && !sameAnalyzer(expect.analyzer, header.analyzer))
    throw new IndexFileError(
      file,
      `index analyzer is ${describeAnalyzer(header.analyzer)}, not the requested ${describeAnalyzer(expect.analyzer)}`,
    );
  const lengths: Record<ArrayName, number> = {
    docLengths: header.documents,
    termOffsets: header.terms + 1,
    postingDocs: header.postings,
    postingTfs: header.postings,
    docOffsets: header.documents + 1,
    docTerms: header.postings,
    docTfs: header.postings,
  };
  const aligned = buffer.byteOffset % 8 === 0 ? buffer : Buffer.from(buffer);
  let at = pad8(16 + jsonLength);
  const arrays = {} as Record<ArrayName, Uint32Array | Uint16Array>;
  for (const { name, kind } of ARRAYS) {
    const width = kind === 'u32' ? 4 : 2;
    const byteLength = lengths[name] * width;
    if (at + byteLength > aligned.length) throw new IndexFileError(file, 'truncated index file');
    arrays[name] =
      kind === 'u32'
        ? new Uint32Array(aligned.buffer, aligned.byteOffset + at, lengths[name])
        : new Uint16Array(aligned.buffer, aligned.byteOffset + at, lengths[name]);
    at = pad8(at + byteLength);
  }
  if (header.docIds.length !== header.documents || header.vocabulary.length !== header.terms)
    throw new IndexFileError(file, 'index header does not match its arrays');
  const data: Bm25IndexData = {
    analyzer: header.analyzer,
    docIds: header.docIds,
    terms: header.vocabulary,
    docLengths: arrays.docLengths as Uint32Array,
    termOffsets: arrays.termOffsets as Uint32Array,
    postingDocs: arrays.postingDocs as Uint32Array,
    postingTfs: arrays.postingTfs as Uint16Array,
    docOffsets: arrays.docOffsets as Uint32Array,
    docTerms: arrays.docTerms as Uint32Array,
    docTfs: arrays.docTfs as Uint16Array,
    fingerprint: header.fingerprint,
  };
  return { index: new Bm25Index(data), header };
}

/** Saves an index to one file (written beside it, then renamed into place). */
export function saveIndex(
  path: string,
  index: Bm25Index,
  params: Bm25Params,
  createdBy?: Record<string, string>,
): number {
  const bytes = serializeIndex(index, params, createdBy);
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, path);
  return bytes.length;
}

/** Loads a saved index in one read; see {@link deserializeIndex} for what it refuses. */
export function loadIndex(
  path: string,
  expect?: { analyzer?: AnalyzerConfig },
): { index: Bm25Index; header: IndexFileHeader } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new IndexFileError(path, `cannot read index: ${(error as Error).message}`);
  }
  return deserializeIndex(bytes, path, expect);
}
