import { createMiddleware } from 'hono/factory';
import { ApiError } from '../core/errors.js';
import type { AppEnv } from '../router.js';

/**
 * What an annotator may call: who they are, the campaigns they have items in (their next
 * item, their own items, history, notes, labels, undo and skip; each use-case refuses items
 * that are not theirs), labelling RAG answers by hand, and their own tokens. Nothing else: no label
 * set, report, run or judge job, so no route shows them another label set's grades.
 */
const ANNOTATOR_ROUTES: readonly RegExp[] = [
  /^GET \/api\/me$/,
  /^GET \/api\/campaigns$/,
  /^GET \/api\/campaigns\/\d+\/next(-items)?$/,
  /^GET \/api\/campaigns\/\d+\/items\/\d+$/,
  // Their history of labelled items, and their notes and flags on their items.
  /^GET \/api\/campaigns\/\d+\/history$/,
  /^(GET|PUT) \/api\/campaigns\/\d+\/items\/\d+\/note$/,
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

/** Whether an annotator may call this method and path (the one rule of what they reach). */
function annotatorMayCall(method: string, path: string): boolean {
  const key = `${method === 'HEAD' ? 'GET' : method} ${path.replace(/\/$/, '')}`;
  return ANNOTATOR_ROUTES.some((r) => r.test(key));
}

/**
 * Annotators reach only what their campaigns need; admins everything. Any other route
 * answers an annotator 403 before it reads anything.
 */
export const annotatorScope = createMiddleware<AppEnv>(async (c, next) => {
  const user = c.get('user');
  if (!user || user.role !== 'annotator') return next();
  if (annotatorMayCall(c.req.method, c.req.path)) return next();
  throw new ApiError(
    'forbidden',
    'annotators reach only their own campaign items, labels and tokens; this needs an admin API token',
  );
});
