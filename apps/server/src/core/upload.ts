import { Utf8Validator } from '@assay/platform';
import type { Context } from 'hono';
import { z } from 'zod';
import { ApiError } from './errors.js';

/**
 * An uploaded file: its text (in the consecutive parts it was read in, never joined into
 * one string), the name for `file:line` messages, and validated options.
 */
export interface Upload<O> {
  text: string[];
  file: string;
  options: O;
}

/** Options every upload accepts: the file name to use in error messages. */
const FileName = z.object({ filename: z.string().min(1).max(255).optional() });

/**
 * Reads an upload in any of three shapes: multipart/form-data with a `file` field, a JSON
 * object `{ text, …options }`, or the raw body (text/plain; also what `curl --data-binary`
 * sends by default). Options come from the query string, overridden by form or JSON
 * fields, and are validated with `schema` (a 400 names the field).
 */
export async function readUpload<S extends z.ZodObject>(
  c: Context,
  schema: S,
  defaultFile: string,
): Promise<Upload<z.output<S>>> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  const fields: Record<string, unknown> = { ...c.req.query() };
  let text: string[];
  let file: string | undefined;
  if (type.startsWith('multipart/form-data')) {
    let form: Awaited<ReturnType<typeof c.req.parseBody>>;
    try {
      form = await c.req.parseBody();
    } catch {
      throw new ApiError(
        'invalid_input',
        'the multipart/form-data body is malformed (check its boundary and parts)',
      );
    }
    const upload = form.file;
    if (!(upload instanceof File))
      throw new ApiError(
        'invalid_input',
        'the multipart form needs a "file" field holding the file',
      );
    for (const [key, value] of Object.entries(form))
      if (key !== 'file' && typeof value === 'string') fields[key] = value;
    file = upload.name || undefined;
    text = await decodeText(
      upload.stream(),
      upload.type,
      typeof fields.filename === 'string' ? fields.filename : (file ?? defaultFile),
    );
  } else if (/^application\/([a-z.+-]+\+)?json/.test(type)) {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new ApiError('invalid_input', 'the body is not valid JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ApiError('invalid_input', 'the JSON body must be an object with a "text" field');
    const { text: jsonText, ...rest } = body as Record<string, unknown>;
    if (typeof jsonText !== 'string')
      throw new ApiError('invalid_input', 'text: the JSON body needs the file’s content as "text"');
    // JSON booleans and numbers become the strings the query string would carry.
    for (const [key, value] of Object.entries(rest))
      fields[key] = typeof value === 'boolean' || typeof value === 'number' ? String(value) : value;
    text = [jsonText];
  } else if (
    type === '' ||
    type.startsWith('text/') ||
    type.startsWith('application/octet-stream') ||
    type.startsWith('application/x-www-form-urlencoded')
  ) {
    text = await decodeText(
      c.req.raw.body ?? emptyStream(),
      type,
      typeof fields.filename === 'string' ? fields.filename : defaultFile,
    );
  } else {
    throw new ApiError(
      'unsupported_media_type',
      `cannot read a ${type.split(';')[0]} upload; send text/plain, multipart/form-data or JSON`,
    );
  }
  const names = FileName.parse({ filename: fields.filename });
  delete fields.filename;
  // Strict: a misspelt option (`?repalce=true`) is an error, not silently ignored.
  const options = schema.strict().parse(fields) as z.output<S>;
  return { text, file: names.filename ?? file ?? defaultFile, options };
}

/** Charsets an upload may declare, by the decoder that reads them. */
const CHARSETS: Record<string, string> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'us-ascii': 'utf-8',
  ascii: 'utf-8',
  'iso-8859-1': 'latin1',
  'iso8859-1': 'latin1',
  latin1: 'latin1',
  'windows-1252': 'latin1',
};

/** Bytes decoded between two turns of the event loop while an upload is read. */
const DECODE_SLICE_BYTES = 1024 * 1024;

function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}

/**
 * The text of an uploaded file: UTF-8 unless its content type declares another charset
 * assay reads (ISO-8859-1 / Latin-1, decoded as such). Bytes that are not UTF-8 in an
 * upload that declares no other charset are refused naming `file:line` (decoding them would
 * store U+FFFD in their place). UTF-16, declared or recognised by its byte-order mark or
 * its zero bytes, and any other charset are refused with a message saying what to do, so
 * nothing is stored garbled. The body is read and decoded chunk by
 * chunk, letting the event loop serve other requests after every megabyte or so: a
 * 50 MB upload is never concatenated, decoded or joined in one piece.
 */
async function decodeText(
  body: ReadableStream<Uint8Array>,
  contentType: string,
  file: string,
): Promise<string[]> {
  const chunks: Uint8Array[] = [];
  let sinceYield = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    sinceYield += value.length;
    // Chunks already buffered are handed over in microtasks, which let no request in.
    if (sinceYield >= DECODE_SLICE_BYTES) {
      sinceYield = 0;
      await nextTurn();
    }
  }
  const where = file === '' ? '' : `${file}: `;
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1]?.toLowerCase();
  if ((declared !== undefined && declared.startsWith('utf-16')) || looksLikeUtf16(head(chunks)))
    throw new ApiError(
      'invalid_input',
      `${where}the file is UTF-16; assay reads UTF-8 (or a declared ISO-8859-1): convert it, e.g. iconv -f UTF-16 -t UTF-8`,
      422,
    );
  const decoder = declared === undefined ? 'utf-8' : CHARSETS[declared];
  if (decoder === undefined)
    throw new ApiError(
      'unsupported_media_type',
      `${where}cannot read charset=${declared}; send UTF-8 (or ISO-8859-1)`,
    );
  const utf8 = new TextDecoder('utf-8');
  const validator =
    decoder === 'latin1'
      ? undefined
      : new Utf8Validator(
          file || 'upload',
          'send UTF-8, or declare the charset the file is in (Content-Type: text/plain; charset=iso-8859-1)',
        );
  const parts: string[] = [];
  sinceYield = 0;
  // The validator's `file:line: reason` is the 422's message.
  const refuse = (error: unknown) => new ApiError('invalid_input', (error as Error).message, 422);
  for (const chunk of chunks) {
    try {
      validator?.push(chunk);
    } catch (error) {
      throw refuse(error);
    }
    parts.push(
      decoder === 'latin1'
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1')
        : utf8.decode(chunk, { stream: true }),
    );
    sinceYield += chunk.length;
    if (sinceYield >= DECODE_SLICE_BYTES) {
      sinceYield = 0;
      await nextTurn();
    }
  }
  if (decoder !== 'latin1') parts.push(utf8.decode());
  try {
    validator?.end();
  } catch (error) {
    throw refuse(error);
  }
  return parts;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The first 512 bytes of an upload read as `chunks` (all of it when shorter). */
function head(chunks: readonly Uint8Array[]): Uint8Array {
  const size = Math.min(
    512,
    chunks.reduce((sum, chunk) => sum + chunk.length, 0),
  );
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    if (at === size) break;
    const part = chunk.subarray(0, size - at);
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/** A UTF-16 byte-order mark, or zero bytes in every other position of the first bytes. */
function looksLikeUtf16(bytes: Uint8Array): boolean {
  if (bytes.length >= 2) {
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
      return true;
  }
  const n = Math.min(bytes.length, 512);
  if (n < 4) return false;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i++) {
    if (bytes[i] !== 0) continue;
    if (i % 2 === 0) evenZeros++;
    else oddZeros++;
  }
  return Math.max(evenZeros, oddZeros) >= (n / 2) * 0.8;
}
