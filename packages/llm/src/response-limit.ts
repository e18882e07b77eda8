/** The largest answer body read by default: 16 MiB (a chat answer with log-probabilities is far smaller). */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** An answer body larger than the limit: refused unread (not retried: it would be as large again). */
export class ResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the answer is larger than ${formatMiB(limitBytes)}; it was not read`);
    this.name = 'ResponseTooLargeError';
  }
}

function formatMiB(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(0)} MiB` : `${bytes} bytes`;
}

/**
 * Reads a response body, at most `maxBytes` of it: a declared Content-Length above the
 * limit is refused before reading, and a body that grows past it is cancelled there.
 */
export async function readLimitedBody(
  response: Response,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new ResponseTooLargeError(maxBytes);
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ResponseTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** `fetch` whose answers are read whole, up to `maxBytes`, before they are handed on. */
export function fetchWithLimit(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const body = await readLimitedBody(response, maxBytes);
    return new Response(response.status === 204 || response.status === 304 ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
