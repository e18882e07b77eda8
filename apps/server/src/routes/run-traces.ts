import { RUN_TRACE_PAGE, runTrace } from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../router.js';
import { anyUser, readErrors, RunParams } from '../schemas.js';

const TraceEntry = z
  .object({
    topic: z.string(),
    method: z.string(),
    step: z.string(),
    text: z.string(),
    prompt: z.string().optional(),
    cached: z.boolean().optional(),
  })
  .catchall(z.unknown())
  .openapi('TraceEntry');

/** `/api/collections/{collection}/runs/{run}/trace`: what the LLM did for a run. */
export const runTraces = createRouter().openapi(
  createRoute({
    method: 'get',
    path: '/',
    tags: ['runs'],
    summary: 'The generated texts of a run made with models, in order (cursor paging)',
    description:
      'Every text a method generated for the run (rewrites, sub-questions, pseudo-answers, ' +
      'generated queries, gaps, routes, summaries, answers) and the queries it built, in ' +
      'the order produced, topic by topic. Runs made without models have an empty trace.',
    ...anyUser,
    request: {
      params: RunParams,
      query: z.object({
        topic: z.string().min(1).max(512).optional().openapi({ description: 'only this topic' }),
        limit: z.coerce
          .number()
          .int()
          .min(1)
          .max(RUN_TRACE_PAGE.max)
          .default(RUN_TRACE_PAGE.default)
          .openapi({ description: 'entries per page' }),
        after: z
          .string()
          .min(1)
          .max(20)
          .optional()
          .openapi({ description: 'the previous page’s `X-Next-Cursor`' }),
      }),
    },
    responses: {
      200: {
        description:
          'a page of trace entries; when more follow, `X-Next-Cursor` holds the `after` of ' +
          'the next page and `Link` its URL',
        headers: z.object({ 'X-Next-Cursor': z.string().optional(), Link: z.string().optional() }),
        content: { 'application/json': { schema: z.array(TraceEntry) } },
      },
      ...readErrors,
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { topic, limit, after } = c.req.valid('query');
    const page = await runTrace(c.var.db, params.collection, params.run, {
      limit,
      ...(topic === undefined ? {} : { topic }),
      ...(after === undefined ? {} : { after }),
    });
    if (page.next !== null) {
      const url = new URL(c.req.url);
      url.searchParams.set('after', page.next);
      c.header('x-next-cursor', page.next);
      c.header('link', `<${url.pathname}${url.search}>; rel="next"`);
    }
    return c.json(page.entries as z.infer<typeof TraceEntry>[], 200);
  },
);
