// The header both kinds of index file start with: the in-memory index saved whole
// (index-file.ts) and the on-disk index (disk-index.ts). Layout: 8-byte magic, u32 layout
// version, u32 header length, then the JSON header, whose common fields say what the index
// was built with; each kind adds its own. Reading one checks, in this order: the magic,
// the layout version, the header's length, its JSON, the analyzer version, and the
// analyzer when the caller asks for one.
import {
  ANALYZER_VERSION,
  type AnalyzerConfig,
  describeAnalyzer,
  sameAnalyzer,
} from './analysis.js';
import type { Bm25Params } from './bm25-index.js';

/** What every index file records in its header. */
export interface IndexHeader {
  /** The layout version the file was written in. */
  format: number;
  analyzer: AnalyzerConfig;
  analyzerVersion: number;
  /** BM25 parameters the index was built for (a search may use others). */
  params: Bm25Params;
  fingerprint: string;
  documents: number;
  terms: number;
  postings: number;
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

/** One kind of index file: its magic and layout version, and how messages speak of it. */
export interface IndexLayout {
  /** Eight Latin-1 characters the file starts with. */
  magic: string;
  /** The layout version this assay writes and reads. */
  version: number;
  /** What a file of another kind is told. */
  foreign: string;
  /** What a file shorter than the 16 bytes before the header is told (default: foreign). */
  tooShort?: string;
  /** The kind's name where its layout version is refused: "index file", "on-disk index". */
  name: string;
  /** How to make the index again, ending messages about versions. */
  rebuild: string;
}

/** Bytes before the JSON header: magic, layout version, header length. */
export const HEADER_START_BYTES = 16;

/** Writes the magic, layout version, header length and JSON header at the start of `out`. */
export function writeIndexHeader(out: Buffer, layout: IndexLayout, json: Buffer): void {
  out.write(layout.magic, 0, 'latin1');
  out.writeUInt32LE(layout.version, 8);
  out.writeUInt32LE(json.length, 12);
  json.copy(out, HEADER_START_BYTES);
}

/**
 * The JSON header's length, from the first bytes of a file of `fileBytes` bytes: refuses a
 * file of another kind or layout version, and one too short to hold the header it announces.
 */
export function indexHeaderLength(
  start: Uint8Array,
  fileBytes: number,
  file: string,
  layout: IndexLayout,
): number {
  const bytes = Buffer.from(start.buffer, start.byteOffset, start.byteLength);
  if (bytes.length < HEADER_START_BYTES)
    throw new IndexFileError(file, layout.tooShort ?? layout.foreign);
  if (bytes.toString('latin1', 0, 8) !== layout.magic)
    throw new IndexFileError(file, layout.foreign);
  const format = bytes.readUInt32LE(8);
  if (format !== layout.version)
    throw new IndexFileError(
      file,
      `${layout.name} format ${format}, this assay reads format ${layout.version}: ${layout.rebuild}`,
    );
  const length = bytes.readUInt32LE(12);
  if (HEADER_START_BYTES + length > fileBytes)
    throw new IndexFileError(file, 'truncated index header');
  return length;
}

/**
 * The JSON header, checked: made with the analyzer version of this assay, and with
 * `analyzer` when one is asked for.
 */
export function parseIndexHeader<H extends IndexHeader>(
  json: string,
  file: string,
  layout: IndexLayout,
  analyzer?: AnalyzerConfig,
): H {
  let header: H;
  try {
    header = JSON.parse(json) as H;
  } catch {
    throw new IndexFileError(file, 'unreadable index header');
  }
  if (header.analyzerVersion !== ANALYZER_VERSION)
    throw new IndexFileError(
      file,
      `index made with analyzer version ${header.analyzerVersion}, this assay analyses text with version ${ANALYZER_VERSION}: ${layout.rebuild}`,
    );
  if (analyzer && !sameAnalyzer(analyzer, header.analyzer))
    throw new IndexFileError(
      file,
      `index analyzer is ${describeAnalyzer(header.analyzer)}, not the requested ${describeAnalyzer(analyzer)}`,
    );
  return header;
}
