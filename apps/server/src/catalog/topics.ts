import {
  getTopic,
  importTopics,
  listTopicsPage,
  LARGE_PAGE,
  TOPIC_FORMATS,
  type Topic,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { collectionFromPath } from '../core/resolve.js';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  CollectionParam,
  readErrors,
  TopicSchema,
  uploadBody,
  writeErrors,
} from '../core/schemas.js';
import { readUpload } from '../core/upload.js';

const ImportOptions = z.object({
  format: z.enum(TOPIC_FORMATS).optional().openapi({
    description: 'tsv, jsonl, trec or cranfield (cran.qry; default: detected from the content)',
  }),
});

function present(t: Topic) {
  return {
    topicId: t.topicId,
    query: t.query,
    description: t.description,
    narrative: t.narrative,
    context: t.context as Record<string, unknown> | null,
  };
}

/** `/api/collections/{collection}/topics`: a collection's topics (queries). */
export const topics = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['topics'],
      summary: 'The topics of a collection, in qid byte order (cursor paging)',
      ...adminOnly,
      request: { params: CollectionParam, query: z.object(pageQuery(LARGE_PAGE)) },
      responses: {
        200: pageResponse('a page of topics, in qid byte order', TopicSchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listTopicsPage(
        c.var.db,
        c.req.valid('param').collection,
        pageOptions(c.req.valid('query')),
      );
      linkNextPage(c, page.next);
      return c.json(page.items.map(present), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['topics'],
      summary: 'Add topics from a TSV, JSONL or TREC topic file',
      ...adminOnly,
      request: {
        params: CollectionParam,
        query: ImportOptions,
        body: uploadBody({ format: { description: 'tsv, jsonl, trec or cranfield' } }),
      },
      responses: {
        201: {
          description: 'how many topics were added',
          content: {
            'application/json': { schema: z.object({ topics: z.number().int() }) },
          },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const upload = await readUpload(c, ImportOptions, 'topics');
      const result = await importTopics(c.var.db, {
        collection: collection.id,
        text: upload.text,
        file: upload.file,
        ...(upload.options.format === undefined ? {} : { format: upload.options.format }),
      });
      return c.json({ topics: result.topics }, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{topicId}',
      tags: ['topics'],
      summary: 'One topic by qid',
      ...adminOnly,
      request: {
        params: CollectionParam.extend({
          topicId: z
            .string()
            .min(1)
            .openapi({ param: { name: 'topicId', in: 'path' } }),
        }),
      },
      responses: {
        200: { description: 'the topic', content: { 'application/json': { schema: TopicSchema } } },
        ...readErrors,
      },
    }),
    async (c) => {
      const params = c.req.valid('param');
      return c.json(present(await getTopic(c.var.db, params.collection, params.topicId)), 200);
    },
  );
