import { isBlindAnnotator } from '@assay/platform';
import { createMiddleware } from 'hono/factory';
import { ApiError } from './errors.js';
import type { AppEnv } from './router.js';

/** What an annotator of a blind campaign may call: who they are, their own items and tokens. */
const ANNOTATOR_ROUTES: readonly RegExp[] = [
  /^GET \/api\/me$/,
  /^GET \/api\/campaigns$/,
  /^GET \/api\/campaigns\/\d+\/next$/,
  /^GET \/api\/campaigns\/\d+\/items\/\d+$/,
  /^POST \/api\/campaigns\/\d+\/labels$/,
  /^POST \/api\/campaigns\/\d+\/labels\/\d+\/undo$/,
  /^POST \/api\/campaigns\/\d+\/skip$/,
  // Assessing RAG answers by hand (a blind set never shows the LLM's labels).
  /^GET \/api\/assessment-sets\/\d+\/answers?$/,
  /^POST \/api\/assessment-sets\/\d+\/(labels|undo)$/,
  // Their own tokens (the use-case refuses anyone else's).
  /^GET \/api\/users\/[^/]+\/tokens$/,
  /^DELETE \/api\/users\/[^/]+\/tokens\/\d+$/,
  /^POST \/api\/users\/[^/]+\/tokens\/\d+\/rotate$/,
];

/**
 * Annotators who label in a blind campaign reach only the annotation API, so no other
 * route (label sets, reports, judge jobs …) can show them another label set's grades.
 */
export const annotatorScope = createMiddleware<AppEnv>(async (c, next) => {
  const user = c.get('user');
  if (!user || user.role !== 'annotator') return next();
  const key = `${c.req.method === 'HEAD' ? 'GET' : c.req.method} ${c.req.path.replace(/\/$/, '')}`;
  if (ANNOTATOR_ROUTES.some((r) => r.test(key))) return next();
  if (await isBlindAnnotator(c.var.db, user))
    throw new ApiError(
      'forbidden',
      'annotators of a blind campaign can only reach their own items',
    );
  return next();
});
