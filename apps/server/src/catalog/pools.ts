import { buildCollectionPool, LARGE_PAGE } from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { linkNextPage, pageOptions, pageQuery } from '../core/paging.js';
import { collectionFromPath } from '../core/resolve.js';
import { createRouter } from '../router.js';
import {
  adminComputation,
  CollectionParam,
  ErrorSchema,
  busyError,
  LeftOutSchema,
  readErrors,
  writeErrors,
} from '../core/schemas.js';
import { poolSpec, PoolSpecSchema } from './schemas.js';

const PoolSchema = z
  .object({
    collection: z.string(),
    parameters: z.object({
      depth: z.number().int(),
      order: z.string(),
      rrfK: z.number(),
      perTopicCap: z.number().int().nullable(),
      runs: z.array(z.string()),
      excludeLabelSets: z.array(z.string()),
    }),
    topics: z.array(z.string()),
    items: z
      .array(
        z.object({
          topicId: z.string(),
          docId: z.string(),
          bestRank: z.number().int(),
          runs: z.array(z.object({ run: z.string(), rank: z.number().int() })),
          rrfScore: z.number(),
        }),
      )
      .openapi({ description: 'pooled items in judging priority order (topics interleaved)' }),
    stats: z.object({
      total: z.number().int(),
      perTopic: z.array(z.object({ topicId: z.string(), items: z.number().int() })),
      perRun: z.array(
        z.object({
          run: z.string(),
          retrieved: z.number().int(),
          contributed: z.number().int(),
          unique: z.number().int(),
        }),
      ),
    }),
    leftOut: LeftOutSchema.openapi({
      description: 'pairs of the runs left out: their topic or document is not in the collection',
    }),
  })
  .openapi('Pool');

/** `/api/collections/{collection}/pools`: depth-k pools of stored runs (computed, not stored). */
export const pools = createRouter().openapi(
  createRoute({
    method: 'post',
    path: '/',
    tags: ['judging'],
    summary:
      'Compute the depth-k pool of stored runs, with its size per topic and run contributions',
    ...adminComputation,
    description:
      'Stores nothing. Admin only (it is how judge jobs and campaigns are planned). The ' +
      'items come in pages in judging priority order (`limit`, default 1000, at most 10000; ' +
      'the next page is the same body posted with `after` = `X-Next-Cursor`); `stats` ' +
      'describe the whole pool. A pool looks at most 1,000,000 candidates (topics × depth × ' +
      'runs) over at most 100,000 topics (422 naming the figures beyond).',
    request: {
      params: CollectionParam,
      query: z.object(pageQuery(LARGE_PAGE)),
      body: { required: true, content: { 'application/json': { schema: PoolSpecSchema } } },
    },
    responses: {
      200: {
        description:
          'a page of the pool in judging priority order, and the whole pool’s statistics; ' +
          'when more items follow, `X-Next-Cursor` holds the `after` of the next page',
        headers: z.object({ 'X-Next-Cursor': z.string().optional(), Link: z.string().optional() }),
        content: { 'application/json': { schema: PoolSchema } },
      },
      ...readErrors,
      403: writeErrors[403],
      ...busyError,
      422: {
        description: 'a run cannot be pooled, or the pool is over a cap',
        content: { 'application/json': { schema: ErrorSchema } },
      },
    },
  }),
  async (c) => {
    const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
    const body = c.req.valid('json');
    const { next, ...pool } = await buildCollectionPool(
      c.var.db,
      { collection: collection.id, ...poolSpec(body) },
      pageOptions(c.req.valid('query')),
    );
    linkNextPage(c, next);
    return c.json(pool, 200);
  },
);
