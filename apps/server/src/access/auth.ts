import { authenticate, PlatformError } from '@assay/platform';
import type { FailedAuthLimiter } from './auth-rate-limit.js';
import type { RouteAccess } from './route-access.js';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../core/errors.js';
import type { AppEnv } from '../router.js';

/**
 * Bearer-token authentication for every /api route but those declared public: no token, an
 * unknown one or a revoked one is 401. Tokens are compared by hash in the database and
 * never logged. A client address with too many failed attempts is answered 429 with
 * Retry-After (see {@link FailedAuthLimiter}) before its token is even looked at. Only a
 * token presented and refused (an Authorization header that is malformed, unknown or
 * revoked) is a failed attempt: any page on any origin can make a browser send requests
 * without one, and those must not lock out the people behind the same address, while
 * sending an Authorization header across origins needs a CORS permission nobody gets.
 */
export function authentication(limiter: FailedAuthLimiter, routes: RouteAccess) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (routes.of(c.req.method, c.req.path) === 'public') return next();
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
