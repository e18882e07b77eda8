// Reading the files commands are given: a path, `-` for standard input, and gzip-compressed
// files (name ending in `.gz`) decompressed on the fly. I/O failures become one CLI error
// naming the file.
import { isAscii } from 'node:buffer';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { CliError } from './io.js';

/** The argument that stands for standard input. */
export const STDIN = '-';

/** True when `path` names a gzip-compressed file. */
function isGzip(path: string): boolean {
  return path.toLowerCase().endsWith('.gz');
}

function cannotRead(path: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? 'unknown error';
  const name = path === STDIN ? 'standard input' : path;
  return new CliError(`${name}: cannot read file (${code})`, 2);
}

/** The whole content of `path` (`-`: standard input; `.gz`: decompressed) as bytes. */
export function readBytes(path: string): Buffer {
  try {
    const bytes = readFileSync(path === STDIN ? 0 : path);
    return isGzip(path) ? gunzipSync(bytes) : bytes;
  } catch (error) {
    throw cannotRead(path, error);
  }
}

/**
 * Reads a UTF-8 text file (`-` and `.gz` as readBytes). Pure-ASCII files (most TREC files)
 * skip UTF-8 decoding, which is several times slower for large runs.
 */
export function readText(path: string): string {
  const bytes = readBytes(path);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

const CHUNK_SIZE = 1 << 22;

/**
 * Hands the bytes of `path` to `consume` in chunks, so a large plain file is never held
 * whole in memory; a chunk's memory is reused once `consume` returns. Standard input and
 * `.gz` files are read whole first.
 */
export function readChunks(path: string, consume: (chunk: Uint8Array) => void): void {
  if (path === STDIN || isGzip(path)) {
    consume(readBytes(path));
    return;
  }
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw cannotRead(path, error);
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_SIZE);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, CHUNK_SIZE, null);
      } catch (error) {
        throw cannotRead(path, error);
      }
      if (n === 0) break;
      consume(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}
