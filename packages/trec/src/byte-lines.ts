// Reading TREC lines straight from UTF-8 bytes fed in chunks of any size: the line and
// field rules of the string parsers (\n ends a line; space, tab, \r, \v and \f separate
// fields; blank and `#` lines are skipped; a leading byte-order mark is ignored, and one
// anywhere else refused), with no
// string or object per line. Parsers extend ByteLineParser and read fields in `entry`.
import { Buffer, isUtf8 } from 'node:buffer';
import { TrecFormatError } from './errors.js';
import { firstInvalid, invalidUtf8Reason } from './utf8.js';
import { BOM_INSIDE, CR_INSIDE, innerLineBreak, parseDecimal } from './lines.js';

const decoder = new TextDecoder('utf-8');
/** A byte-order mark (U+FEFF) in UTF-8, refused after the start of the input. */
const BOM_BYTES = Buffer.from([0xef, 0xbb, 0xbf]);

/** What a byte parser's UTF-8 error tells by default. */
const ENCODING_HINT = 'convert the file to UTF-8, or declare the encoding it is in';
/** The longest line a byte parser holds while waiting for its end (a guard against one
 * endless line, e.g. a decompressed run of zero bytes). */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => 10 ** i);
/** Buffer's native latin1 decoding, which takes any Uint8Array as `this`. */
const latin1Slice = (
  Buffer.prototype as unknown as {
    latin1Slice: (this: Uint8Array, start: number, end: number) => string;
  }
).latin1Slice;

/** Splits byte chunks into lines and fields and hands each data line to `entry`. */
export abstract class ByteLineParser {
  protected readonly file: string;
  /** Start and end offsets of the first six fields of the current line. */
  protected readonly bounds = new Int32Array(12);
  /** 1-based number of the current line. */
  protected lineNo = 0;
  private rest: Uint8Array | undefined;
  /** Pieces of a line longer than the chunks it came in, joined once its end arrives. */
  private restParts: Uint8Array[] = [];
  private restLength = 0;
  private started = false;
  private readonly encodingHint: string;

  /** `encodingHint` ends the message for bytes that are not UTF-8 (how to declare another). */
  constructor(file: string, encodingHint = ENCODING_HINT) {
    this.file = file;
    this.encodingHint = encodingHint;
  }

  /**
   * Set by a parser while the lines ahead may be taken by `skipLines` (a run's lines of a
   * topic it does not keep, say), cleared when they may not.
   */
  protected skipping = false;

  /** Checks and stores one line whose `count` fields (the first six in `bounds`) were found. */
  protected abstract entry(buf: Uint8Array, count: number): void;

  /**
   * While `skipping`: checks the lines of `buf` from `start` to `end` (just past a `\n`)
   * that it can check alone, counting them in `lineNo`, and returns where the first line it
   * did not take starts (`start` when none). A line it takes must be one `scan` and `entry`
   * would accept with the same effect: printable ASCII, tab and space only, ended by `\n`
   * or `\r\n` (so no UTF-8, CR or U+2028/U+2029 check is skipped); any other line is left
   * to `scan`, which gives its error.
   */
  protected skipLines(_buf: Uint8Array, start: number, _end: number): number {
    return start;
  }

  /** Called after each chunk's lines, while `buf` of the last line is still valid. */
  protected afterChunk(): void {}

  /** The error to throw for `error` on the current line (a parser may know an earlier one). */
  protected laterError(error: unknown): unknown {
    return error;
  }

  protected fail(reason: string): never {
    throw new TrecFormatError(this.file, this.lineNo, reason);
  }

  /** Parses the complete lines of the next chunk; the chunk may be reused afterwards. */
  push(chunk: Uint8Array): void {
    // A plain Uint8Array view, so the byte loops see one array type (not also Buffer's).
    const buf = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    let start = 0;
    if (this.rest !== undefined) {
      // Finish the line the last chunk left open, without copying the whole chunk. A line
      // still open after this chunk gathers its pieces, joined once (not once per chunk).
      const nl = asBuffer(buf).indexOf(10);
      if (nl === -1) {
        this.restParts.push(copy(buf, 0, buf.length));
        this.restLength += buf.length;
        if (this.rest.length + this.restLength > MAX_LINE_BYTES) {
          this.lineNo++;
          this.fail(`the line is longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB (no line end?)`);
        }
        return;
      }
      const head = buf.subarray(0, nl + 1);
      const joined = new Uint8Array(this.rest.length + this.restLength + head.length);
      joined.set(this.rest);
      let at = this.rest.length;
      for (const part of this.restParts) {
        joined.set(part, at);
        at += part.length;
      }
      joined.set(head, at);
      this.rest = undefined;
      this.restParts = [];
      this.restLength = 0;
      this.pushLines(joined, 0);
      start = nl + 1;
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
      throw this.laterError(error);
    }
    this.afterChunk();
    if (start < buf.length) this.rest = copy(buf, start, buf.length);
  }

  /**
   * Fails for the line `buf[start..end)` when it holds a CR that does not end it or U+2028 /
   * U+2029 (the string parsers' rule, see innerLineBreak).
   */
  private checkLineEnds(
    buf: Uint8Array,
    start: number,
    end: number,
    crs: boolean,
    separators: boolean,
  ): void {
    if (crs) {
      const cr = buf.indexOf(13, start);
      if (cr !== -1 && cr < end) {
        let j = cr + 1;
        while (j < end && (buf[j] === 32 || buf[j] === 9 || (buf[j]! >= 11 && buf[j]! <= 13))) j++;
        if (j < end) this.fail(CR_INSIDE);
      }
    }
    if (separators) {
      const text = decoder.decode(buf.subarray(start, end));
      const problem = innerLineBreak(text, 0, text.length);
      if (problem !== undefined) this.fail(problem);
    }
  }

  /** Parses the last line when the input did not end with `\n`. */
  protected finishInput(): void {
    let rest = this.rest;
    if (rest !== undefined && this.restParts.length > 0) {
      const joined = new Uint8Array(rest.length + this.restLength);
      joined.set(rest);
      let at = rest.length;
      for (const part of this.restParts) {
        joined.set(part, at);
        at += part.length;
      }
      rest = joined;
      this.restParts = [];
      this.restLength = 0;
    }
    this.rest = undefined;
    if (rest === undefined) return;
    let start = 0;
    if (!this.started && rest[0] === 0xef && rest[1] === 0xbb && rest[2] === 0xbf) start = 3;
    this.started = true;
    try {
      this.scan(rest, start, true);
    } catch (error) {
      throw this.laterError(error);
    }
    this.afterChunk();
  }

  /**
   * Parses the lines of `buf` from `start`, finding line ends and fields in one pass, and
   * returns where the unfinished last line starts (`final`: the end of input ends it).
   */
  private scan(buf: Uint8Array, start: number, final: boolean): number {
    const b = this.bounds;
    const limit = buf.length;
    // Byte searches over the whole chunk go through Buffer's native (memchr) indexOf, many
    // times faster than a typed array's own.
    const native = asBuffer(buf);
    // Lines are checked for a CR inside them or U+2028/U+2029 (E2 80 A8/A9) only when the
    // chunk holds such a byte at all: a line-by-line look for CR files, none for the rest.
    const crs = native.indexOf(13, start) !== -1;
    const separators = hasLineSeparator(native, start);
    // UTF-8 is checked over the complete lines only (a character never spans a \n), in one
    // native pass; the line holding a bad byte fails when it is reached.
    const lineEnds = native.lastIndexOf(10) + 1;
    const complete = final ? limit : lineEnds;
    let badAt = -1;
    if (complete > start && !isUtf8(buf.subarray(start, complete)))
      badAt = start + firstInvalid(buf.subarray(start, complete));
    // A byte-order mark past the input's start fails the line it is on (the string parsers'
    // rule): one native search per chunk.
    const bomAt = native.indexOf(BOM_BYTES, start);
    let i = start;
    let c = 0;
    for (;;) {
      if (i < lineEnds && this.skipping) i = this.skipLines(buf, i, lineEnds);
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
      if (badAt !== -1 && badAt < i) this.fail(invalidUtf8Reason(buf, badAt, this.encodingHint));
      if (bomAt !== -1 && bomAt < i) this.fail(BOM_INSIDE);
      if (crs || separators) this.checkLineEnds(buf, lineStart, i, crs, separators);
      if (count > 0 && !comment) this.entry(buf, count);
      if (i === limit) return limit;
      i++; // past the \n
    }
  }
}

/** A Buffer over the same memory as `buf` (no copy), for Buffer's native byte search. */
function asBuffer(buf: Uint8Array): Buffer {
  return Buffer.from(buf.buffer, buf.byteOffset, buf.length);
}

/** Whether `buf` from `start` holds the UTF-8 bytes of U+2028 or U+2029. */
function hasLineSeparator(buf: Buffer, start: number): boolean {
  for (let i = buf.indexOf(0xe2, start); i !== -1; i = buf.indexOf(0xe2, i + 1))
    if (buf[i + 1] === 0x80 && (buf[i + 2] === 0xa8 || buf[i + 2] === 0xa9)) return true;
  return false;
}

/** A copy of part of `buf` (a Buffer's own slice() would share its memory). */
export function copy(buf: Uint8Array, start: number, end: number): Uint8Array {
  return Uint8Array.prototype.slice.call(buf, start, end);
}

/**
 * `buf[start..end)` decoded as UTF-8; short ASCII fields (ids, tags, scores) are the same
 * text in latin1, which Buffer's native slice makes without the decoder.
 */
export function text(buf: Uint8Array, start: number, end: number): string {
  if (end - start <= 64) {
    let i = start;
    while (i < end && buf[i]! < 128) i++;
    if (i === end) return latin1Slice.call(buf, start, end);
  }
  return decoder.decode(buf.subarray(start, end));
}

/** An optional sign then decimal digits only (parseInteger's rule). */
export function isIntegerBytes(buf: Uint8Array, start: number, end: number): boolean {
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
 * Whether `buf[start..end)` is a plain `[+-]digits[.digits]` score (at least one digit)
 * short enough to be finite: a sure yes to "is it a finite number" without computing it.
 * False means only "not plain" (parseScoreBytes decides then).
 */
export function isPlainScoreBytes(buf: Uint8Array, start: number, end: number): boolean {
  // Far below the 309 digits where a decimal overflows to Infinity.
  if (end - start > 300) return false;
  let i = start;
  const first = buf[i];
  if (first === 45 /* - */ || first === 43 /* + */) i++;
  let digits = 0;
  let point = false;
  for (; i < end; i++) {
    const c = buf[i]!;
    if (c >= 48 && c <= 57) digits++;
    else if (c === 46 /* . */ && !point) point = true;
    else return false;
  }
  return digits > 0;
}

/**
 * The score as parseRun reads it: a plain `[+-]digits[.digits]` is one exact integer over an
 * exact power of ten (correctly rounded, equal to `Number()`); anything else is decoded and
 * read by parseDecimal.
 */
export function parseScoreBytes(buf: Uint8Array, start: number, end: number): number {
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
  let plain = true;
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
      plain = false;
      break;
    }
  }
  if (plain && digits === 0) return NaN;
  // Anything else than digits and one point (exponents, say), and plain scores too long to be
  // exact (17-digit scores are common), are read by parseDecimal, through one call: a score
  // seen first in the middle of a run then costs the compiled code no new path.
  if (!plain || mantissa >= 9007199254740992 || fractionDigits > 22)
    return parseDecimal(text(buf, start, end));
  const value = fractionDigits > 0 ? mantissa / POWERS_OF_TEN[fractionDigits]! : mantissa;
  return negative ? -value : value;
}
