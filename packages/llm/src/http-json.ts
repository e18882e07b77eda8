import type { AttemptFailure } from './retry.js';
import { parseRetryAfter } from './retry.js';
import { readLimitedBody, ResponseTooLargeError } from './response-limit.js';

/** The largest answer body postJson reads by default: 256 MiB (a large batch of vectors). */
const DEFAULT_MAX_JSON_BYTES = 256 * 1024 * 1024;

/** Connection settings of an OpenAI-compatible endpoint for embeddings and reranking. */
export interface HttpEndpoint {
  /** Base URL ending in `/v1` (e.g. `http://127.0.0.1:8000/v1`); default OpenAI's. */
  baseURL?: string;
  apiKey?: string;
  /** Per-request timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** The largest answer body read, in bytes (default 256 MiB); a larger one fails the call. */
  maxResponseBytes?: number;
}

/** A failed HTTP call, classified for the retry loop. */
export class LlmHttpError extends Error {
  constructor(
    message: string,
    readonly failure: AttemptFailure,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'LlmHttpError';
  }
}

/** Classifies an error of {@link postJson} for `withRetries`. */
export function classifyHttpError(error: unknown): AttemptFailure {
  return error instanceof LlmHttpError ? error.failure : { retryable: false };
}

/**
 * POSTs a JSON body to `<baseURL><path>` and returns the parsed JSON answer. 408, 409,
 * 429 and 5xx answers, timeouts, dropped connections and unreadable bodies are retryable
 * failures (with the server's Retry-After when given); other statuses, and a body larger
 * than `maxResponseBytes`, are final. The API key goes only into the Authorization
 * header, never into an error message. `signal` cuts the request off.
 */
export async function postJson(
  endpoint: HttpEndpoint,
  path: string,
  body: unknown,
  now: () => number = Date.now,
  signal?: AbortSignal,
): Promise<unknown> {
  const base = (endpoint.baseURL ?? OPENAI_API_BASE_URL).replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const timeout = AbortSignal.timeout(endpoint.timeoutMs ?? 120_000);
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
    const bytes = await readLimitedBody(
      response,
      endpoint.maxResponseBytes ?? DEFAULT_MAX_JSON_BYTES,
    );
    text = new TextDecoder().decode(bytes);
  } catch (error) {
    if (error instanceof ResponseTooLargeError)
      throw new LlmHttpError(`${path}: ${error.message}`, { retryable: false });
    const name = (error as Error).name;
    if (name === 'TimeoutError' || (name === 'AbortError' && !signal?.aborted))
      throw new LlmHttpError(`timed out calling ${path}`, { retryable: true, timedOut: true });
    if (signal?.aborted) throw new LlmHttpError(`cut off calling ${path}`, { retryable: false });
    throw new LlmHttpError(
      `connection failed calling ${publicEndpoint(base)}${path}: ${(error as Error).message}`,
      { retryable: true },
    );
  }
  if (!response.ok) {
    const status = response.status;
    const failure: AttemptFailure = {
      retryable: status === 408 || status === 409 || status === 429 || status >= 500,
    };
    const after = parseRetryAfter(response.headers, now());
    if (after !== undefined) failure.retryAfterMs = after;
    throw new LlmHttpError(`HTTP ${status} from ${path}: ${errorMessage(text)}`, failure, status);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new LlmHttpError(`malformed response body from ${path}`, { retryable: true });
  }
}

/** Where an OpenAI-compatible client sends its requests when no base URL is given. */
export const OPENAI_API_BASE_URL = 'https://api.openai.com/v1';

/**
 * An endpoint's base URL as messages and logs may show it: scheme, host, port and path,
 * never credentials or a query.
 */
export function publicEndpoint(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return 'the configured endpoint';
  }
}

function errorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string };
    if (typeof parsed.error === 'string') return parsed.error.slice(0, 300);
    if (typeof parsed.error?.message === 'string') return parsed.error.message.slice(0, 300);
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, 300);
}
