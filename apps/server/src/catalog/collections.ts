import {
  DOCUMENT_FORMATS,
  deleteCollection,
  importCollection,
  listCollectionsPage,
  SMALL_PAGE,
  getCollectionSummary,
  type CollectionSummary,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  CollectionParam,
  CollectionSchema,
  QueryFlag,
  readErrors,
  uploadBody,
  writeErrors,
} from '../core/schemas.js';
import { readUpload } from '../core/upload.js';

const CreateOptions = z.object({
  name: z.string().trim().min(1).max(200),
  format: z.enum(DOCUMENT_FORMATS).optional(),
  description: z.string().max(10_000).optional(),
});

const DeleteOptions = z.object({
  force: QueryFlag.openapi({
    type: 'boolean',
    description: 'also unpublish the leaderboards of its reports (otherwise 409)',
  }),
});

const DeletedCollectionSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    runs: z.number().int(),
    labelSets: z.number().int(),
    reports: z.number().int(),
    leaderboards: z.array(z.string()).openapi({ description: 'slugs unpublished' }),
  })
  .openapi('DeletedCollection');

/** A collection as the API shows it. */
function present(c: CollectionSummary) {
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    documentCount: c.documentCount,
    topicCount: c.topicCount,
    createdAt: c.createdAt.toISOString(),
  };
}

/** `/api/collections`: test collections (documents and topics live under each). */
export const collections = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['collections'],
      summary: 'All collections, with document and topic counts (cursor paging)',
      ...adminOnly,
      request: { query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of collections, by name (then id)', CollectionSchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listCollectionsPage(c.var.db, pageOptions(c.req.valid('query')));
      linkNextPage(c, page.next);
      return c.json(page.items.map(present), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['collections'],
      summary: 'Create a collection from a document file (JSONL, TSV or Cranfield)',
      ...adminOnly,
      request: {
        query: CreateOptions.partial(),
        body: uploadBody({
          name: { description: 'the new collection’s name (required)' },
          format: {
            description:
              'jsonl, tsv or cranfield (default: from the file name, .jsonl, .tsv or cran.all*, else its first line)',
          },
          description: { description: 'a description' },
        }),
      },
      responses: {
        201: {
          description: 'the new collection',
          content: { 'application/json': { schema: CollectionSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const upload = await readUpload(c, CreateOptions, 'documents');
      const created = await importCollection(c.var.db, {
        name: upload.options.name,
        format: upload.options.format,
        text: upload.text,
        file: upload.file,
        ...(upload.options.description === undefined
          ? {}
          : { description: upload.options.description }),
      });
      return c.json(present(await getCollectionSummary(c.var.db, created.collectionId)), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{collection}',
      tags: ['collections'],
      summary: 'One collection, by id or name',
      ...adminOnly,
      request: { params: CollectionParam },
      responses: {
        200: {
          description: 'the collection',
          content: { 'application/json': { schema: CollectionSchema } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const collection = await getCollectionSummary(c.var.db, c.req.valid('param').collection);
      return c.json(present(collection), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{collection}',
      tags: ['collections'],
      summary: 'Delete a collection with everything in it; says what went',
      description:
        'Admin only. Documents, topics, runs, label sets, jobs, campaigns and reports go ' +
        'with the collection. While a report is published as a leaderboard the delete is ' +
        'refused (409 naming the slugs) unless `?force=true`, which unpublishes them too.',
      ...adminOnly,
      request: { params: CollectionParam, query: DeleteOptions },
      responses: {
        200: {
          description: 'what was deleted',
          content: { 'application/json': { schema: DeletedCollectionSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const deleted = await deleteCollection(c.var.db, c.req.valid('param').collection, {
        force: c.req.valid('query').force,
      });
      return c.json(deleted, 200);
    },
  );
