import { authenticate } from '@assay/platform';
import { createMiddleware } from 'hono/factory';
import { ApiError } from './errors.js';
import type { AppEnv } from './router.js';

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
 * never logged.
 */
export const authentication = createMiddleware<AppEnv>(async (c, next) => {
  if (isPublic(c.req.method, c.req.path)) return next();
  const header = c.req.header('authorization');
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (header !== undefined && !match)
    throw new ApiError('unauthorized', 'the Authorization header must be "Bearer <token>"');
  c.set('user', await authenticate(c.var.db, match?.[1]));
  return next();
});

/** Lets only admins through (routes that create, import or delete); others get 403. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get('user')?.role !== 'admin')
    throw new ApiError('forbidden', 'this action needs an admin API token');
  return next();
});
