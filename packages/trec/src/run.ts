import { TrecFormatError, quote } from './errors.js';
import {
  type LineHandler,
  parseDecimalRange,
  parseInteger,
  scanFields,
  splitLines,
  splitLinesAsync,
  LineSplitter,
} from './lines.js';
import { idProblem, int32Problem, nameProblem } from './storage-limits.js';
import type { Run, RunEntry } from './types.js';
import { checkField, formatNumber } from './write.js';

/** Builds a Run from `qid Q0 docno rank score tag` lines; shared by the string and stream parsers. */
class RunBuilder implements LineHandler {
  private readonly file: string;
  private readonly bounds = new Int32Array(12);
  private readonly topics = new Map<string, RunEntry[]>();
  /** Per topic: docnos seen (for duplicate detection) and the line of each entry. */
  private readonly seen = new Map<string, { docnos: Set<string>; lines: number[] }>();
  private tagText: string | undefined;
  private tagStart = 0;
  private tagEnd = 0;
  private tagLine = 0;
  private lastQid = '';
  private lastEntries: RunEntry[] | undefined;
  private lastSeen: { docnos: Set<string>; lines: number[] } | undefined;
  /** Whether the current topic is kept (see ParseRunOptions.topics). */
  private lastKept = true;
  private readonly keep: ReadonlySet<string> | undefined;
  private readonly storage: boolean;
  /** Where entries go instead of `topics`, when they are streamed. */
  private readonly sink: RunEntrySink | undefined;
  /** Streamed: the topics met so far, and the current stretch's docnos with their lines. */
  private readonly streamedTopics = new Set<string>();
  private readonly stretch = new Map<string, number>();
  /** Streamed: whether some topic's lines came in more than one stretch. */
  scattered = false;

  constructor(file: string, options: ParseRunOptions = {}, sink?: RunEntrySink) {
    this.file = file;
    this.keep = options.topics;
    this.storage = options.storage === true;
    this.sink = sink;
  }

  private refuse(lineNo: number, problem: string | undefined): void {
    if (problem !== undefined) throw new TrecFormatError(this.file, lineNo, problem);
  }

  line(text: string, start: number, end: number, lineNo: number, separator: number): void {
    const b = this.bounds;
    const count = scanFields(text, start, end, b, 6, separator);
    if (count === 0) return;
    // trec_eval ignores anything after the tag (some tracks append comments there), so
    // extra columns are accepted; fewer than six is an error.
    if (count < 6) {
      throw new TrecFormatError(
        this.file,
        lineNo,
        `expected 6 fields (qid Q0 docno rank score tag), found ${count}`,
      );
    }
    const rank = parseInteger(text, b[6]!, b[7]!);
    if (Number.isNaN(rank)) {
      throw new TrecFormatError(
        this.file,
        lineNo,
        `rank ${quote(text.slice(b[6], b[7]))} is not an integer`,
      );
    }
    const score = parseDecimalRange(text, b[8]!, b[9]!);
    if (Number.isNaN(score)) {
      throw new TrecFormatError(
        this.file,
        lineNo,
        `score ${quote(text.slice(b[8], b[9]))} is not a finite number`,
      );
    }
    if (this.storage) {
      this.refuse(lineNo, int32Problem('rank', rank, text.slice(b[6], b[7])));
      this.refuse(lineNo, idProblem('docno', text.slice(b[4], b[5])));
    }

    // Runs are nearly always grouped by topic: reuse the previous topic without slicing the qid.
    const qidStart = b[0]!;
    const qidLength = b[1]! - qidStart;
    let entries = this.lastEntries;
    let seen = this.lastSeen;
    if (
      entries === undefined ||
      seen === undefined ||
      qidLength !== this.lastQid.length ||
      !sameChars(text, qidStart, this.lastQid)
    ) {
      const qid = text.slice(qidStart, qidStart + qidLength);
      if (this.storage) this.refuse(lineNo, idProblem('topic id', qid));
      this.lastQid = qid;
      this.lastKept = this.keep === undefined || this.keep.has(qid);
      if (this.sink !== undefined) {
        // Streamed: only the current stretch of a topic's lines is remembered.
        if (this.streamedTopics.has(qid)) this.scattered = true;
        else this.streamedTopics.add(qid);
        this.stretch.clear();
        entries = STREAMED;
        seen = STREAMED_SEEN;
      } else {
        entries = this.topics.get(qid);
        seen = this.seen.get(qid);
      }
      if (entries === undefined || seen === undefined) {
        entries = [];
        seen = { docnos: new Set(), lines: [] };
        if (this.lastKept) {
          this.topics.set(qid, entries);
          this.seen.set(qid, seen);
        }
      }
      this.lastEntries = entries;
      this.lastSeen = seen;
    }
    // trec_eval reports the tag of the last line as the run id: remember where it is and
    // slice it once at the end.
    this.tagText = text;
    this.tagStart = b[10]!;
    this.tagEnd = b[11]!;
    this.tagLine = lineNo;
    if (!this.lastKept) return;

    const docno = text.slice(b[4], b[5]);
    if (this.sink !== undefined) {
      const first = this.stretch.get(docno);
      if (first !== undefined) this.duplicate(lineNo, docno, first);
      this.stretch.set(docno, lineNo);
      this.sink(this.lastQid, docno, rank, score);
      return;
    }
    // One hash operation per line: add, then see whether the set grew.
    const before = seen.docnos.size;
    seen.docnos.add(docno);
    if (seen.docnos.size === before) {
      this.duplicate(lineNo, docno, seen.lines[entries.findIndex((e) => e.docno === docno)]!);
    }
    seen.lines.push(lineNo);
    entries.push({ docno, rank, score });
  }

  private duplicate(lineNo: number, docno: string, first: number): never {
    throw new TrecFormatError(
      this.file,
      lineNo,
      `duplicate docno ${quote(docno)} for topic ${quote(this.lastQid)} (first at line ${first})`,
    );
  }

  finish(): Run {
    if (this.tagText === undefined) throw new TrecFormatError(this.file, 0, 'no run lines');
    const name = this.tagText.slice(this.tagStart, this.tagEnd);
    if (this.storage) this.refuse(this.tagLine, nameProblem('run tag', name));
    return { name, topics: this.topics };
  }
}

/** What a streamed topic holds in place of its entries (nothing is kept). */
const STREAMED: RunEntry[] = [];
const STREAMED_SEEN = { docnos: new Set<string>(), lines: [] as number[] };

/** Takes each entry of a streamed run as its line is read. */
export type RunEntrySink = (qid: string, docno: string, rank: number, score: number) => void;

/**
 * Parses a run pushed as consecutive pieces of text, handing each entry to a sink as its
 * line is read instead of keeping it. The lines are checked as parseRun checks them and
 * fail with the same errors, with one difference: a docno repeated within a topic is found
 * only within one stretch of the topic's consecutive lines. When a topic's lines come in
 * more than one stretch (`scattered` after `end`), repeats across stretches are left to
 * the caller, and an error may not be the earliest parseRun reports.
 */
export class RunStreamParser {
  private readonly builder: RunBuilder;
  private readonly splitter: LineSplitter;

  constructor(file: string, sink: RunEntrySink, options: ParseRunOptions = {}) {
    this.builder = new RunBuilder(file, options, sink);
    this.splitter = new LineSplitter(this.builder, { file });
  }

  /** Whether a topic's lines have come in more than one stretch so far. */
  get scattered(): boolean {
    return this.builder.scattered;
  }

  /** Reads the complete lines of the next piece of text. */
  push(text: string): void {
    this.splitter.push(text);
  }

  /** Reads the last line and returns the run's tag (the last line's, as parseRun's name). */
  end(): string {
    this.splitter.end();
    return this.builder.finish().name;
  }
}

/** Characters from a text's end that lastRunTag looks at. */
const TAIL_CHARS = 64 * 1024;

/**
 * The tag of a run's last line (what parseRun names the run) read from the end of its
 * text, whole or in consecutive parts, without parsing the rest: undefined when the last
 * line with fields has fewer than six, or lies farther than 64K characters from the end.
 * A parse of the whole text may still refuse the run.
 */
export function lastRunTag(text: string | readonly string[]): string | undefined {
  const parts = typeof text === 'string' ? [text] : text;
  let tail = '';
  let k = parts.length;
  while (k > 0 && tail.length < TAIL_CHARS) tail = parts[--k]! + tail;
  const whole = k === 0;
  if (whole && tail.charCodeAt(0) === 0xfeff) tail = tail.slice(1);
  const bounds = new Int32Array(12);
  let end = tail.length;
  while (end > 0) {
    const nl = tail.lastIndexOf('\n', end - 1);
    if (nl === -1 && !whole) return undefined;
    const start = nl + 1;
    const count = scanFields(tail, start, end, bounds, 6);
    if (count > 0) return count < 6 ? undefined : tail.slice(bounds[10], bounds[11]);
    if (nl === -1) return undefined;
    end = nl;
  }
  return undefined;
}

/** True when `text` holds `other` at `start` (compared char by char; both are short ids). */
function sameChars(text: string, start: number, other: string): boolean {
  for (let k = 0; k < other.length; k++) {
    if (text.charCodeAt(start + k) !== other.charCodeAt(k)) return false;
  }
  return true;
}

/** Options of parseRun. */
export interface ParseRunOptions {
  /**
   * Keep entries of these topics only. Every line is still checked (fields, rank, score);
   * duplicate docnos are looked for in the kept topics, as trec_eval does for the topics it
   * evaluates. Evaluation passes the qrels topics here: most run lines are then never stored.
   */
  topics?: ReadonlySet<string>;
  /**
   * Also refuse what a database cannot store (see storage-limits): topic ids and docnos over
   * 512 UTF-8 bytes, a rank outside the 32-bit range, a tag over 200 characters.
   */
  storage?: boolean;
}

/**
 * Parses a TREC run (`qid Q0 docno rank score tag` per line). Fields may be separated by any
 * run of spaces or tabs; CRLF, blank lines and `#` comment lines are accepted. Throws
 * TrecFormatError (`file:line: reason`) on the first malformed line.
 */
export function parseRun(text: string, file = '<run>', options: ParseRunOptions = {}): Run {
  const builder = new RunBuilder(file, options);
  splitLines(text, builder, { file });
  return builder.finish();
}

/** Streaming parseRun: same result and errors, from chunks of text or UTF-8 bytes. */
export async function parseRunStream(
  input: AsyncIterable<string | Uint8Array>,
  file: string,
  options: ParseRunOptions = {},
): Promise<Run> {
  const builder = new RunBuilder(file, options);
  await splitLinesAsync(input, builder, { file });
  return builder.finish();
}

/**
 * Orders code points as UTF-8 bytes do (C `strcmp`). Plain `<` on JS strings compares UTF-16
 * code units, which agrees with byte order except when a surrogate pair (a code point above
 * U+FFFF) meets a character in U+E000–U+FFFF; this comparison handles that case too.
 */
export function compareBytewise(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca !== cb) {
      if (ca >= 0xd800 && cb >= 0xd800) {
        // Move surrogates (D800–DFFF) above E000–FFFF, where their code points sort.
        ca = ca >= 0xe000 ? ca - 0x800 : ca + 0x2000;
        cb = cb >= 0xe000 ? cb - 0x800 : cb + 0x2000;
      }
      return ca - cb;
    }
  }
  return a.length - b.length;
}

/**
 * Returns a new array of the entries in trec_eval's ranking order: score descending, ties by
 * docno descending in byte order (`strcmp`). The rank column plays no part, as in trec_eval.
 */
export function rankEntries(entries: readonly RunEntry[]): RunEntry[] {
  return entries.slice().sort((x, y) => y.score - x.score || compareBytewise(y.docno, x.docno));
}

/** Options for formatRun. */
export interface FormatRunOptions {
  /** Run tag for the sixth column; defaults to `run.name`. */
  tag?: string;
  /** Order each topic as trec_eval ranks it (rankEntries) and renumber ranks 1..n. */
  rerank?: boolean;
}

/**
 * Writes a run as `qid Q0 docno rank score tag` lines ending in `\n`, topics in map order.
 * Scores are written in the shortest form that reads back exactly. Throws RangeError for a
 * qid, docno or tag that is empty or contains whitespace, or for a non-finite score.
 */
export function formatRun(run: Run, options: FormatRunOptions = {}): string {
  const tag = options.tag ?? run.name;
  checkField('tag', tag);
  const lines: string[] = [];
  for (const [qid, topicEntries] of run.topics) {
    checkField('qid', qid);
    const entries = options.rerank ? rankEntries(topicEntries) : topicEntries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      checkField('docno', entry.docno);
      const rank = options.rerank ? i + 1 : entry.rank;
      if (!Number.isInteger(rank)) {
        throw new RangeError(`rank ${rank} of ${quote(entry.docno)} is not an integer`);
      }
      lines.push(
        `${qid} Q0 ${entry.docno} ${formatNumber(rank)} ${formatNumber(entry.score)} ${tag}\n`,
      );
    }
  }
  return lines.join('');
}
