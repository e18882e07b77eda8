import { buildCollectionDiskIndex } from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../errors.js';
import { collectionFromPath } from '../resolve.js';
import { createRouter } from '../router.js';
import { adminOnly, CollectionParam, writeErrors } from '../schemas.js';

const BuildOptions = z.object({
  memoryMib: z.coerce
    .number()
    .int()
    .min(1)
    .max(1 << 20)
    .optional()
    .openapi({ description: 'MiB of postings buffered before a sorted run is spilled (1024)' }),
});

const CollectionIndexSchema = z
  .object({
    collection: z.string(),
    file: z.string().openapi({ description: 'the index file, under the data directory' }),
    documents: z.number().int(),
    terms: z.number().int(),
    postings: z.number().int(),
    bytes: z.number().int(),
    runs: z.number().int().openapi({ description: 'sorted runs spilled and merged' }),
    fingerprint: z.string(),
    replaced: z.boolean().openapi({ description: 'an index built before was replaced' }),
  })
  .openapi('CollectionIndex');

/** `/api/collections/{collection}/index`: the collection's on-disk BM25 index. */
export const collectionIndex = createRouter().openapi(
  createRoute({
    method: 'post',
    path: '/',
    tags: ['collections'],
    summary: "Build the collection's on-disk BM25 index, which its retrievals then search",
    description:
      'Admin only. Streams the documents into an on-disk BM25 index under the data directory ' +
      '(replacing one built before). Retrievals of the collection then search it instead of ' +
      'an index built in memory: bm25, and the methods with models, for their first stage ' +
      'and the queries they generate (not those that read term vectors: grill, llmforum ' +
      'without embeddings). An index that no longer matches the documents is refused (409).',
    security: adminOnly.security,
    middleware: adminOnly.middleware,
    request: { params: CollectionParam, query: BuildOptions },
    responses: {
      201: {
        description: 'the index built',
        content: { 'application/json': { schema: CollectionIndexSchema } },
      },
      ...writeErrors,
    },
  }),
  async (c) => {
    const config = c.var.config;
    if (!config)
      throw new ApiError('invalid_input', 'this server has no data directory configured');
    const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
    const { memoryMib } = c.req.valid('query');
    const built = await buildCollectionDiskIndex(c.var.db, config.dataDir, {
      collection: collection.id,
      ...(memoryMib === undefined ? {} : { memoryBudget: memoryMib * 2 ** 20 }),
    });
    return c.json(built, 201);
  },
);
