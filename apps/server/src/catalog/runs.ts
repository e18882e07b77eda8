import {
  deleteRun,
  importRun,
  listRunEntries,
  RUN_ENTRY_PAGE,
  listRunsPage,
  LARGE_PAGE,
  getRunSummary,
  type RunSummary,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { collectionFromPath } from '../core/resolve.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  CollectionParam,
  QueryFlag,
  readErrors,
  RunEntrySchema,
  RunParams,
  RunSchema,
  uploadBody,
  writeErrors,
} from '../core/schemas.js';
import { readUpload } from '../core/upload.js';

const ImportOptions = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'run name (default: the run tag of the file)' }),
  replace: QueryFlag.openapi({
    type: 'boolean',
    description: 'replace a run of the same name (otherwise 409)',
  }),
});

function present(r: RunSummary) {
  return {
    id: r.id,
    collectionId: r.collectionId,
    name: r.name,
    tag: r.tag,
    description: r.description,
    entryCount: r.entryCount,
    topicCount: r.topicCount,
    createdAt: r.createdAt.toISOString(),
  };
}

/** `/api/collections/{collection}/runs`: stored TREC runs of a collection. */
export const runs = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['runs'],
      summary: 'The runs of a collection, with entry and topic counts (cursor paging)',
      ...adminOnly,
      request: { params: CollectionParam, query: z.object(pageQuery(LARGE_PAGE)) },
      responses: {
        200: pageResponse('a page of runs, by name (then id)', RunSchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listRunsPage(
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
      tags: ['runs'],
      summary: 'Import a TREC run file (all or nothing)',
      ...adminOnly,
      request: {
        params: CollectionParam,
        query: ImportOptions,
        body: uploadBody({
          name: { description: 'run name (default: the run tag)' },
          replace: { description: '"true" to replace a run of the same name' },
        }),
      },
      responses: {
        201: {
          description: 'the stored run',
          content: { 'application/json': { schema: RunSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const upload = await readUpload(c, ImportOptions, 'run');
      const result = await importRun(c.var.db, {
        collection: collection.id,
        text: upload.text,
        file: upload.file,
        replace: upload.options.replace,
        ...(upload.options.name === undefined ? {} : { name: upload.options.name }),
      });
      return c.json(present(result.run), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{run}',
      tags: ['runs'],
      summary: 'One run (id or name) with its entry and topic counts',
      ...adminOnly,
      request: { params: RunParams },
      responses: {
        200: { description: 'the run', content: { 'application/json': { schema: RunSchema } } },
        ...readErrors,
      },
    }),
    async (c) => {
      const params = c.req.valid('param');
      return c.json(present(await getRunSummary(c.var.db, params.collection, params.run)), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{run}/entries',
      tags: ['runs'],
      summary: 'A page of a run’s ranked lists: by topic, in rank order (cursor paging)',
      ...adminOnly,
      request: {
        params: RunParams,
        query: z.object({
          topic: z.string().min(1).optional().openapi({ description: 'only this topic' }),
          ...pageQuery(RUN_ENTRY_PAGE),
        }),
      },
      responses: {
        200: pageResponse('a page of entries, topics in qid byte order', RunEntrySchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const params = c.req.valid('param');
      const query = c.req.valid('query');
      const page = await listRunEntries(c.var.db, params.collection, params.run, {
        ...pageOptions(query),
        ...(query.topic === undefined ? {} : { topic: query.topic }),
      });
      linkNextPage(c, page.next);
      return c.json(page.items, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{run}',
      tags: ['runs'],
      summary: 'Delete a run and its entries',
      ...adminOnly,
      request: { params: RunParams },
      responses: { 204: { description: 'deleted' }, ...writeErrors },
    }),
    async (c) => {
      const params = c.req.valid('param');
      await deleteRun(c.var.db, params.collection, params.run);
      return c.body(null, 204);
    },
  );
