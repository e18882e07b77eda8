import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { compareBytewise } from '@assay/trec';
import {
  ANALYZER_VERSION,
  type Analyzer,
  type AnalyzerConfig,
  createAnalyzer,
  DEFAULT_ANALYZER,
} from './analysis.js';
import {
  bm25Idf,
  type Bm25Params,
  DEFAULT_BM25,
  documentDigest,
  documentText,
  type IndexableDocument,
  saturationBound,
} from './bm25-index.js';
import { GrowableUint32 } from './growable.js';
import {
  HEADER_START_BYTES,
  IndexFileError,
  indexHeaderLength,
  parseIndexHeader,
  writeIndexHeader,
  type IndexHeader,
  type IndexLayout,
} from './index-header.js';
import { PostingsSearcher, type Postings, type WeightedQuery } from './search.js';
import { TermCounter } from './term-counter.js';

// An on-disk BM25 index: built by streaming documents, spilling sorted runs of postings
// to temporary files (unnamed once open, so a killed build leaves none) when a memory
// budget is reached and merging them into one file;
// read with positioned reads, a query term's postings at a time, never the whole file.
//
// Layout: the index header (index-header.ts; it names every section's byte offset), then
// the sections, each on an 8-byte boundary:
//   docLengths u32[N], docnoRank u32[N] (each document's position in docno byte order),
//   docIdOffsets u32[N+1] + docIdBytes (UTF-8),
//   termOffsets u32[T+1] + termBytes (UTF-8, terms in byte order, so lookups bisect),
//   termStart f64[T] (first posting of each term), termDf u32[T],
//   termBound f64[T] (largest tf/(tf + k1·(1 − b + b·dl/avgdl)) of the term's postings
//   under the build's parameters, MaxScore's upper bound),
//   postingDocs u32[P] (ascending within a term), postingTfs u16[P] (saturating at 65,535).
const MAGIC = 'ASSAYBMD';
/** Version of the on-disk index layout. */
export const DISK_INDEX_FORMAT_VERSION = 1;

const LAYOUT: IndexLayout = {
  magic: MAGIC,
  version: DISK_INDEX_FORMAT_VERSION,
  foreign: 'not an assay on-disk index (made with buildDiskIndex)',
  tooShort: 'not an assay on-disk index (too short)',
  name: 'on-disk index',
  rebuild: 'rebuild it',
};

const SECTIONS = [
  'docLengths',
  'docnoRank',
  'docIdOffsets',
  'docIdBytes',
  'termOffsets',
  'termBytes',
  'termStart',
  'termDf',
  'termBound',
  'postingDocs',
  'postingTfs',
] as const;
type Section = (typeof SECTIONS)[number];

/**
 * What an on-disk index records besides its sections: the common header (its `params` are
 * those the stored MaxScore bounds were computed for), the total length and the sections.
 */
export interface DiskIndexHeader extends IndexHeader {
  /** Sum of the documents' lengths (tokens after analysis). */
  totalLength: number;
  /** Byte offset and length of every section. */
  sections: Record<Section, { offset: number; bytes: number }>;
  /** Size of the whole file, to tell a truncated one. */
  fileBytes: number;
}

/** Options of {@link DiskIndexBuilder}. */
export interface DiskIndexBuildOptions {
  analyzer?: AnalyzerConfig;
  /** Parameters the MaxScore bounds are stored for (default k1 0.9, b 0.4). */
  params?: Bm25Params;
  /**
   * Bytes of postings held in memory before a sorted run is spilled to a temporary file
   * (default 1 GiB; 16 bytes a posting while buffered and sorted).
   */
  memoryBudget?: number;
  /** Folder for the temporary run files (default: the output's folder). */
  tempDir?: string;
  createdBy?: Record<string, string>;
}

/** What {@link DiskIndexBuilder.finish} made. */
export interface DiskIndexSummary {
  path: string;
  documents: number;
  terms: number;
  postings: number;
  bytes: number;
  /** Sorted runs spilled and merged. */
  runs: number;
  fingerprint: string;
}

const pad8 = (n: number) => Math.ceil(n / 8) * 8;
const BYTES_PER_POSTING = 16; // 4 term + 4 doc + 2 tf buffered, 4 + 2 sorted at spill

/**
 * A comparator of positions in `strings` by their strings' UTF-8 byte order: JavaScript's
 * own string comparison (UTF-16 code units, much faster) when no string holds a surrogate,
 * for then the two orders agree; {@link compareBytewise} otherwise.
 */
function byteOrder(strings: readonly string[]): (a: number, b: number) => number {
  if (!strings.some((s) => SURROGATE.test(s)))
    return (a, b) => {
      const x = strings[a]!;
      const y = strings[b]!;
      return x < y ? -1 : x > y ? 1 : 0;
    };
  return (a, b) => compareBytewise(strings[a]!, strings[b]!);
}
const SURROGATE = /[\uD800-\uDFFF]/;

/** Writes bytes at increasing positions of a file through a buffer. */
class PositionedWriter {
  private readonly buffer: Buffer;
  private used = 0;
  constructor(
    private readonly fd: number,
    private position: number,
    size = 1 << 22,
  ) {
    this.buffer = Buffer.allocUnsafe(size);
  }
  write(bytes: Uint8Array): void {
    if (bytes.length > this.buffer.length - this.used) this.flush();
    if (bytes.length > this.buffer.length) {
      writeAll(this.fd, bytes, this.position);
      this.position += bytes.length;
      return;
    }
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }
  string(value: string): void {
    if (3 * value.length > this.buffer.length - this.used) {
      this.write(Buffer.from(value, 'utf8'));
      return;
    }
    this.used += this.buffer.write(value, this.used, 'utf8');
  }
  u32(value: number): void {
    if (this.used + 4 > this.buffer.length) this.flush();
    this.buffer.writeUInt32LE(value, this.used);
    this.used += 4;
  }
  u16(value: number): void {
    if (this.used + 2 > this.buffer.length) this.flush();
    this.buffer.writeUInt16LE(value, this.used);
    this.used += 2;
  }
  flush(): void {
    if (this.used === 0) return;
    writeAll(this.fd, this.buffer.subarray(0, this.used), this.position);
    this.position += this.used;
    this.used = 0;
  }
}

function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length)
    done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

const viewBytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Reads u32 or u16 values in order from a region of a run file, a chunk at a time. */
class RunReader {
  private chunk: Uint32Array | Uint16Array;
  private at = 0;
  private filled = 0;
  private position: number;
  private left: number;
  constructor(
    private readonly fd: number,
    offset: number,
    count: number,
    private readonly width: 2 | 4,
    chunk = 1 << 20,
  ) {
    this.chunk = width === 4 ? new Uint32Array(chunk) : new Uint16Array(chunk);
    this.position = offset;
    this.left = count;
  }
  /** The next value. */
  next(): number {
    if (this.at === this.filled) this.fill();
    return this.chunk[this.at++]!;
  }
  private fill(): void {
    const count = Math.min(this.chunk.length, this.left);
    if (count === 0) throw new Error('run file ended early');
    readAll(this.fd, viewBytes(this.chunk).subarray(0, count * this.width), this.position, '');
    this.position += count * this.width;
    this.left -= count;
    this.at = 0;
    this.filled = count;
  }
}

function readAll(fd: number, into: Uint8Array, position: number, file: string): void {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) throw new IndexFileError(file, 'truncated index file');
    done += n;
  }
}

/** A spilled run: per term (by build term number) its posting count, then docs, then tfs. */
interface Run {
  /** The run's file, open for reading and writing until the build ends (-1 once closed). */
  fd: number;
  /** Its name, where the system would not remove the name of an open file. */
  file: string | undefined;
  terms: number;
  counts: Uint32Array;
  postings: number;
}

/**
 * Builds an on-disk BM25 index one document at a time, without holding the collection's
 * postings as objects: postings are buffered in typed arrays, spilled as runs sorted by
 * term when the memory budget is reached, and merged into the index file by
 * {@link finish}. Documents are analysed exactly as {@link IndexBuilder} analyses them, so
 * the index scores as the in-memory one does.
 */
export class DiskIndexBuilder {
  private readonly analyzer: Analyzer;
  private readonly config: AnalyzerConfig;
  private readonly params: Bm25Params;
  private readonly counter = new TermCounter();
  private readonly docIds: string[] = [];
  private readonly lengths = new GrowableUint32();
  private digests = Buffer.alloc(32 * 1024);
  private readonly capacity: number;
  private runTerms: Uint32Array;
  private runDocs: Uint32Array;
  private runTfs: Uint16Array;
  private runSize = 0;
  private readonly runs: Run[] = [];
  /** Where run files are made, and the start of their names. */
  private readonly runPrefix: string;
  private totalLength = 0;
  private postings = 0;

  constructor(
    readonly path: string,
    private readonly options: DiskIndexBuildOptions = {},
  ) {
    this.config = options.analyzer ?? DEFAULT_ANALYZER;
    this.analyzer = createAnalyzer(this.config);
    this.params = options.params ?? DEFAULT_BM25;
    this.capacity = Math.max(16, Math.floor((options.memoryBudget ?? 2 ** 30) / BYTES_PER_POSTING));
    const initial = Math.min(this.capacity, 1 << 16);
    this.runTerms = new Uint32Array(initial);
    this.runDocs = new Uint32Array(initial);
    this.runTfs = new Uint16Array(initial);
    const folder = options.tempDir ?? dirname(path);
    this.runPrefix = join(
      folder,
      `.assay-index-run-${process.pid}-${randomBytes(4).toString('hex')}`,
    );
  }

  /** Number of documents added so far. */
  get size(): number {
    return this.docIds.length;
  }

  /** Sorted runs spilled so far. */
  get runCount(): number {
    return this.runs.length;
  }

  /** Analyses and adds one document (title and text together). */
  add(doc: IndexableDocument): void {
    const d = this.docIds.length;
    if (32 * (d + 1) > this.digests.length) {
      const next = Buffer.alloc(this.digests.length * 2);
      this.digests.copy(next);
      this.digests = next;
    }
    documentDigest(doc).copy(this.digests, 32 * d);
    const tokens = this.analyzer.analyze(documentText(doc));
    const touched = this.counter.count(tokens);
    if (this.runSize + touched.length > this.capacity && this.runSize > 0) this.spill();
    this.reserve(this.runSize + touched.length);
    for (const t of touched) {
      const at = this.runSize++;
      this.runTerms[at] = t;
      this.runDocs[at] = d;
      this.runTfs[at] = this.counter.take(t);
    }
    this.postings += touched.length;
    this.lengths.push(tokens.length);
    this.totalLength += tokens.length;
    this.docIds.push(doc.id);
  }

  private reserve(size: number): void {
    if (size <= this.runTerms.length) return;
    let next = this.runTerms.length * 2;
    while (next < size) next *= 2;
    next = Math.max(size, Math.min(next, this.capacity));
    const grow = <T extends Uint32Array | Uint16Array>(a: T, make: (n: number) => T): T => {
      const b = make(next);
      b.set(a.subarray(0, this.runSize));
      return b;
    };
    this.runTerms = grow(this.runTerms, (n) => new Uint32Array(n));
    this.runDocs = grow(this.runDocs, (n) => new Uint32Array(n));
    this.runTfs = grow(this.runTfs, (n) => new Uint16Array(n));
  }

  /** Sorts the buffered postings by term (a counting sort; documents stay ascending) and writes them. */
  private spill(): void {
    const n = this.runSize;
    const termCount = this.counter.terms.length;
    const counts = new Uint32Array(termCount);
    for (let i = 0; i < n; i++) counts[this.runTerms[i]!]!++;
    const next = new Float64Array(termCount);
    for (let t = 1; t < termCount; t++) next[t] = next[t - 1]! + counts[t - 1]!;
    const docs = new Uint32Array(n);
    const tfs = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      const at = next[this.runTerms[i]!]!++;
      docs[at] = this.runDocs[i]!;
      tfs[at] = this.runTfs[i]!;
    }
    const file = `${this.runPrefix}-${this.runs.length}`;
    const run: Run = { fd: openSync(file, 'wx+'), file, terms: termCount, counts, postings: n };
    this.runs.push(run);
    // The run's name goes at once; the open file stays this process's until it closes it or
    // ends, killed or not: a killed build leaves no runs behind (the system frees them).
    try {
      unlinkSync(file);
      run.file = undefined;
    } catch {
      // a system that keeps an open file's name: removed by abort()
    }
    const out = new PositionedWriter(run.fd, 0);
    out.write(viewBytes(counts));
    out.write(viewBytes(docs));
    out.write(viewBytes(tfs));
    out.flush();
    this.runSize = 0;
  }

  /** Closes (and so frees) the temporary run files (after a failure; {@link finish} does it itself). */
  abort(): void {
    for (const run of this.runs) {
      if (run.fd !== -1) closeSync(run.fd);
      run.fd = -1;
      if (run.file !== undefined) rmSync(run.file, { force: true });
      run.file = undefined;
    }
  }

  /** Merges the runs into the index file (written beside it, then renamed into place). */
  finish(): DiskIndexSummary {
    try {
      return this.write();
    } finally {
      this.abort();
    }
  }

  private write(): DiskIndexSummary {
    if (this.runSize > 0) this.spill();
    const N = this.docIds.length;
    const T = this.counter.terms.length;
    const P = this.postings;
    const ids = this.docIds;
    const docOrder = Uint32Array.from(Array.from({ length: N }, (_, d) => d).sort(byteOrder(ids)));
    const docnoRank = new Uint32Array(N);
    const hash = createHash('sha256');
    for (let r = 0; r < N; r++) {
      const d = docOrder[r]!;
      docnoRank[d] = r;
      hash.update(this.digests.subarray(32 * d, 32 * d + 32));
    }
    const fingerprint = `sha256:${hash.digest('hex')}`;
    this.digests = Buffer.alloc(0);
    // Document ids and terms as UTF-8 with offsets.
    const docIdOffsets = new Uint32Array(N + 1);
    let idBytes = 0;
    for (let d = 0; d < N; d++) {
      idBytes += Buffer.byteLength(ids[d]!, 'utf8');
      if (idBytes > 0xffffffff) throw new Error('document ids exceed 4 GiB');
      docIdOffsets[d + 1] = idBytes;
    }
    const terms = this.counter.terms;
    const termOrder = new Uint32Array(T);
    if (terms.some((term) => SURROGATE.test(term))) {
      const order = Array.from({ length: T }, (_, t) => t).sort(byteOrder(terms));
      termOrder.set(order);
    } else {
      // JavaScript's own sort of the (distinct) strings, then their numbers: much faster.
      const sorted = terms.slice().sort();
      for (let r = 0; r < T; r++) termOrder[r] = this.counter.termIds.get(sorted[r]!)!;
    }
    const termOffsets = new Uint32Array(T + 1);
    let termBytes = 0;
    for (let r = 0; r < T; r++) {
      termBytes += Buffer.byteLength(terms[termOrder[r]!]!, 'utf8');
      termOffsets[r + 1] = termBytes;
    }
    const sizes: Record<Section, number> = {
      docLengths: 4 * N,
      docnoRank: 4 * N,
      docIdOffsets: 4 * (N + 1),
      docIdBytes: idBytes,
      termOffsets: 4 * (T + 1),
      termBytes,
      termStart: 8 * T,
      termDf: 4 * T,
      termBound: 8 * T,
      postingDocs: 4 * P,
      postingTfs: 2 * P,
    };
    const header: DiskIndexHeader = {
      format: DISK_INDEX_FORMAT_VERSION,
      analyzer: this.config,
      analyzerVersion: ANALYZER_VERSION,
      params: this.params,
      fingerprint,
      documents: N,
      terms: T,
      postings: P,
      totalLength: this.totalLength,
      sections: {} as DiskIndexHeader['sections'],
      fileBytes: 0,
      ...(this.options.createdBy ? { createdBy: this.options.createdBy } : {}),
    };
    // The header's length depends on the offsets it names: lay out until it settles.
    let json = Buffer.alloc(0);
    for (let attempt = 0; attempt < 4; attempt++) {
      let at = pad8(HEADER_START_BYTES + json.length);
      for (const s of SECTIONS) {
        header.sections[s] = { offset: at, bytes: sizes[s] };
        at = pad8(at + sizes[s]);
      }
      header.fileBytes = at;
      const next = Buffer.from(JSON.stringify(header), 'utf8');
      const settled = next.length === json.length;
      json = next; // the header as laid out now (it names these offsets)
      if (settled) break;
    }
    const temporary = `${this.path}.tmp-${process.pid}`;
    const fd = openSync(temporary, 'w');
    try {
      const start = Buffer.alloc(pad8(HEADER_START_BYTES + json.length));
      writeIndexHeader(start, LAYOUT, json);
      writeAll(fd, start, 0);
      const at = (s: Section) => header.sections[s].offset;
      const lengths = this.lengths.toArray();
      writeAll(fd, viewBytes(lengths), at('docLengths'));
      writeAll(fd, viewBytes(docnoRank), at('docnoRank'));
      writeAll(fd, viewBytes(docIdOffsets), at('docIdOffsets'));
      let out = new PositionedWriter(fd, at('docIdBytes'));
      for (let d = 0; d < N; d++) out.string(ids[d]!);
      out.flush();
      writeAll(fd, viewBytes(termOffsets), at('termOffsets'));
      out = new PositionedWriter(fd, at('termBytes'));
      for (let r = 0; r < T; r++) out.string(terms[termOrder[r]!]!);
      out.flush();
      // Norms as the in-memory index computes them, for the stored MaxScore bounds.
      const avg = N === 0 ? 1 : this.totalLength / N || 1;
      const { k1, b } = this.params;
      const norms = new Float64Array(N);
      for (let d = 0; d < N; d++) norms[d] = k1 * (1 - b + (b * lengths[d]!) / avg);
      const {
        start: termStart,
        df,
        bound,
      } = this.merge(fd, at('postingDocs'), at('postingTfs'), norms);
      const sorted = (values: Float64Array | Uint32Array, make: (n: number) => typeof values) => {
        const out = make(T);
        for (let r = 0; r < T; r++) out[r] = values[termOrder[r]!]!;
        return out;
      };
      writeAll(fd, viewBytes(sorted(termStart, (n) => new Float64Array(n))), at('termStart'));
      writeAll(fd, viewBytes(sorted(df, (n) => new Uint32Array(n))), at('termDf'));
      writeAll(fd, viewBytes(sorted(bound, (n) => new Float64Array(n))), at('termBound'));
      // Pad the file to its full length (the last section may end before an 8-byte boundary).
      const end = header.sections.postingTfs.offset + sizes.postingTfs;
      if (header.fileBytes > end) writeAll(fd, Buffer.alloc(header.fileBytes - end), end);
    } catch (error) {
      closeSync(fd);
      rmSync(temporary, { force: true });
      throw error;
    }
    closeSync(fd);
    renameSync(temporary, this.path);
    return {
      path: this.path,
      documents: N,
      terms: T,
      postings: P,
      bytes: header.fileBytes,
      runs: this.runs.length,
      fingerprint,
    };
  }

  /** Writes every term's postings (runs in order, so documents ascend) and their bounds. */
  private merge(
    fd: number,
    docsAt: number,
    tfsAt: number,
    norms: Float64Array,
  ): { start: Float64Array; df: Uint32Array; bound: Float64Array } {
    const T = this.counter.terms.length;
    const start = new Float64Array(T);
    const df = new Uint32Array(T);
    const bound = new Float64Array(T);
    const docsOut = new PositionedWriter(fd, docsAt);
    const tfsOut = new PositionedWriter(fd, tfsAt);
    const open = this.runs.map((run) => ({
      run,
      docs: new RunReader(run.fd, 4 * run.terms, run.postings, 4),
      tfs: new RunReader(run.fd, 4 * run.terms + 4 * run.postings, run.postings, 2),
    }));
    // The runs' files are closed by finish(), after the merge.
    let written = 0;
    for (let t = 0; t < T; t++) {
      start[t] = written;
      let max = 0;
      for (const r of open) {
        if (t >= r.run.terms) continue;
        const c = r.run.counts[t]!;
        for (let i = 0; i < c; i++) {
          const d = r.docs.next();
          const tf = r.tfs.next();
          docsOut.u32(d);
          tfsOut.u16(tf);
          const v = tf / (tf + norms[d]!);
          if (v > max) max = v;
        }
        written += c;
      }
      df[t] = written - start[t]!;
      bound[t] = max;
    }
    docsOut.flush();
    tfsOut.flush();
    return { start, df, bound };
  }
}

/** Builds an on-disk index of `docs` at `path` in one call. */
export function buildDiskIndex(
  docs: Iterable<IndexableDocument>,
  path: string,
  options: DiskIndexBuildOptions = {},
): DiskIndexSummary {
  const builder = new DiskIndexBuilder(path, options);
  try {
    for (const doc of docs) builder.add(doc);
  } catch (error) {
    builder.abort();
    throw error;
  }
  return builder.finish();
}

/** True when `path` starts as an on-disk index does (false when it cannot be read). */
export function isDiskIndexFile(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const start = Buffer.alloc(8);
    return readSync(fd, start, 0, 8, 0) === 8 && start.toString('latin1') === MAGIC;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Options of {@link DiskBm25Index.open}. */
export interface DiskIndexOpenOptions {
  /** Refuse an index made with another analyzer. */
  analyzer?: AnalyzerConfig;
  /** Bytes of recently read postings kept in memory (default 64 MiB; 0 keeps none). */
  cacheBytes?: number;
}

/**
 * An on-disk BM25 index, open for search. Holds in memory only what is per document
 * (lengths, docno order, id offsets and bytes: about 12 bytes a document plus the ids)
 * and the term table (offsets, bytes, first posting, df, bound: about 24 bytes a term
 * plus the terms); postings are read from the file per query term, through a small cache.
 */
export class DiskBm25Index {
  readonly analyzer: Analyzer;
  readonly documentCount: number;
  readonly termCount: number;
  readonly postingCount: number;
  readonly averageLength: number;
  private readonly docLengths: Uint32Array;
  private readonly docnoRank: Uint32Array;
  private readonly docIdOffsets: Uint32Array;
  private readonly docIdBytes: Buffer;
  private readonly termOffsets: Uint32Array;
  private readonly termBytes: Buffer;
  private readonly termStart: Float64Array;
  private readonly termDf: Uint32Array;
  private readonly termBound: Float64Array;
  private readonly cache = new Map<number, Postings>();
  private cached = 0;
  private readonly cacheBytes: number;
  private normCache: { key: string; norms: Float64Array } | undefined;
  private boundCache: { key: string; bounds: Float64Array } | undefined;
  private fd: number | undefined;

  private constructor(
    readonly file: string,
    fd: number,
    readonly header: DiskIndexHeader,
    cacheBytes: number,
  ) {
    this.fd = fd;
    this.cacheBytes = cacheBytes;
    this.analyzer = createAnalyzer(header.analyzer);
    this.documentCount = header.documents;
    this.termCount = header.terms;
    this.postingCount = header.postings;
    this.averageLength = header.documents === 0 ? 0 : header.totalLength / header.documents;
    const read = (s: Section) => {
      const { offset, bytes } = header.sections[s];
      const buffer = new ArrayBuffer(pad8(bytes));
      readAll(fd, new Uint8Array(buffer, 0, bytes), offset, file);
      return buffer;
    };
    const N = header.documents;
    const T = header.terms;
    this.docLengths = new Uint32Array(read('docLengths'), 0, N);
    this.docnoRank = new Uint32Array(read('docnoRank'), 0, N);
    this.docIdOffsets = new Uint32Array(read('docIdOffsets'), 0, N + 1);
    this.docIdBytes = Buffer.from(read('docIdBytes'), 0, header.sections.docIdBytes.bytes);
    this.termOffsets = new Uint32Array(read('termOffsets'), 0, T + 1);
    this.termBytes = Buffer.from(read('termBytes'), 0, header.sections.termBytes.bytes);
    this.termStart = new Float64Array(read('termStart'), 0, T);
    this.termDf = new Uint32Array(read('termDf'), 0, T);
    this.termBound = new Float64Array(read('termBound'), 0, T);
    let sum = 0;
    for (let t = 0; t < T; t++) {
      if (this.termStart[t]! + this.termDf[t]! > header.postings)
        throw new IndexFileError(file, 'term table points past the postings: corrupt index');
      sum += this.termDf[t]!;
    }
    if (
      sum !== header.postings ||
      this.docIdOffsets[N] !== header.sections.docIdBytes.bytes ||
      this.termOffsets[T] !== header.sections.termBytes.bytes
    )
      throw new IndexFileError(file, 'index sections do not agree: corrupt index');
  }

  /**
   * Opens an on-disk index made by {@link DiskIndexBuilder}. Refuses a file that is not
   * one, is truncated, has another layout or analyzer version, or (when `options.analyzer`
   * is given) another analyzer.
   */
  static open(path: string, options: DiskIndexOpenOptions = {}): DiskBm25Index {
    const fd = openIndexFile(path);
    try {
      const header = readCheckedHeader(fd, path, options.analyzer);
      return new DiskBm25Index(path, fd, header, options.cacheBytes ?? 64 * 2 ** 20);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.fd === undefined;
  }

  /** Closes the file (the index cannot read postings afterwards). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.cache.clear();
    this.cached = 0;
  }

  /** The term number of `term` (binary search of the term table), or -1. */
  termNumber(term: string): number {
    const key = Buffer.from(term, 'utf8');
    const offsets = this.termOffsets;
    let lo = 0;
    let hi = this.termCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.termBytes.compare(key, 0, key.length, offsets[mid]!, offsets[mid + 1]!);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }

  /** Term number `t`'s text. */
  term(t: number): string {
    return this.termBytes.toString('utf8', this.termOffsets[t]!, this.termOffsets[t + 1]!);
  }

  /** Number of documents containing term number `t`. */
  df(t: number): number {
    return this.termDf[t]!;
  }

  /** Lucene idf of term number `t`. */
  idf(t: number): number {
    return bm25Idf(this.documentCount, this.termDf[t]!);
  }

  /** Document number `d`'s id. */
  docno(d: number): string {
    return this.docIdBytes.toString('utf8', this.docIdOffsets[d]!, this.docIdOffsets[d + 1]!);
  }

  /** Each document's position in docno byte order (ties are broken by it, as trec_eval does). */
  docnoOrder(): Uint32Array {
    return this.docnoRank;
  }

  /** Bytes the open index holds in memory (arrays, cached postings and norms). */
  get memoryBytes(): number {
    const arrays = [
      this.docLengths,
      this.docnoRank,
      this.docIdOffsets,
      this.docIdBytes,
      this.termOffsets,
      this.termBytes,
      this.termStart,
      this.termDf,
      this.termBound,
    ];
    return (
      arrays.reduce((sum, a) => sum + a.byteLength, 0) +
      this.cached +
      (this.normCache?.norms.byteLength ?? 0) +
      (this.boundCache?.bounds.byteLength ?? 0)
    );
  }

  /** k1·(1 − b + b·dl/avgdl) for every document, cached for the last parameters. */
  lengthNorms(params: Bm25Params): Float64Array {
    const key = `${params.k1}/${params.b}`;
    if (this.normCache?.key === key) return this.normCache.norms;
    const { k1, b } = params;
    const lengths = this.docLengths;
    const norms = new Float64Array(lengths.length);
    const avg = this.averageLength || 1;
    for (let d = 0; d < lengths.length; d++) norms[d] = k1 * (1 - b + (b * lengths[d]!) / avg);
    this.normCache = { key, norms };
    return norms;
  }

  /**
   * The largest tf/(tf + k1·(1 − b + b·dl/avgdl)) among term t's postings: stored at build
   * for the build's parameters, worked out from the postings (and kept) for others.
   */
  bound(t: number, params: Bm25Params): number {
    const p = this.header.params;
    if (params.k1 === p.k1 && params.b === p.b) return this.termBound[t]!;
    const key = `${params.k1}/${params.b}`;
    if (this.boundCache?.key !== key)
      this.boundCache = { key, bounds: new Float64Array(this.termCount).fill(Number.NaN) };
    let b = this.boundCache.bounds[t]!;
    if (Number.isNaN(b)) {
      const { docs, tfs } = this.postings(t);
      b = saturationBound(docs, tfs, this.lengthNorms(params));
      this.boundCache.bounds[t] = b;
    }
    return b;
  }

  /** Term number `t`'s postings (documents ascending, with their tfs), read from the file. */
  postings(t: number): Postings {
    const hit = this.cache.get(t);
    if (hit) {
      this.cache.delete(t);
      this.cache.set(t, hit);
      return hit;
    }
    if (this.fd === undefined) throw new IndexFileError(this.file, 'index is closed');
    const df = this.termDf[t]!;
    const first = this.termStart[t]!;
    const { sections } = this.header;
    const docs = new Uint32Array(df);
    const tfs = new Uint16Array(df);
    readAll(this.fd, viewBytes(docs), sections.postingDocs.offset + 4 * first, this.file);
    readAll(this.fd, viewBytes(tfs), sections.postingTfs.offset + 2 * first, this.file);
    const entry = { docs, tfs };
    const bytes = 6 * df;
    if (bytes <= this.cacheBytes) {
      this.cache.set(t, entry);
      this.cached += bytes;
      for (const [key, value] of this.cache) {
        if (this.cached <= this.cacheBytes) break;
        this.cache.delete(key);
        this.cached -= 6 * value.docs.length;
      }
    }
    return entry;
  }

  /** The query's terms (after analysis) as weights: each known term's count in the text. */
  analyzeQuery(text: string): WeightedQuery {
    const query: WeightedQuery = new Map();
    for (const term of this.analyzer.analyze(text)) {
      const t = this.termNumber(term);
      if (t >= 0) query.set(t, (query.get(t) ?? 0) + 1);
    }
    return query;
  }
}

/**
 * BM25 search over an on-disk index, with the formula, parameters, summing order and tie
 * order of {@link Bm25Searcher} (one implementation, {@link PostingsSearcher}): the same
 * documents indexed either way give the same hits with the same scores. `pruning` turns
 * on MaxScore (same results, fewer documents scored), with the bounds stored in the file.
 * Keeps one score buffer for all queries (not safe to share between concurrent callers).
 */
export class DiskBm25Searcher extends PostingsSearcher<DiskBm25Index> {
  /**
   * MaxScore is on by default here: an on-disk index is for collections whose postings
   * lists are long, where it pays (8.8 M synthetic passages, top 1000: p50 17 ms against
   * 41 ms scoring every posting, see docs/methods.md); the results are the same either way.
   */
  constructor(index: DiskBm25Index, params: Bm25Params = DEFAULT_BM25, pruning = true) {
    super(index, params, pruning);
  }

  protected analyze(text: string): WeightedQuery {
    return this.index.analyzeQuery(text);
  }
}

function openIndexFile(path: string): number {
  try {
    return openSync(path, 'r');
  } catch (error) {
    throw new IndexFileError(path, `cannot read index: ${(error as Error).message}`);
  }
}

/** The checked header of an open index file (the checks of {@link DiskBm25Index.open}). */
function readCheckedHeader(
  fd: number,
  path: string,
  analyzer: AnalyzerConfig | undefined,
): DiskIndexHeader {
  const size = fstatSync(fd).size;
  const start = Buffer.alloc(Math.min(size, HEADER_START_BYTES));
  readAll(fd, start, 0, path);
  const jsonLength = indexHeaderLength(start, size, path, LAYOUT);
  const json = Buffer.alloc(jsonLength);
  readAll(fd, json, HEADER_START_BYTES, path);
  const header = parseIndexHeader<DiskIndexHeader>(json.toString('utf8'), path, LAYOUT, analyzer);
  if (size < header.fileBytes)
    throw new IndexFileError(
      path,
      `truncated index file: ${size} bytes, the header says ${header.fileBytes}`,
    );
  for (const s of SECTIONS) {
    const section = header.sections?.[s];
    if (!section || section.offset + section.bytes > header.fileBytes)
      throw new IndexFileError(path, `index header lacks or misplaces section ${s}`);
  }
  return header;
}

/**
 * The header of an on-disk index file (documents, terms, fingerprint, size …), checked as
 * {@link DiskBm25Index.open} checks it, without reading the per-document arrays or the
 * term table.
 */
export function readDiskIndexHeader(path: string): DiskIndexHeader {
  const fd = openIndexFile(path);
  try {
    return readCheckedHeader(fd, path, undefined);
  } finally {
    closeSync(fd);
  }
}
