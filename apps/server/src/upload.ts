import type { Context } from 'hono';
import { z } from 'zod';
import { ApiError } from './errors.js';

/** An uploaded file: its text, the name for `file:line` messages, and validated options. */
export interface Upload<O> {
  text: string;
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
  let text: string;
  let file: string | undefined;
  if (type.startsWith('multipart/form-data')) {
    const form = await c.req.parseBody();
    const upload = form.file;
    if (!(upload instanceof File))
      throw new ApiError(
        'invalid_input',
        'the multipart form needs a "file" field holding the file',
      );
    for (const [key, value] of Object.entries(form))
      if (key !== 'file' && typeof value === 'string') fields[key] = value;
    text = await upload.text();
    file = upload.name || undefined;
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
    text = jsonText;
  } else if (
    type === '' ||
    type.startsWith('text/') ||
    type.startsWith('application/octet-stream') ||
    type.startsWith('application/x-www-form-urlencoded')
  ) {
    text = await c.req.text();
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
