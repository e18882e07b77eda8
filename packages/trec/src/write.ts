import { quote } from './errors.js';

/** Throws RangeError unless `value` can be written as one whitespace-free TREC field. */
export function checkField(what: string, value: string): void {
  if (value.length === 0 || hasWhitespace(value)) {
    throw new RangeError(`${what} ${quote(value)} cannot be written as a TREC field`);
  }
}

/** Writes a number so that `Number()` reads back exactly the same value (including -0). */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`cannot write non-finite number ${value}`);
  return Object.is(value, -0) ? '-0' : String(value);
}

/** True when `value` holds a character that a TREC reader could take as a field separator. */
function hasWhitespace(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // ASCII blanks (what the parsers split on) plus any non-ASCII, left to the full check.
    if (c === 32 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(value[i]!))) return true;
  }
  return false;
}
