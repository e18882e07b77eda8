// A run parsed straight from bytes into compact per-topic columns (typed arrays), for
// evaluation at TREC scale: no string or object per line, file read in chunks. It accepts
// and rejects exactly what parseRun does, with the same `file:line: reason` errors.
import { TrecFormatError, quote } from './errors.js';
import { parseDecimal } from './lines.js';

/** The retrieved documents of one topic, column by column, in file order. */
export interface TopicColumns {
  /** Number of entries. */
  length: number;
  /** UTF-8 bytes of every docno, back to back. */
  docBytes: Uint8Array;
  /** End offset in docBytes of entry i's docno (it starts at the previous entry's end). */
  docEnds: Uint32Array;
  /** Score column. */
  scores: Float64Array;
  /** 1-based line number of the first entry. */
  firstLine: number;
  /**
   * Line number of each entry; absent when the entries sit on consecutive lines (entry i
   * on line firstLine + i), as in nearly every run.
   */
  lines?: Int32Array;
}

/** 1-based line number of entry i. */
export function lineOf(topic: TopicColumns, i: number): number {
  return topic.lines === undefined ? topic.firstLine + i : topic.lines[i]!;
}

/** A parsed TREC run held as columns: the run tag and the kept topics in first-seen order. */
export interface RunColumns {
  kind: 'columns';
  /** Run tag from the sixth column of the last line (what trec_eval reports as `runid`). */
  name: string;
  topics: Map<string, TopicColumns>;
}

/** FNV-1a hash of `bytes[start..end)`, for hash tables keyed by docno bytes. */
export function hashDocno(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h;
}

/** Start offset of entry i's docno in `topic.docBytes`. */
export function docnoStart(topic: TopicColumns, i: number): number {
  return i === 0 ? 0 : topic.docEnds[i - 1]!;
}

const decoder = new TextDecoder('utf-8');

/** Entry i's docno as a string. */
export function docnoAt(topic: TopicColumns, i: number): string {
  return decoder.decode(topic.docBytes.subarray(docnoStart(topic, i), topic.docEnds[i]));
}

/** Grows one topic's columns as entries arrive. */
class TopicColumnsBuilder {
  length = 0;
  used = 0;
  private docBytes: Uint8Array;
  private docEnds: Uint32Array;
  private scores: Float64Array;
  private firstLine = 0;
  private lines: Int32Array | undefined;

  /** Capacity hints: runs have about the same depth in every topic. */
  constructor(entries: number, bytes: number) {
    const n = Math.max(16, entries);
    this.docBytes = new Uint8Array(Math.max(256, bytes));
    this.docEnds = new Uint32Array(n);
    this.scores = new Float64Array(n);
  }

  add(src: Uint8Array, start: number, end: number, score: number, line: number): void {
    const n = this.length;
    if (n === this.scores.length) this.growEntries(n * 2);
    const size = end - start;
    if (this.used + size > this.docBytes.length) {
      const bytes = new Uint8Array(Math.max(this.docBytes.length * 2, this.used + size));
      bytes.set(this.docBytes.subarray(0, this.used));
      this.docBytes = bytes;
    }
    const bytes = this.docBytes;
    let at = this.used;
    for (let i = start; i < end; i++) bytes[at++] = src[i]!;
    this.used = at;
    this.docEnds[n] = at;
    this.scores[n] = score;
    if (n === 0) this.firstLine = line;
    else if (this.lines !== undefined) this.lines[n] = line;
    else if (line !== this.firstLine + n) {
      // The first gap (a comment, a blank line, another topic): keep every line from now.
      this.lines = new Int32Array(this.scores.length);
      for (let k = 0; k < n; k++) this.lines[k] = this.firstLine + k;
      this.lines[n] = line;
    }
    this.length = n + 1;
  }

  private growEntries(capacity: number): void {
    const grow = <T extends Uint32Array | Float64Array | Int32Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    this.docEnds = grow(this.docEnds, new Uint32Array(capacity));
    this.scores = grow(this.scores, new Float64Array(capacity));
    if (this.lines) this.lines = grow(this.lines, new Int32Array(capacity));
  }

  finish(): TopicColumns {
    const topic: TopicColumns = {
      length: this.length,
      docBytes: this.docBytes,
      docEnds: this.docEnds,
      scores: this.scores,
      firstLine: this.firstLine,
    };
    if (this.lines) topic.lines = this.lines;
    return topic;
  }
}

/** Options of RunColumnsParser; as ParseRunOptions. */
export interface RunColumnsOptions {
  /** Keep entries of these topics only; every line is still checked. */
  topics?: ReadonlySet<string>;
}

const POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Parses TREC run bytes fed in chunks of any size (`push`, then `end`). Lines and fields
 * follow parseRun's rules: `\n` ends a line; space, tab, \r, \v and \f separate fields; blank
 * and `#` lines are skipped; a leading UTF-8 byte-order mark is ignored.
 */
export class RunColumnsParser {
  private readonly file: string;
  private readonly keep: ReadonlySet<string> | undefined;
  private readonly builders = new Map<string, TopicColumnsBuilder>();
  private readonly bounds = new Int32Array(12);
  private rest: Uint8Array | undefined;
  private started = false;
  private lineNo = 0;
  private lastQid: Uint8Array = new Uint8Array(0);
  private current: TopicColumnsBuilder | undefined;
  private tag: string | undefined;
  private tagBuffer: Uint8Array | undefined;
  private tagStart = 0;
  private tagEnd = 0;

  constructor(file: string, options: RunColumnsOptions = {}) {
    this.file = file;
    this.keep = options.topics;
  }

  /** Parses the complete lines of the next chunk; the chunk may be reused afterwards. */
  push(chunk: Uint8Array): void {
    // A plain Uint8Array view, so the byte loops see one array type (not also Buffer's).
    let buf = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    let start = 0;
    if (this.rest !== undefined) {
      // Finish the line the last chunk left open, without copying the whole chunk.
      const nl = buf.indexOf(10);
      const head = nl === -1 ? buf : buf.subarray(0, nl + 1);
      const joined = new Uint8Array(this.rest.length + head.length);
      joined.set(this.rest);
      joined.set(head, this.rest.length);
      this.rest = undefined;
      if (nl === -1) {
        buf = joined;
      } else {
        this.pushLines(joined, 0);
        if (this.rest !== undefined) throw new Error('unreachable: a joined line was left open');
        start = nl + 1;
      }
    }
    this.pushLines(buf, start);
  }

  private pushLines(buf: Uint8Array, from: number): void {
    let start = from;
    if (!this.started) {
      // A byte-order mark needs three bytes; a shorter start without a line end waits.
      if (buf.length - start < 3 && buf.indexOf(10, start) === -1) {
        if (buf.length > start) this.rest = copy(buf, start, buf.length);
        return;
      }
      this.started = true;
      if (buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
    }
    try {
      start = this.scan(buf, start, false);
    } catch (error) {
      throw this.earlierDuplicate() ?? error;
    }
    this.takeTag();
    if (start < buf.length) this.rest = copy(buf, start, buf.length);
  }

  /** Parses the last line when the input did not end with `\n`, and returns the run. */
  end(): RunColumns {
    const rest = this.rest;
    this.rest = undefined;
    if (rest !== undefined) {
      let start = 0;
      if (!this.started && rest[0] === 0xef && rest[1] === 0xbb && rest[2] === 0xbf) start = 3;
      this.started = true;
      try {
        this.scan(rest, start, true);
      } catch (error) {
        throw this.earlierDuplicate() ?? error;
      }
      this.takeTag();
    }
    if (this.tag === undefined) throw new TrecFormatError(this.file, 0, 'no run lines');
    const duplicate = this.earlierDuplicate();
    if (duplicate) throw duplicate;
    const topics = new Map<string, TopicColumns>();
    for (const [qid, builder] of this.builders) topics.set(qid, builder.finish());
    return { kind: 'columns', name: this.tag, topics };
  }

  private takeTag(): void {
    if (this.tagBuffer === undefined) return;
    this.tag = text(this.tagBuffer, this.tagStart, this.tagEnd);
    this.tagBuffer = undefined;
  }

  private fail(reason: string): never {
    throw new TrecFormatError(this.file, this.lineNo, reason);
  }

  /**
   * Parses the lines of `buf` from `start`, finding line ends and fields in one pass, and
   * returns where the unfinished last line starts (`final`: the end of input ends it).
   */
  private scan(buf: Uint8Array, start: number, final: boolean): number {
    const b = this.bounds;
    const limit = buf.length;
    let i = start;
    let c = 0;
    for (;;) {
      const lineStart = i;
      let count = 0;
      let comment = false;
      for (;;) {
        // Skip separators: space, tab, \v, \f, \r (the line ends at \n).
        while (i < limit && ((c = buf[i]!) === 32 || c === 9 || (c >= 11 && c <= 13))) i++;
        if (i === limit || c === 10) break;
        if (count === 0 && c === 35 /* # */) {
          comment = true;
          while (i < limit && buf[i] !== 10) i++;
          break;
        }
        const fieldStart = i;
        while (i < limit && (c = buf[i]!) !== 32 && (c < 9 || c > 13)) i++;
        if (count < 6) {
          b[2 * count] = fieldStart;
          b[2 * count + 1] = i;
        }
        count++;
      }
      if (i === limit && !final) return lineStart;
      ++this.lineNo;
      if (count > 0 && !comment) this.entry(buf, count);
      if (i === limit) return limit;
      i++; // past the \n
    }
  }

  /** Checks and stores one line whose `count` fields were found by scan. */
  private entry(buf: Uint8Array, count: number): void {
    const lineNo = this.lineNo;
    const b = this.bounds;
    // trec_eval ignores anything after the tag, so extra columns are accepted.
    if (count < 6) this.fail(`expected 6 fields (qid Q0 docno rank score tag), found ${count}`);
    if (!isInteger(buf, b[6]!, b[7]!))
      this.fail(`rank ${quote(text(buf, b[6]!, b[7]!))} is not an integer`);
    const score = parseScore(buf, b[8]!, b[9]!);
    if (Number.isNaN(score))
      this.fail(`score ${quote(text(buf, b[8]!, b[9]!))} is not a finite number`);

    // Runs are nearly always grouped by topic: compare the qid's bytes with the last one's.
    const qidStart = b[0]!;
    const qidEnd = b[1]!;
    const last = this.lastQid;
    let same = last.length === qidEnd - qidStart;
    for (let k = 0; same && k < last.length; k++) same = buf[qidStart + k] === last[k];
    if (!same) {
      this.lastQid = copy(buf, qidStart, qidEnd);
      const qid = text(buf, qidStart, qidEnd);
      let builder = this.builders.get(qid);
      if (builder === undefined && (this.keep === undefined || this.keep.has(qid))) {
        const previous = this.current;
        builder = new TopicColumnsBuilder(previous?.length ?? 0, previous?.used ?? 0);
        this.builders.set(qid, builder);
      }
      this.current = builder;
    }
    this.tagBuffer = buf;
    this.tagStart = b[10]!;
    this.tagEnd = b[11]!;
    this.current?.add(buf, b[4]!, b[5]!, score, lineNo);
  }

  /**
   * The error for the earliest line that repeats a docno within a kept topic, if any; as in
   * parseRun, it wins over any error on a later line.
   */
  private earlierDuplicate(): TrecFormatError | undefined {
    let found: { line: number; first: number; qid: string; docno: string } | undefined;
    for (const [qid, builder] of this.builders) {
      const topic = builder.finish();
      const dup = firstDuplicate(topic);
      if (dup && (found === undefined || lineOf(topic, dup[1]) < found.line)) {
        found = {
          line: lineOf(topic, dup[1]),
          first: lineOf(topic, dup[0]),
          qid,
          docno: docnoAt(topic, dup[1]),
        };
      }
    }
    if (found === undefined) return undefined;
    return new TrecFormatError(
      this.file,
      found.line,
      `duplicate docno ${quote(found.docno)} for topic ${quote(found.qid)} (first at line ${found.first})`,
    );
  }
}

/** Indexes [earlier, later] of the first entry (in file order) that repeats a docno. */
function firstDuplicate(topic: TopicColumns): [number, number] | undefined {
  let size = 16;
  while (size < topic.length * 2) size *= 2;
  const mask = size - 1;
  const table = new Int32Array(size).fill(-1);
  const hashes = new Int32Array(topic.length);
  const { docEnds, docBytes } = topic;
  for (let i = 0; i < topic.length; i++) {
    const aStart = docnoStart(topic, i);
    const h = hashDocno(docBytes, aStart, docEnds[i]!);
    hashes[i] = h;
    let slot = h & mask;
    for (;;) {
      const j = table[slot]!;
      if (j === -1) break;
      if (hashes[j] === h) {
        const bStart = docnoStart(topic, j);
        const len = docEnds[i]! - aStart;
        if (docEnds[j]! - bStart === len) {
          let k = 0;
          while (k < len && docBytes[aStart + k] === docBytes[bStart + k]) k++;
          if (k === len) return [j, i];
        }
      }
      slot = (slot + 1) & mask;
    }
    table[slot] = i;
  }
  return undefined;
}

/** A copy of part of `buf` (a Buffer's own slice() would share its memory). */
function copy(buf: Uint8Array, start: number, end: number): Uint8Array {
  return Uint8Array.prototype.slice.call(buf, start, end);
}

/** `buf[start..end)` decoded as UTF-8; short ASCII fields (ids, tags) skip the decoder. */
function text(buf: Uint8Array, start: number, end: number): string {
  if (end - start <= 64) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = buf[i]!;
      if (c >= 128) return decoder.decode(buf.subarray(start, end));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return decoder.decode(buf.subarray(start, end));
}

/** An optional sign then decimal digits only, as parseRun's rank check. */
function isInteger(buf: Uint8Array, start: number, end: number): boolean {
  let i = start;
  const first = buf[i];
  if (first === 45 /* - */ || first === 43 /* + */) i++;
  if (i === end) return false;
  for (; i < end; i++) {
    const digit = buf[i]! - 48;
    if (digit < 0 || digit > 9) return false;
  }
  return true;
}

/**
 * The score as parseRun reads it: a plain `[+-]digits[.digits]` is one exact integer over an
 * exact power of ten (correctly rounded, equal to `Number()`); anything else is decoded and
 * read by parseDecimal.
 */
function parseScore(buf: Uint8Array, start: number, end: number): number {
  let i = start;
  let negative = false;
  const first = buf[i];
  if (first === 45 /* - */ || first === 43 /* + */) {
    negative = first === 45;
    i++;
  }
  let mantissa = 0;
  let digits = 0;
  let fractionDigits = -1;
  for (; i < end; i++) {
    const c = buf[i]!;
    const digit = c - 48;
    if (digit >= 0 && digit <= 9) {
      mantissa = mantissa * 10 + digit;
      digits++;
      if (fractionDigits >= 0) fractionDigits++;
    } else if (c === 46 /* . */ && fractionDigits < 0) {
      fractionDigits = 0;
    } else {
      return parseDecimal(text(buf, start, end));
    }
  }
  if (digits === 0) return NaN;
  if (mantissa >= 9007199254740992 || fractionDigits > 22)
    return parseDecimal(text(buf, start, end));
  const value = fractionDigits > 0 ? mantissa / POWERS_OF_TEN[fractionDigits]! : mantissa;
  return negative ? -value : value;
}

/** Parses a whole run held in memory (a string or UTF-8 bytes) into columns. */
export function parseRunColumns(
  input: string | Uint8Array,
  file = '<run>',
  options: RunColumnsOptions = {},
): RunColumns {
  const parser = new RunColumnsParser(file, options);
  parser.push(typeof input === 'string' ? new TextEncoder().encode(input) : input);
  return parser.end();
}

/** Parses a run from an async stream of UTF-8 byte (or string) chunks into columns. */
export async function parseRunColumnsStream(
  input: AsyncIterable<string | Uint8Array>,
  file: string,
  options: RunColumnsOptions = {},
): Promise<RunColumns> {
  const parser = new RunColumnsParser(file, options);
  const encoder = new TextEncoder();
  for await (const chunk of input)
    parser.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
  return parser.end();
}
