import {
  ComputationStoppedError,
  PlatformError,
  describeDataError,
  isDatabaseUnavailable,
} from '@assay/platform';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ZodError } from 'zod';

/** The API's stable error codes; clients switch on these, never on messages. */
export type ApiErrorCode =
  | 'not_found'
  | 'conflict'
  | 'invalid_input'
  | 'unauthorized'
  | 'forbidden'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'unavailable'
  | 'busy'
  | 'internal';

const STATUS: Record<ApiErrorCode, ContentfulStatusCode> = {
  not_found: 404,
  conflict: 409,
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  unavailable: 503,
  busy: 503,
  internal: 500,
};

/** Seconds a client is asked to wait when the database cannot be reached. */
const DATABASE_RETRY_AFTER_S = 5;

/** The one error the API throws; `onError` turns it into `{ error: { code, message } }`. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;

  constructor(
    readonly code: ApiErrorCode,
    message: string,
    /** Overrides the code's usual status (invalid_input is 400 or 422). */
    status?: ContentfulStatusCode,
    /** Response headers that go with the error (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? STATUS[code];
  }
}

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { code: ApiErrorCode; message: string };
}

/** One line per zod issue, `where: what`, e.g. `limit: Too big: expected number to be <=10000`. */
export function describeZodError(error: ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'input'}: ${issue.message}`)
    .join('; ');
}

/**
 * Turns anything thrown into an ApiError. Request-shape problems are 400; content that is
 * well-formed as a request but wrong as data (a bad line in an uploaded run, an unknown
 * measure) is 422 and keeps the use-case's `file:line: reason` message.
 */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof PlatformError)
    return new ApiError(
      error.code,
      // A conflict that replacing resolves names the API's way of asking for it.
      error.details?.replaceable === true
        ? `${error.message}; add ?replace=true to overwrite it`
        : error.message,
      error.code === 'invalid_input' ? 422 : undefined,
    );
  if (error instanceof ZodError) return new ApiError('invalid_input', describeZodError(error));
  // The client hung up and its computation stopped: nobody reads this answer.
  if (error instanceof ComputationStoppedError) return new ApiError('busy', error.message);
  if (error instanceof HTTPException) {
    // Hono's own request checks: malformed JSON, unsupported media types, oversize bodies.
    if (error.status === 413)
      return new ApiError('payload_too_large', 'the request body is too large');
    if (error.status === 415)
      return new ApiError('unsupported_media_type', error.message || 'unsupported media type');
    if (error.status === 401) return new ApiError('unauthorized', error.message);
    if (error.status === 403) return new ApiError('forbidden', error.message);
    if (error.status === 404) return new ApiError('not_found', error.message);
    if (error.status >= 400 && error.status < 500)
      return new ApiError('invalid_input', error.message || 'bad request');
  }
  // The database is down or restarting: the request may succeed in a moment.
  if (isDatabaseUnavailable(error))
    return new ApiError(
      'unavailable',
      'the database cannot be reached right now; try again in a few seconds',
      undefined,
      { 'retry-after': String(DATABASE_RETRY_AFTER_S) },
    );
  // A unique violation the use-cases did not anticipate is still a conflict, not a crash.
  if (isUniqueViolation(error))
    return new ApiError('conflict', 'this conflicts with data that already exists');
  return undefined;
}

function isUniqueViolation(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    (error as { code: unknown }).code === '23505'
  );
}

/**
 * The app's one error handler. Internal errors get a generic message, and data a database
 * refused (a value out of range, too long, a NUL) a 422 with a generic reason; the details
 * of both go to the server log only (never the request's headers, so tokens stay out of logs).
 */
export function handleError(error: Error, c: Context, log: (line: string) => void) {
  const known = toApiError(error);
  if (known) {
    const body: ErrorBody = { error: { code: known.code, message: known.message } };
    return c.json(body, known.status, known.headers);
  }
  // A database error's own text names tables and SQL: the client gets words, the log the text.
  const refused = describeDataError((error as { code?: unknown }).code);
  if (refused !== undefined) {
    log(`refused input on ${c.req.method} ${c.req.path}: ${error.stack ?? String(error)}`);
    const body: ErrorBody = { error: { code: 'invalid_input', message: refused } };
    return c.json(body, 422);
  }
  log(`internal error on ${c.req.method} ${c.req.path}: ${error.stack ?? String(error)}`);
  const body: ErrorBody = { error: { code: 'internal', message: 'internal server error' } };
  return c.json(body, 500);
}
