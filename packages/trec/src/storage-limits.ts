// What a database can store, checked while parsing so that an upload that would exceed it
// fails with `file:line: reason` instead of a database error: ids short enough for an
// index entry, names of a readable length, integers that fit a 32-bit column, no NUL.
import { TrecFormatError, quote } from './errors.js';

/** Longest id (topic id, docno, query id), in UTF-8 bytes. */
export const MAX_ID_BYTES = 512;
/** Longest name (run tag, run or label set name), in characters. */
export const MAX_NAME_CHARS = 200;
/** Smallest and largest rank or grade: a signed 32-bit integer. */
export const MIN_INT32 = -2_147_483_648;
/** Largest rank or grade: a signed 32-bit integer. */
export const MAX_INT32 = 2_147_483_647;

/**
 * Why `id` cannot be stored as a `what` (e.g. `docno`), or undefined: longer than
 * {@link MAX_ID_BYTES} UTF-8 bytes, or holding a byte-order mark (U+FEFF), which no one sees
 * and which makes an id that looks like another a different one. (NUL characters are
 * refused for the whole file.)
 */
export function idProblem(what: string, id: string): string | undefined {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short ids need no byte count.
  if (id.length * 3 > MAX_ID_BYTES && Buffer.byteLength(id, 'utf8') > MAX_ID_BYTES)
    return `${what} ${quote(id)} is longer than ${MAX_ID_BYTES} bytes`;
  if (id.includes('\ufeff')) return `${what} ${quote(id)} holds a byte-order mark (U+FEFF)`;
  return undefined;
}

/** Why `name` is too long to store as a `what` (e.g. `run tag`), or undefined. */
export function nameProblem(what: string, name: string): string | undefined {
  if (name.length > MAX_NAME_CHARS)
    return `${what} ${quote(name)} is longer than ${MAX_NAME_CHARS} characters`;
  return undefined;
}

/** Why `value` cannot be stored as a 32-bit `what` (e.g. `rank`), or undefined when it can. */
export function int32Problem(what: string, value: number, raw: string): string | undefined {
  if (value < MIN_INT32 || value > MAX_INT32)
    return `${what} ${quote(raw)} is outside the 32-bit range ${MIN_INT32}..${MAX_INT32}`;
  return undefined;
}

/**
 * The lowest grade a label set stores. Grades are labels on a small scale (0–3, 0–4, -1 for
 * "pooled, not judged"); the bound keeps a stray `2000000000` out of every scale-sized
 * structure downstream (agreement matrices, annotation buttons, histograms).
 */
export const MIN_GRADE = -1000;
/** The highest grade a label set stores (see {@link MIN_GRADE}). */
export const MAX_GRADE = 1000;

/** Why `grade` cannot be stored in a label set (e.g. `grade 2000000000 is outside …`), or undefined. */
export function gradeProblem(grade: number, raw = String(grade)): string | undefined {
  if (!Number.isInteger(grade) || grade < MIN_GRADE || grade > MAX_GRADE)
    return `grade ${raw} is outside ${MIN_GRADE}..${MAX_GRADE}, the grades assay stores`;
  return undefined;
}

/**
 * Why a grade scale `min..max` cannot be stored (`what` names it in the message, e.g.
 * `scale`), or undefined: two integers, min <= max, both within MIN_GRADE..MAX_GRADE.
 */
export function gradeScaleProblem(min: number, max: number, what = 'scale'): string | undefined {
  if (!Number.isInteger(min) || !Number.isInteger(max) || min > max)
    return `${what} ${min}..${max} must be two integers, min <= max`;
  if (min < MIN_GRADE || max > MAX_GRADE)
    return `${what} ${min}..${max} is outside ${MIN_GRADE}..${MAX_GRADE}, the grades assay stores`;
  return undefined;
}

/**
 * Throws `file:line: the file contains a NUL character` for the first NUL in `text`, which no
 * text column can hold. Cheap when there is none (one scan of the text).
 */
export function refuseNul(text: string, file: string): void {
  const at = text.indexOf('\0');
  if (at === -1) return;
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  throw new TrecFormatError(file, line, 'the line contains a NUL character (byte 0)');
}
