import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import type { AnalyzerConfig } from './analysis.js';
import { Bm25Index, type Bm25IndexData, type Bm25Params } from './bm25-index.js';
import {
  HEADER_START_BYTES,
  IndexFileError,
  indexHeaderLength,
  parseIndexHeader,
  writeIndexHeader,
  type IndexHeader,
  type IndexLayout,
} from './index-header.js';

// Layout: the index header (index-header.ts), padding to 8, then the typed arrays one
// after another, each starting on an 8-byte boundary.
/** Version of the file layout (not of the analyzer). */
export const INDEX_FORMAT_VERSION = 1;

const LAYOUT: IndexLayout = {
  magic: 'ASSAYBM5',
  version: INDEX_FORMAT_VERSION,
  foreign: 'not an assay index (made with assay index build)',
  name: 'index file',
  rebuild: 'rebuild it with assay index build',
};

/** What a saved index records besides its arrays: the common header, ids and terms. */
export interface IndexFileHeader extends IndexHeader {
  docIds: string[];
  vocabulary: string[];
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
  let size = pad8(HEADER_START_BYTES + json.length);
  const offsets: number[] = [];
  for (const { name } of ARRAYS) {
    offsets.push(size);
    size = pad8(size + data[name].byteLength);
  }
  const out = Buffer.alloc(size);
  writeIndexHeader(out, LAYOUT, json);
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
  const jsonLength = indexHeaderLength(buffer, buffer.length, file, LAYOUT);
  const header = parseIndexHeader<IndexFileHeader>(
    buffer.toString('utf8', HEADER_START_BYTES, HEADER_START_BYTES + jsonLength),
    file,
    LAYOUT,
    expect?.analyzer,
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
  let at = pad8(HEADER_START_BYTES + jsonLength);
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
