// Text comes in as UTF-8 unless its encoding is declared. Decoding invalid bytes silently
// turns them into U+FFFD, and two Latin-1 docnos that differ only in an accented letter then
// become one; so bytes that are not UTF-8 are refused with the line they are on.
import { isUtf8 } from 'node:buffer';
import { TrecFormatError } from './errors.js';

/**
 * Checks that bytes fed in chunks (split anywhere, even inside a character) are valid UTF-8,
 * counting lines so that a failure names `file:line`. `hint` ends the message: how to
 * declare another encoding where the bytes came from (an option, a charset).
 */
export class Utf8Validator {
  private readonly file: string;
  private readonly hint: string;
  /** The last bytes of the previous chunk when they start a character it does not finish. */
  private carry: Uint8Array | undefined;
  /** Line ends already passed. */
  private lineEnds = 0;

  constructor(file: string, hint: string) {
    this.file = file;
    this.hint = hint;
  }

  /** Checks the next chunk (the chunk may be reused afterwards). */
  push(chunk: Uint8Array): void {
    let buf = chunk;
    if (this.carry !== undefined) {
      buf = new Uint8Array(this.carry.length + chunk.length);
      buf.set(this.carry);
      buf.set(chunk, this.carry.length);
      this.carry = undefined;
    }
    const cut = buf.length - incompleteTail(buf);
    const body = buf.subarray(0, cut);
    if (!isUtf8(body)) this.fail(body, firstInvalid(body));
    this.lineEnds += countLineEnds(body, body.length);
    if (cut < buf.length) this.carry = buf.slice(cut);
  }

  /** Fails when the input ended inside a character. */
  end(): void {
    if (this.carry !== undefined) this.fail(this.carry, 0);
  }

  private fail(buf: Uint8Array, at: number): never {
    const line = this.lineEnds + countLineEnds(buf, at) + 1;
    throw new TrecFormatError(this.file, line, invalidUtf8Reason(buf, at, this.hint));
  }
}

/** What is wrong at `buf[at]`, the first byte that is not UTF-8, ending with `hint`. */
export function invalidUtf8Reason(buf: Uint8Array, at: number, hint: string): string {
  const bytes = [...buf.subarray(at, Math.min(at + 4, buf.length))]
    .map((b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`)
    .join(' ');
  return `the line is not valid UTF-8 (bytes ${bytes}); ${hint}`;
}

/**
 * Checks a whole byte buffer as UTF-8 (see Utf8Validator), throwing `file:line: …` for
 * the first invalid byte.
 */
export function checkUtf8(bytes: Uint8Array, file: string, hint: string): void {
  if (isUtf8(bytes)) return;
  const validator = new Utf8Validator(file, hint);
  validator.push(bytes);
  validator.end();
}

/** How many bytes at the end of `buf` start a character that the buffer does not finish. */
function incompleteTail(buf: Uint8Array): number {
  const n = buf.length;
  for (let k = 1; k <= 3 && k <= n; k++) {
    const b = buf[n - k]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    if (b < 0xc0) return 0; // ASCII: nothing pending
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return length > k ? k : 0;
  }
  return 0;
}

/** The number of `\n` bytes in `buf` before offset `end`. */
function countLineEnds(buf: Uint8Array, end: number): number {
  let count = 0;
  for (let i = buf.indexOf(10); i !== -1 && i < end; i = buf.indexOf(10, i + 1)) count++;
  return count;
}

/**
 * The offset of the first byte of `buf` that does not begin a valid UTF-8 character
 * (`buf.length` when there is none).
 */
export function firstInvalid(buf: Uint8Array): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [length, min] = [2, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [length, min] = [3, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [length, min] = [4, 0x10000];
    else return i;
    if (i + length > buf.length) return i;
    let code = b & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const c = buf[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return i;
    i += length;
  }
  return buf.length;
}
