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
  NameOrId,
  readErrors,
  TopicId,
  writeErrors,
} from '../core/schemas.js';

/** How to pool stored runs (the body of POST …/pools and the `pool` of a judge job). */
export const PoolSpecSchema = z
  .object({
    runs: z
      .array(NameOrId)
      .min(1)
      .max(1000)
      .openapi({ description: 'stored runs of the collection', example: ['bm25', 'splade'] }),
    depth: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .openapi({ description: 'each run’s top k documents per topic', example: 10 }),
    topics: z
      .array(TopicId)
      .min(1)
      .max(100_000)
      .optional()
      .openapi({ description: 'only these topics, in this order (default: all, byte order)' }),
    order: z.enum(['best-rank', 'rrf', 'move-to-front', 'docno']).optional().openapi({
      description: 'judging order within a topic (default best-rank)',
    }),
    perTopicCap: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: 'keep at most this many documents per topic' }),
    excludeLabelSets: z.array(NameOrId).max(100).optional().openapi({
      description: 'leave out pairs these label sets already grade (≥ 0)',
    }),
  })
  .openapi('PoolSpec');

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

/** The platform's pool spec from a validated body (optional fields only when given). */
export function poolSpec(body: z.infer<typeof PoolSpecSchema>) {
  return {
    runs: body.runs,
    depth: body.depth,
    ...(body.topics === undefined ? {} : { topics: body.topics }),
    ...(body.order === undefined ? {} : { order: body.order }),
    ...(body.perTopicCap === undefined ? {} : { perTopicCap: body.perTopicCap }),
    ...(body.excludeLabelSets === undefined ? {} : { excludeLabelSets: body.excludeLabelSets }),
  };
}
