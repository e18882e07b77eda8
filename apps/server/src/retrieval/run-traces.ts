import { RUN_TRACE_PAGE, runTrace } from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import { adminOnly, readErrors, RunParams } from '../core/schemas.js';

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
    ...adminOnly,
    request: {
      params: RunParams,
      query: z.object({
        topic: z.string().min(1).max(512).optional().openapi({ description: 'only this topic' }),
        ...pageQuery(RUN_TRACE_PAGE),
      }),
    },
    responses: {
      200: pageResponse('a page of trace entries', TraceEntry),
      ...readErrors,
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const query = c.req.valid('query');
    const page = await runTrace(c.var.db, params.collection, params.run, {
      ...pageOptions(query),
      ...(query.topic === undefined ? {} : { topic: query.topic }),
    });
    linkNextPage(c, page.next);
    return c.json(page.items as z.infer<typeof TraceEntry>[], 200);
  },
);
