import type { PageSize } from '@assay/platform';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';

/**
 * The query fields of a paged list: `limit` (1 to the list's maximum, its default when
 * absent) and `after` (the previous page's cursor, opaque text).
 */
export function pageQuery(size: PageSize) {
  return {
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(size.max)
      .default(size.default)
      .openapi({ description: `items per page (at most ${size.max})`, example: size.default }),
    after: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .openapi({ description: 'the previous page’s `X-Next-Cursor` (opaque)' }),
  };
}

/**
 * The 200 response of a paged list: a JSON array of `schema`, the cursor of the next page
 * in `X-Next-Cursor` and its URL in `Link` (both absent on the last page).
 */
export function pageResponse<T extends z.ZodTypeAny>(description: string, schema: T) {
  return {
    description:
      `${description}; when more follow, \`X-Next-Cursor\` holds the \`after\` of the next ` +
      'page and `Link` its URL (rel="next")',
    headers: z.object({ 'X-Next-Cursor': z.string().optional(), Link: z.string().optional() }),
    content: { 'application/json': { schema: z.array(schema) } },
  };
}

/** The paging options of a validated query, without `after` when it was not given. */
export function pageOptions(query: { limit: number; after?: string | undefined }) {
  return query.after === undefined
    ? { limit: query.limit }
    : { limit: query.limit, after: query.after };
}

/** Sets `X-Next-Cursor` and `Link: <…>; rel="next"` when a next page exists. */
export function linkNextPage(c: Context, next: string | null): void {
  if (next === null) return;
  const url = new URL(c.req.url);
  url.searchParams.set('after', next);
  c.header('x-next-cursor', next);
  c.header('link', `<${url.pathname}${url.search}>; rel="next"`);
}
