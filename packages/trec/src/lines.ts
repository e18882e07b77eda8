// The line layer shared by the string and streaming parsers: a parser is a LineHandler, and
// LineSplitter feeds it numbered lines whether the text arrives whole or in chunks, so both
// entry points give identical results and identical errors.
import { TrecFormatError } from './errors.js';

/**
 * Receives one line as `text.slice(start, end)` (without its `\n`) and its 1-based number.
 * `separator` is the char code of the only field separator `text` contains (space or tab),
 * or 0 when it mixes separators or holds \r, \v or \f; scanFields uses it for a fast path.
 */
export interface LineHandler {
  line(text: string, start: number, end: number, lineNo: number, separator: number): void;
}

/** The single field-separator character of `text` (32 or 9), or 0 when there is no single one. */
export function singleSeparator(text: string): number {
  if (text.includes('\r') || text.includes('\v') || text.includes('\f')) return 0;
  const space = text.includes(' ');
  const tab = text.includes('\t');
  if (space && tab) return 0;
  return tab ? 9 : 32;
}

/**
 * How a splitter treats characters that end lines elsewhere but not here: a carriage
 * return that is not part of a CRLF (old Mac line ends) and the Unicode line and paragraph
 * separators U+2028 and U+2029. `refuse` (the TREC formats: runs, qrels, TSV) fails naming
 * the line, since reading on would silently merge lines into one with extra fields; `keep`
 * (JSON Lines, where U+2028 is ordinary string content and CR is JSON whitespace) leaves
 * them to the line's own parser.
 */
export type InnerLineBreaks = 'refuse' | 'keep';

/** Options of a LineSplitter. */
export interface LineSplitterOptions {
  /** Names the input in errors (`file:line: reason`). */
  file: string;
  /** Default `refuse`. */
  innerBreaks?: InnerLineBreaks;
}

/**
 * Why `text.slice(start, end)` (one line, without its `\n`) holds a line break that does not
 * end it, or undefined: a CR followed by anything but blanks up to the line end, U+2028,
 * U+2029. A CR before the `\n` (CRLF) is fine.
 */
export function innerLineBreak(text: string, start: number, end: number): string | undefined {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2028 || c === 0x2029)
      return `the line holds a Unicode ${c === 0x2028 ? 'line' : 'paragraph'} separator (U+${c.toString(16).toUpperCase()}), which does not end a line here: lines end with LF (or CRLF)`;
    if (c !== 13) continue;
    let j = i + 1;
    while (j < end && isBlank(text.charCodeAt(j))) j++;
    if (j < end) return CR_INSIDE;
    return undefined;
  }
  return undefined;
}

/** The reason for a carriage return inside a line (shared with the byte parsers). */
export const CR_INSIDE =
  "the line holds a carriage return (CR) that does not end it: lines end with LF (or CRLF); a file with CR-only line ends can be converted with tr '\\r' '\\n'";

/**
 * The reason for a byte-order mark (U+FEFF) after the start of a file (shared with the byte
 * parsers). Joining files with `cat` leaves one where each began; on a TREC or TSV line it
 * would become part of an id, a separate topic or document that looks like another.
 */
export const BOM_INSIDE =
  'the line holds a byte-order mark (U+FEFF), which may only start a file (joining files with cat leaves one where each began): remove it';

/**
 * Splits text on `\n` into numbered lines, across chunk boundaries; strips a leading BOM and
 * refuses one anywhere else (`refuse`: anywhere on a line; `keep`, JSON Lines: at a line's
 * start, for inside a JSON string it is text).
 */
export class LineSplitter {
  private readonly handler: LineHandler;
  private readonly file: string;
  private readonly refuseBreaks: boolean;
  private pending: string[] = [];
  private lineNo = 0;
  private started = false;

  constructor(handler: LineHandler, options: LineSplitterOptions) {
    this.handler = handler;
    this.file = options.file;
    this.refuseBreaks = options.innerBreaks !== 'keep';
  }

  /**
   * Hands one line to the handler, first refusing inner line breaks when asked to, and a
   * byte-order mark at `bom` (the first at or after `start`, -1 for none) when it is on the
   * line.
   */
  private emit(
    text: string,
    start: number,
    end: number,
    separator: number,
    suspect: boolean,
    bom: number,
  ) {
    const lineNo = ++this.lineNo;
    if (bom !== -1 && bom < end && (this.refuseBreaks || bom === start))
      throw new TrecFormatError(this.file, lineNo, BOM_INSIDE);
    if (suspect) {
      const problem = innerLineBreak(text, start, end);
      if (problem !== undefined) throw new TrecFormatError(this.file, lineNo, problem);
    }
    this.handler.line(text, start, end, lineNo, separator);
  }

  /** Feeds the next piece of text; complete lines are handed on at once. */
  push(chunk: string): void {
    if (!this.started) {
      if (chunk.length === 0) return;
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    const firstNl = chunk.indexOf('\n');
    if (firstNl === -1) {
      if (chunk.length > 0) this.pending.push(chunk);
      return;
    }
    let text = chunk;
    if (this.pending.length > 0) {
      this.pending.push(chunk);
      text = this.pending.join('');
      this.pending = [];
    }
    const separator = singleSeparator(text);
    const suspect = this.refuseBreaks && hasInnerBreakCandidates(text, separator);
    let start = 0;
    let nl = text.indexOf('\n');
    let bom = text.indexOf('\ufeff');
    while (nl !== -1) {
      if (bom !== -1 && bom < start) bom = text.indexOf('\ufeff', start);
      this.emit(text, start, nl, separator, suspect, bom);
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    if (start < text.length) this.pending.push(text.slice(start));
  }

  /** Hands on the last line if the text did not end with `\n`. */
  end(): void {
    if (this.pending.length > 0) {
      const last = this.pending.join('');
      this.pending = [];
      const separator = singleSeparator(last);
      const suspect = this.refuseBreaks && hasInnerBreakCandidates(last, separator);
      this.emit(last, 0, last.length, separator, suspect, last.indexOf('\ufeff'));
    }
  }
}

/**
 * Whether `text` may hold an inner line break: a CR (its single-separator scan found none
 * when `separator` is not 0) or U+2028/U+2029. Lines are checked one by one only then.
 */
function hasInnerBreakCandidates(text: string, separator: number): boolean {
  return (separator === 0 && text.includes('\r')) || /[\u2028\u2029]/.test(text);
}

/** Feeds a whole string through a fresh splitter. */
export function splitLines(text: string, handler: LineHandler, options: LineSplitterOptions): void {
  const splitter = new LineSplitter(handler, options);
  splitter.push(text);
  splitter.end();
}

/** Feeds an async stream of strings or UTF-8 bytes through a fresh splitter. */
export async function splitLinesAsync(
  input: AsyncIterable<string | Uint8Array>,
  handler: LineHandler,
  options: LineSplitterOptions,
): Promise<void> {
  const splitter = new LineSplitter(handler, options);
  for await (const text of decodeChunks(input)) splitter.push(text);
  splitter.end();
}

/** Decodes a stream of strings or UTF-8 byte chunks (split anywhere) into strings. */
export async function* decodeChunks(
  input: AsyncIterable<string | Uint8Array>,
): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let decoding = false;
  for await (const chunk of input) {
    if (typeof chunk === 'string') {
      if (decoding) {
        // Flush bytes of a character left incomplete before switching to string chunks.
        yield decoder.decode();
        decoding = false;
      }
      yield chunk;
    } else {
      decoding = true;
      yield decoder.decode(chunk, { stream: true });
    }
  }
  if (decoding) yield decoder.decode();
}

/** Reads a whole stream of strings or UTF-8 bytes into one string (leading BOM removed). */
export async function readAllText(input: AsyncIterable<string | Uint8Array>): Promise<string> {
  const parts: string[] = [];
  for await (const text of decodeChunks(input)) parts.push(text);
  const text = parts.join('');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** True for the characters that separate fields: space, tab, and \r \v \f (CR of CRLF). */
function isBlank(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * Finds the whitespace-separated fields of `text.slice(start, end)`, storing the start and end
 * offsets of the first `max` of them in `bounds` (2 slots per field). Returns how many fields
 * the line has, or 0 for a blank line or a comment (first non-blank character `#`).
 */
export function scanFields(
  text: string,
  start: number,
  end: number,
  bounds: Int32Array,
  max: number,
  separator = 0,
): number {
  if (separator !== 0) {
    const count = scanSeparated(text, start, end, bounds, max, separator);
    if (count >= 0) return count;
  }
  let i = start;
  while (i < end && isBlank(text.charCodeAt(i))) i++;
  if (i === end || text.charCodeAt(i) === 35 /* # */) return 0;
  let count = 0;
  while (i < end) {
    const fieldStart = i;
    while (i < end && !isBlank(text.charCodeAt(i))) i++;
    if (count < max) {
      bounds[2 * count] = fieldStart;
      bounds[2 * count + 1] = i;
    }
    count++;
    while (i < end && isBlank(text.charCodeAt(i))) i++;
  }
  return count;
}

/**
 * Fast path of scanFields for text whose only separator is `separator`: finds field ends
 * with indexOf (native, much faster than a character loop). Returns -1 when the line needs
 * the general scan (leading or doubled separators, a comment, a blank line).
 */
function scanSeparated(
  text: string,
  start: number,
  end: number,
  bounds: Int32Array,
  max: number,
  separator: number,
): number {
  if (start === end) return -1;
  const first = text.charCodeAt(start);
  if (first === separator || first === 35 /* # */) return -1;
  const sep = separator === 9 ? '\t' : ' ';
  let count = 0;
  let i = start;
  for (;;) {
    let j = text.indexOf(sep, i);
    if (j === -1 || j > end) j = end;
    if (j === i) return -1; // an empty field: doubled or trailing separators
    if (count < max) {
      bounds[2 * count] = i;
      bounds[2 * count + 1] = j;
    }
    count++;
    if (j === end) return count;
    i = j + 1;
    if (i === end) return -1;
  }
}

/**
 * Parses `text.slice(start, end)` as an integer: an optional sign then decimal digits only
 * (so `1.0`, `1e3`, `0x1` and `1abc` are rejected). Returns NaN when it is not one.
 */
export function parseInteger(text: string, start: number, end: number): number {
  let i = start;
  let sign = 1;
  const first = text.charCodeAt(i);
  if (first === 45 /* - */ || first === 43 /* + */) {
    if (first === 45) sign = -1;
    i++;
  }
  if (i === end) return NaN;
  let value = 0;
  for (; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    value = value * 10 + digit;
  }
  return sign * value;
}

/**
 * Parses a field as a finite decimal number with `Number()` (so `1abc`, `NaN`, `Infinity` and
 * the empty string are rejected), also refusing hex, octal and binary literals such as `0x1A`.
 * Returns NaN when it is not one.
 */
export function parseDecimal(field: string): number {
  const value = Number(field);
  if (!Number.isFinite(value) || field.length === 0) return NaN;
  if (field.length > 1 && field.charCodeAt(0) === 48 /* 0 */) {
    const radix = field.charCodeAt(1) | 32;
    if (radix === 120 /* x */ || radix === 111 /* o */ || radix === 98 /* b */) return NaN;
  }
  return value;
}

/** Exact powers of ten for the fast path of parseDecimalRange (10^22 is the largest exact one). */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * parseDecimal for `text.slice(start, end)` without slicing in the common case: a plain
 * `[+-]digits[.digits]` whose digits form an integer below 2^53 with at most 22 decimals is one
 * exact integer divided by an exact power of ten, which IEEE division rounds correctly, so the
 * result equals `Number()`'s. Anything else (exponents, longer mantissas) goes through
 * parseDecimal.
 */
export function parseDecimalRange(text: string, start: number, end: number): number {
  let i = start;
  let negative = false;
  const first = text.charCodeAt(i);
  if (first === 45 /* - */ || first === 43 /* + */) {
    negative = first === 45;
    i++;
  }
  let mantissa = 0;
  let digits = 0;
  let fractionDigits = -1; // -1 until the decimal point
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    const digit = c - 48;
    if (digit >= 0 && digit <= 9) {
      mantissa = mantissa * 10 + digit;
      digits++;
      if (fractionDigits >= 0) fractionDigits++;
    } else if (c === 46 /* . */ && fractionDigits < 0) {
      fractionDigits = 0;
    } else {
      return parseDecimal(text.slice(start, end));
    }
  }
  if (digits === 0) return NaN;
  if (mantissa >= 9007199254740992 || fractionDigits > 22) {
    return parseDecimal(text.slice(start, end));
  }
  const value = fractionDigits > 0 ? mantissa / POWERS_OF_TEN[fractionDigits]! : mantissa;
  return negative ? -value : value;
}
