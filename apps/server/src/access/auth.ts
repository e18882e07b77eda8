import { authenticate, PlatformError } from '@assay/platform';
import type { FailedAuthLimiter } from './auth-rate-limit.js';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../core/errors.js';
import type { AppEnv } from '../router.js';

/**
 * Routes anyone may call without a token, as `METHOD path` (paths as the router sees them).
 * This is the one place that opens an endpoint to the public: besides health and the
 * OpenAPI document, only the index of published leaderboards and reading one (one path
 * segment under /api/public/leaderboards/, GET or HEAD).
 */
const PUBLIC_ROUTES: ReadonlyArray<string | RegExp> = [
  'GET /api/health',
  'GET /api/openapi.json',
  'GET /api/public/leaderboards',
  /^GET \/api\/public\/leaderboards\/[^/]+$/,
];

/** Whether a request may go through without a token. */
export function isPublic(method: string, path: string): boolean {
  const key = `${method === 'HEAD' ? 'GET' : method} ${path}`;
  return PUBLIC_ROUTES.some((route) =>
    typeof route === 'string' ? route === key : route.test(key),
  );
}

/**
 * Bearer-token authentication for every /api route but the public ones: no token, an
 * unknown one or a revoked one is 401. Tokens are compared by hash in the database and
 * never logged. A client address with too many failed attempts is answered 429 with
 * Retry-After (see {@link FailedAuthLimiter}) before its token is even looked at. Only a
 * token presented and refused (an Authorization header that is malformed, unknown or
 * revoked) is a failed attempt: any page on any origin can make a browser send requests
 * without one, and those must not lock out the people behind the same address, while
 * sending an Authorization header across origins needs a CORS permission nobody gets.
 */
export function authentication(limiter: FailedAuthLimiter) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (isPublic(c.req.method, c.req.path)) return next();
    const client = clientAddress(c.env);
    const wait = limiter.retryAfter(client);
    if (wait > 0)
      throw new ApiError(
        'too_many_requests',
        `too many failed authentication attempts from this address; try again in ${wait} s`,
        undefined,
        { 'retry-after': String(wait) },
      );
    const header = c.req.header('authorization');
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    try {
      if (header !== undefined && !match)
        throw new ApiError('unauthorized', 'the Authorization header must be "Bearer <token>"');
      c.set('user', await authenticate(c.var.db, match?.[1]));
    } catch (error) {
      if (
        header !== undefined &&
        ((error instanceof ApiError && error.code === 'unauthorized') ||
          (error instanceof PlatformError && error.code === 'unauthorized'))
      )
        limiter.fail(client);
      throw error;
    }
    return next();
  });
}

/** The peer address of a request served by @hono/node-server; one shared key otherwise. */
function clientAddress(env: unknown): string {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}

/** Lets only admins through (routes that create, import or delete); others get 403. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get('user')?.role !== 'admin')
    throw new ApiError('forbidden', 'this action needs an admin API token');
  return next();
});
