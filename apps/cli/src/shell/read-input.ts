// Reading the files commands are given: a path, `-` for standard input, gzip-compressed
// input (recognised by its first two bytes, whatever its name, standard input included)
// decompressed on the fly with a limit, and the text's encoding: UTF-8, where bytes that are
// not UTF-8 are an error naming file:line, unless `--encoding latin1` says otherwise. I/O
// failures become one CLI error naming the file.
import { constants, isAscii } from 'node:buffer';
import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { checkUtf8 } from '@assay/trec';
import type { OptionSpec } from './getopt.js';
import { TEXT, UsageError } from './getopt.js';
import { CliError } from './io.js';

/** The argument that stands for standard input. */
export const STDIN = '-';

/** How input files are encoded: UTF-8 (checked), or ISO-8859-1 (any byte is a character). */
export type InputEncoding = 'utf-8' | 'latin1';

/** The `--encoding` option of the commands that read text files. */
export const ENCODING_OPTION: OptionSpec = {
  long: 'encoding',
  key: 'encoding',
  kind: TEXT,
  arg: 'ENC',
  help: `encoding of the input files: utf-8 (default; bytes that are not
UTF-8 are an error naming file:line) or latin1 (ISO-8859-1)`,
};

/** What the UTF-8 error of an input file tells the user to do. */
export const ENCODING_HINT =
  'convert the file to UTF-8, or declare its encoding (--encoding latin1 for ISO-8859-1)';

/** The same, for commands without `--encoding`. */
const CONVERT_HINT = 'convert the file to UTF-8 (for ISO-8859-1: iconv -f latin1 -t utf-8)';

/** The encoding `--encoding` asks for (the last one given); UTF-8 by default. */
export function inputEncoding(values: readonly string[] | undefined): InputEncoding {
  const raw = values?.at(-1);
  if (raw === undefined) return 'utf-8';
  const name = raw.toLowerCase();
  if (name === 'utf-8' || name === 'utf8') return 'utf-8';
  if (['latin1', 'latin-1', 'iso-8859-1', 'iso8859-1'].includes(name)) return 'latin1';
  throw new UsageError(`--encoding must be utf-8 or latin1, not '${raw}'`);
}

/**
 * The most a gzip-compressed input may decompress to when it is streamed (`assay eval` and
 * `assay compare` runs and qrels): beyond it the input is refused rather than read on.
 */
export const MAX_GUNZIP_BYTES = 4 * 1024 ** 3;
/** The most a file read whole may hold: the longest text Node.js can make of it. */
const MAX_WHOLE_BYTES = constants.MAX_STRING_LENGTH;

function nameOf(path: string): string {
  return path === STDIN ? 'standard input' : path;
}

function cannotRead(path: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? 'unknown error';
  return new CliError(`${nameOf(path)}: cannot read file (${code})`, 2);
}

function tooLarge(path: string, limit: number, what: string): CliError {
  return new CliError(
    `${nameOf(path)}: decompresses to more than ${limit / 1024 ** 2} MiB, the most ${what}`,
    2,
  );
}

/**
 * Whether `bytes` (the start of `path`) are gzip data (0x1f 0x8b). A name ending in `.gz`
 * on anything else is an error rather than a file read as text.
 */
function isGzip(bytes: Uint8Array, path: string): boolean {
  const gzip = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  if (!gzip && path.toLowerCase().endsWith('.gz'))
    throw new CliError(`${path}: not gzip data, although the name ends in .gz`, 2);
  return gzip;
}

/**
 * The whole content of `path` (`-`: standard input) as bytes; gzip data is decompressed,
 * up to the longest text a file read whole can become.
 */
export function readBytes(path: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path === STDIN ? 0 : path);
  } catch (error) {
    throw cannotRead(path, error);
  }
  if (!isGzip(bytes, path)) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_WHOLE_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw tooLarge(path, MAX_WHOLE_BYTES, 'a file read whole may hold');
    throw new CliError(`${nameOf(path)}: bad gzip data (${(error as Error).message})`, 2);
  }
}

/**
 * Reads a text file (`-` and gzip as readBytes) in `encoding` (commands with `--encoding`
 * pass it; UTF-8 otherwise): input that is not valid UTF-8 fails naming file:line.
 * Pure-ASCII files (most TREC files) skip decoding.
 */
export function readText(path: string, encoding?: InputEncoding): string {
  const bytes = readBytes(path);
  if (encoding === 'latin1' || isAscii(bytes)) return bytes.toString('latin1');
  checkUtf8(bytes, nameOf(path), encoding === undefined ? CONVERT_HINT : ENCODING_HINT);
  return bytes.toString('utf8');
}

const CHUNK_SIZE = 1 << 22;
/**
 * The chunk buffer files are read into, kept from one file to the next: a fresh 4 MB
 * buffer per file costs more in page faults than reading a DL run does. Taken while in use.
 */
let spareChunk: Buffer | undefined;

/**
 * Hands the bytes of `path` to `consume` in chunks, so a large file is never held whole in
 * memory; a chunk's memory is reused once `consume` returns. Gzip data (a file or standard
 * input) is decompressed as a stream, up to MAX_GUNZIP_BYTES. With `latin1`, every chunk
 * is handed on as UTF-8; otherwise the bytes are handed on as they are (the byte parsers
 * check them as UTF-8 line by line).
 */
export async function readChunks(
  path: string,
  consume: (chunk: Uint8Array) => void,
  encoding: InputEncoding = 'utf-8',
): Promise<void> {
  const emit =
    encoding === 'latin1'
      ? (chunk: Uint8Array) =>
          consume(
            Buffer.from(
              Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length).toString('latin1'),
            ),
          )
      : consume;
  if (path === STDIN) {
    const bytes = readRaw(path);
    if (isGzip(bytes, path)) await gunzipInto(Readable.from([bytes]), path, emit);
    else emit(bytes);
    return;
  }
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw cannotRead(path, error);
  }
  let gzip = false;
  const buffer = spareChunk ?? Buffer.allocUnsafe(CHUNK_SIZE);
  spareChunk = undefined;
  try {
    for (let first = true; ; first = false) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, CHUNK_SIZE, null);
      } catch (error) {
        throw cannotRead(path, error);
      }
      if (n === 0) break;
      if (first && isGzip(buffer.subarray(0, n), path)) {
        gzip = true;
        break;
      }
      emit(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
    spareChunk = buffer;
  }
  if (gzip) await gunzipInto(createReadStream(path), path, emit);
}

/** Standard input (or a file) read whole, as bytes. */
function readRaw(path: string): Buffer {
  try {
    return readFileSync(path === STDIN ? 0 : path);
  } catch (error) {
    throw cannotRead(path, error);
  }
}

/** Decompresses gzip data from `source` chunk by chunk into `emit`, up to MAX_GUNZIP_BYTES. */
async function gunzipInto(
  source: Readable,
  path: string,
  emit: (chunk: Uint8Array) => void,
): Promise<void> {
  let total = 0;
  // Output in large pieces: fewer, bigger chunks for the parser.
  const gunzip = createGunzip({ chunkSize: 1 << 20 });
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  try {
    // An error thrown here (the parser's, or the limit) ends the loop and both streams.
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > MAX_GUNZIP_BYTES)
        throw tooLarge(path, MAX_GUNZIP_BYTES, 'assay reads from a gzip file');
      emit(chunk);
    }
  } catch (error) {
    if (error instanceof CliError || !(error as NodeJS.ErrnoException).code?.startsWith('Z_'))
      throw error;
    throw new CliError(`${nameOf(path)}: bad gzip data (${(error as Error).message})`, 2);
  } finally {
    source.destroy();
  }
}
