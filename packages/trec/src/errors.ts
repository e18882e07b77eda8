/**
 * A malformed TREC file. `message` is always `${file}:${line}: ${reason}`; `line` is 1-based,
 * or 0 for problems with the file as a whole (for example, an empty run).
 */
export class TrecFormatError extends Error {
  override readonly name = 'TrecFormatError';
  /** The file name (or label) passed to the parser. */
  readonly file: string;
  /** 1-based line number of the offending line; 0 for file-level problems. */
  readonly line: number;
  /** What is wrong, without the `file:line:` prefix. */
  readonly reason: string;

  constructor(file: string, line: number, reason: string) {
    super(`${file}:${line}: ${reason}`);
    this.file = file;
    this.line = line;
    this.reason = reason;
  }
}

/** Quotes a value for an error message (JSON string syntax), shortening very long values. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}

/** The JSON type of a parsed value, for messages (`a number`, `an object`). */
export function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
