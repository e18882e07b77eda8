import { Utf8Validator } from '@assay/platform';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from './errors.js';

/** How deep a JSON body's objects and arrays may nest. */
const MAX_JSON_DEPTH = 100;

/**
 * Refuses, before any route sees them, inputs the database or a recursive walk cannot take:
 * a NUL character in the path, a query parameter or any string (or key) of a JSON body,
 * JSON bodies nested more than 100 levels deep, and JSON bodies that are not UTF-8 (which
 * decoding would turn into U+FFFD without a word). A 400 names the field or the line. A body that is
 * not JSON at all is left to the route, which says so in its own words.
 */
export const inputGuard: MiddlewareHandler = async (c, next) => {
  if (c.req.path.includes('\0'))
    throw new ApiError('invalid_input', 'the path contains a NUL character');
  for (const [key, values] of Object.entries(c.req.queries()))
    if (key.includes('\0') || values.some((v) => v.includes('\0')))
      throw new ApiError('invalid_input', `${key.replace(/\0/g, '')}: contains a NUL character`);
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (/^application\/([a-z.+-]+\+)?json/.test(type)) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    try {
      const validator = new Utf8Validator('the JSON body', 'JSON is always UTF-8');
      validator.push(bytes);
      validator.end();
    } catch (error) {
      throw new ApiError('invalid_input', (error as Error).message);
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return next();
    }
    checkJson(body);
  }
  return next();
};

/**
 * Walks a parsed JSON value without recursion, throwing for depth or a NUL character. The
 * first walk only looks (a large body is walked once, building nothing); when it finds a
 * fault, a second walk names where.
 */
function checkJson(value: unknown): void {
  if (isClean(value)) return;
  describeFault(value);
}

/** Whether no string or key holds a NUL (but an upload's `text`) and nothing nests too deep. */
function isClean(value: unknown): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  const texts: boolean[] = [false];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    const isText = texts.pop()!;
    if (typeof v === 'string') {
      if (!isText && v.includes('\0')) return false;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_JSON_DEPTH) return false;
    if (Array.isArray(v)) {
      for (const child of v) {
        values.push(child);
        depths.push(depth + 1);
        texts.push(false);
      }
      continue;
    }
    for (const key in v) {
      if (key.includes('\0')) return false;
      values.push((v as Record<string, unknown>)[key]);
      depths.push(depth + 1);
      texts.push(depth === 0 && key === 'text');
    }
  }
  return true;
}

/** Throws the 400 naming the first fault of a value {@link isClean} refused. */
function describeFault(value: unknown): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [
    { value, path: '', depth: 0 },
  ];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      // An uploaded file's text gets a `file:line` answer from the import itself.
      if (v.includes('\0') && path !== 'text')
        throw new ApiError('invalid_input', `${path || 'body'}: contains a NUL character`);
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_JSON_DEPTH)
      throw new ApiError(
        'invalid_input',
        `the JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`,
      );
    for (const [key, child] of Object.entries(v)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (key.includes('\0'))
        throw new ApiError('invalid_input', `${at.replace(/\0/g, '')}: contains a NUL character`);
      stack.push({ value: child, path: at, depth: depth + 1 });
    }
  }
}
