// A run parsed straight from bytes into compact per-topic columns (typed arrays), for
// evaluation at TREC scale: no string or object per line, file read in chunks. It accepts
// and rejects exactly what parseRun does, with the same `file:line: reason` errors.
import {
  ByteLineParser,
  copy,
  isIntegerBytes,
  isPlainScoreBytes,
  parseScoreBytes,
  text,
} from './byte-lines.js';
import { TrecFormatError, quote } from './errors.js';
import { firstRepeatedDocno } from './repeated-docno.js';

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

export { hashDocno } from './repeated-docno.js';

/** Start offset of entry i's docno in `topic.docBytes`. */
export function docnoStart(topic: TopicColumns, i: number): number {
  return i === 0 ? 0 : topic.docEnds[i - 1]!;
}

const decoder = new TextDecoder('utf-8');

/** Entry i's docno as a string. */
export function docnoAt(topic: TopicColumns, i: number): string {
  return decoder.decode(topic.docBytes.subarray(docnoStart(topic, i), topic.docEnds[i]));
}

/** Where a docno first repeats within a topic: the repeating line and the first one. */
export interface RepeatedDocno {
  line: number;
  first: number;
  qid: string;
  docno: string;
}

/**
 * The earliest line, over all topics being built, that repeats a docno of its topic (and
 * where that docno first stood), or undefined when no topic repeats one.
 */
export function earliestRepeatedDocno(
  builders: ReadonlyMap<string, TopicColumnsBuilder>,
): RepeatedDocno | undefined {
  let found: RepeatedDocno | undefined;
  for (const [qid, builder] of builders) {
    const topic = builder.finish();
    const dup = firstRepeatedDocno(topic.docBytes, topic.docEnds, topic.length);
    if (dup && (found === undefined || lineOf(topic, dup[1]) < found.line)) {
      found = {
        line: lineOf(topic, dup[1]),
        first: lineOf(topic, dup[0]),
        qid,
        docno: docnoAt(topic, dup[1]),
      };
    }
  }
  return found;
}

/** Grows one topic's columns as entries arrive (runs: scores; qrels: grades). */
export class TopicColumnsBuilder {
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
  /** Ends the message for bytes that are not UTF-8 (how to declare another encoding). */
  encodingHint?: string;
}

/**
 * Parses TREC run bytes fed in chunks of any size (`push`, then `end`). Lines and fields
 * follow parseRun's rules: `\n` ends a line; space, tab, \r, \v and \f separate fields; blank
 * and `#` lines are skipped; a leading UTF-8 byte-order mark is ignored.
 */
export class RunColumnsParser extends ByteLineParser {
  private readonly keep: ReadonlySet<string> | undefined;
  private readonly builders = new Map<string, TopicColumnsBuilder>();
  private lastQid: Uint8Array = new Uint8Array(0);
  private current: TopicColumnsBuilder | undefined;
  private lastKept = new TopicColumnsBuilder(0, 0);
  private tag: string | undefined;
  private tagBuffer: Uint8Array | undefined;
  private tagStart = 0;
  private tagEnd = 0;

  constructor(file: string, options: RunColumnsOptions = {}) {
    super(file, options.encodingHint);
    this.keep = options.topics;
  }

  /** Parses the last line when the input did not end with `\n`, and returns the run. */
  end(): RunColumns {
    this.finishInput();
    if (this.tag === undefined) throw new TrecFormatError(this.file, 0, 'no run lines');
    const duplicate = this.earlierDuplicate();
    if (duplicate) throw duplicate;
    const topics = new Map<string, TopicColumns>();
    for (const [qid, builder] of this.builders) topics.set(qid, builder.finish());
    return { kind: 'columns', name: this.tag, topics };
  }

  protected override afterChunk(): void {
    this.takeTag();
  }

  protected override laterError(error: unknown): unknown {
    return this.earlierDuplicate() ?? error;
  }

  private takeTag(): void {
    if (this.tagBuffer === undefined) return;
    this.tag = text(this.tagBuffer, this.tagStart, this.tagEnd);
    this.tagBuffer = undefined;
  }

  /** Checks and stores one line whose `count` fields were found by scan. */
  protected entry(buf: Uint8Array, count: number): void {
    const lineNo = this.lineNo;
    const b = this.bounds;
    // trec_eval ignores anything after the tag, so extra columns are accepted.
    if (count < 6) this.fail(`expected 6 fields (qid Q0 docno rank score tag), found ${count}`);
    if (!isIntegerBytes(buf, b[6]!, b[7]!))
      this.fail(`rank ${quote(text(buf, b[6]!, b[7]!))} is not an integer`);
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
        // Sized like the last kept topic (runs have about the same depth in every topic).
        const previous = this.lastKept;
        builder = new TopicColumnsBuilder(previous.length, previous.used);
        this.builders.set(qid, builder);
        this.lastKept = builder;
      }
      this.current = builder;
      // The lines of a topic that is not kept are only checked: skipLines takes them.
      this.skipping = builder === undefined;
    }
    // The score of a line whose topic is not kept is only checked, not computed.
    const current = this.current;
    const score =
      current === undefined && isPlainScoreBytes(buf, b[8]!, b[9]!)
        ? 0
        : parseScoreBytes(buf, b[8]!, b[9]!);
    if (Number.isNaN(score))
      this.fail(`score ${quote(text(buf, b[8]!, b[9]!))} is not a finite number`);
    this.tagBuffer = buf;
    this.tagStart = b[10]!;
    this.tagEnd = b[11]!;
    current?.add(buf, b[4]!, b[5]!, score, lineNo);
  }

  /**
   * Checks the lines that continue a topic that is not kept (same qid as the line before),
   * as long as each is plain: printable ASCII fields separated by spaces or tabs, an
   * integer rank, a `[+-]digits[.digits]` score of at most 300 bytes, a tag, anything after
   * it, and `\n` or `\r\n`. Such a line passes every check of entry and stores nothing but
   * the tag; at the first other line it stops, and scan and entry read that one.
   */
  protected override skipLines(buf: Uint8Array, start: number, end: number): number {
    // buf[end - 1] is a \n, which ends every loop below: none needs a bounds check.
    const qid = this.lastQid;
    const q = qid.length;
    let taken = start;
    let lines = 0;
    let tagStart = 0;
    let tagEnd = 0;
    let c: number;
    line: while (taken < end) {
      let i = taken;
      while ((c = buf[i]!) === 32 || c === 9) i++;
      // The qid of the line before (it holds no \n), then a separator.
      for (let k = 0; k < q; k++) if (buf[i + k] !== qid[k]) break line;
      i += q;
      c = buf[i]!;
      if (c !== 32 && c !== 9) break;
      // Q0 and docno: printable ASCII.
      for (let field = 0; field < 2; field++) {
        while ((c = buf[i]!) === 32 || c === 9) i++;
        while ((c = buf[i]!) > 32 && c < 128) i++;
        if (c !== 32 && c !== 9) break line;
      }
      // Rank: an optional sign, then digits.
      while ((c = buf[i]!) === 32 || c === 9) i++;
      if (c === 43 || c === 45) i++;
      const digitsStart = i;
      while ((c = buf[i]!) >= 48 && c <= 57) i++;
      if (i === digitsStart || (c !== 32 && c !== 9)) break;
      // Score: an optional sign, digits and at most one point, at least one digit.
      while ((c = buf[i]!) === 32 || c === 9) i++;
      const scoreStart = i;
      if (c === 43 || c === 45) i++;
      let digits = 0;
      let point = false;
      for (; ; i++) {
        c = buf[i]!;
        if (c >= 48 && c <= 57) digits++;
        else if (c === 46 && !point) point = true;
        else break;
      }
      if ((c !== 32 && c !== 9) || digits === 0 || i - scoreStart > 300) break;
      // Tag: printable ASCII; then anything printable up to the line end.
      while ((c = buf[i]!) === 32 || c === 9) i++;
      const tagAt = i;
      while ((c = buf[i]!) > 32 && c < 128) i++;
      if (i === tagAt) break;
      const tagTo = i;
      while ((c = buf[i]!) === 9 || (c >= 32 && c < 128)) i++;
      if (c === 13 && buf[i + 1] === 10) i++;
      else if (c !== 10) break;
      lines++;
      tagStart = tagAt;
      tagEnd = tagTo;
      taken = i + 1;
    }
    if (lines > 0) {
      this.lineNo += lines;
      this.tagBuffer = buf;
      this.tagStart = tagStart;
      this.tagEnd = tagEnd;
    }
    return taken;
  }

  /**
   * The error for the earliest line that repeats a docno within a kept topic, if any; as in
   * parseRun, it wins over any error on a later line.
   */
  private earlierDuplicate(): TrecFormatError | undefined {
    const found = earliestRepeatedDocno(this.builders);
    if (found === undefined) return undefined;
    return new TrecFormatError(
      this.file,
      found.line,
      `duplicate docno ${quote(found.docno)} for topic ${quote(found.qid)} (first at line ${found.first})`,
    );
  }
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
