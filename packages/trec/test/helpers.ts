// Test helpers: awkward stream chunking and exact error capture.
import { expect } from 'vitest';
import { TrecFormatError } from '../src/index.js';

/** Yields `text` as string chunks cut at the given offsets. */
export async function* stringChunks(text: string, cuts: number[]): AsyncGenerator<string> {
  let start = 0;
  for (const cut of cuts) {
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

/** Yields the UTF-8 bytes of `text` in chunks of `size` bytes (splitting characters too). */
export async function* byteChunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Resolves to the value, or to the thrown error's message, so both can be compared. */
export async function outcome<T>(work: () => T | Promise<T>): Promise<T | string> {
  try {
    return await work();
  } catch (error) {
    return `threw: ${(error as Error).message}`;
  }
}

/** Runs `work` and returns the TrecFormatError it throws; fails the test if it throws none. */
export function formatErrorOf(work: () => unknown): TrecFormatError {
  try {
    work();
  } catch (error) {
    if (error instanceof TrecFormatError) {
      // The message is always derived from the three fields.
      expect(error.message).toBe(`${error.file}:${error.line}: ${error.reason}`);
      return error;
    }
    throw error;
  }
  throw new Error('expected a TrecFormatError, but nothing was thrown');
}
