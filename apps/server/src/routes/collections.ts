import {
  deleteCollection,
  importCollection,
  listCollections,
  getCollectionSummary,
  type CollectionSummary,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../router.js';
import {
  adminOnly,
  anyUser,
  CollectionParam,
  CollectionSchema,
  readErrors,
  uploadBody,
  writeErrors,
} from '../schemas.js';
import { readUpload } from '../upload.js';

const CreateOptions = z.object({
  name: z.string().trim().min(1).max(200),
  format: z.enum(['jsonl', 'tsv', 'cranfield']).default('jsonl'),
  description: z.string().max(10_000).optional(),
});

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
      summary: 'All collections, with document and topic counts',
      ...anyUser,
      responses: {
        200: {
          description: 'the collections, by name',
          content: { 'application/json': { schema: z.array(CollectionSchema) } },
        },
        ...readErrors,
      },
    }),
    async (c) => c.json((await listCollections(c.var.db)).map(present), 200),
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
          format: { description: 'jsonl (default), tsv or cranfield' },
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
      ...anyUser,
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
      summary: 'Delete a collection with its documents, topics, runs and label sets',
      ...adminOnly,
      request: { params: CollectionParam },
      responses: { 204: { description: 'deleted' }, ...writeErrors },
    }),
    async (c) => {
      await deleteCollection(c.var.db, c.req.valid('param').collection);
      return c.body(null, 204);
    },
  );
