import type { KeyValue, Seek } from '@assay/db';
import { PlatformError } from './errors.js';

/**
 * A page of a list and the cursor of the next page: `next` is null on the last page, else
 * what to pass as `after` to read on. Cursors are opaque text (base64url of the last row's
 * sort key) and only mean something to the list that made them.
 */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** How to ask for a page: at most `limit` items after the cursor `after`. */
export interface PageOptions {
  limit?: number;
  after?: string;
}

/** How many items a page of a list holds when not told, and at most. */
export interface PageSize {
  default: number;
  max: number;
}

/** Lists of things people make one by one (collections, users, campaigns, reports…). */
export const SMALL_PAGE: PageSize = { default: 100, max: 1000 };
/** Lists that grow with imported data (topics, labels, runs, failed judge items…). */
export const LARGE_PAGE: PageSize = { default: 1000, max: 10_000 };

/** The type of each value of a sort key: text, an integer, or any finite number. */
type KeyKind = 'text' | 'int' | 'number';

function fits(value: unknown, kind: KeyKind): value is KeyValue {
  if (kind === 'text') return typeof value === 'string';
  if (kind === 'int') return Number.isSafeInteger(value);
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * The page request for the repository: the limit checked against `size` (invalid_input
 * outside 1..max) and the cursor decoded into a sort key of the kinds `key` lists
 * (invalid_input when it is not the `next` of a page of a list with that key).
 */
export function seekPage(options: PageOptions, size: PageSize, key: readonly KeyKind[]): Seek {
  const limit = pageLimit(options.limit, size);
  if (options.after === undefined) return { limit };
  return { limit, after: decodeCursor(options.after, key) };
}

/** The size of a page: `limit`, else the list's default; invalid_input outside 1..max. */
export function pageLimit(limit: number | undefined, size: PageSize): number {
  const n = limit ?? size.default;
  if (!Number.isInteger(n) || n < 1 || n > size.max)
    throw new PlatformError(
      'invalid_input',
      `limit must be an integer from 1 to ${size.max}, not ${n}`,
    );
  return n;
}

/**
 * The page made of `rows`, read with {@link seekPage}'s request (so up to limit + 1 of
 * them): the first `limit` mapped by `map`, and the cursor of the last one when a row is
 * left over.
 */
export function pageOf<R, T>(
  rows: readonly R[],
  page: Seek,
  keyOf: (row: R) => readonly KeyValue[],
  map: (row: R) => T,
): Page<T> {
  const kept = rows.slice(0, page.limit);
  const last = kept.at(-1);
  return {
    items: kept.map(map),
    next: rows.length > page.limit && last !== undefined ? encodeCursor(keyOf(last)) : null,
  };
}

/** The opaque cursor of a sort key. */
export function encodeCursor(key: readonly KeyValue[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key in a cursor; invalid_input unless it has the kinds `key` lists. */
export function decodeCursor(text: string, key: readonly KeyKind[]): KeyValue[] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (
    Array.isArray(value) &&
    value.length === key.length &&
    value.every((v: unknown, i) => fits(v, key[i]!))
  )
    return value as KeyValue[];
  throw new PlatformError(
    'invalid_input',
    'after must be the `next` cursor of a previous page of this list',
  );
}
