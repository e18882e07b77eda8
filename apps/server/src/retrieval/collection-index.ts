import {
  getCollectionDiskIndexState,
  startCollectionDiskIndexBuild,
  type CollectionDiskIndexState,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../core/errors.js';
import { collectionFromPath } from '../core/resolve.js';
import { createRouter } from '../router.js';
import { adminOnly, CollectionParam, readErrors, writeErrors } from '../core/schemas.js';

const BuildOptions = z.object({
  memoryMib: z.coerce
    .number()
    .int()
    .min(1)
    .max(1 << 20)
    .optional()
    .openapi({ description: 'MiB of postings buffered before a sorted run is spilled (1024)' }),
});

const CollectionIndexStateSchema = z
  .discriminatedUnion('state', [
    z.object({ state: z.literal('absent'), collection: z.string() }),
    z.object({
      state: z.literal('building'),
      collection: z.string(),
      documentsRead: z.number().int(),
      startedAt: z.string(),
    }),
    z.object({
      state: z.literal('ready'),
      collection: z.string(),
      file: z.string().openapi({ description: 'the index file, under the data directory' }),
      bytes: z.number().int(),
      documents: z.number().int(),
      terms: z.number().int(),
      fingerprint: z.string(),
      builtAt: z.string(),
      fresh: z.boolean().openapi({
        description: 'built from the documents the collection holds (false: rebuild it)',
      }),
    }),
    z.object({
      state: z.literal('failed'),
      collection: z.string(),
      reason: z.string(),
      startedAt: z.string(),
      failedAt: z.string(),
    }),
  ])
  .openapi('CollectionIndexState');

function presentState(state: CollectionDiskIndexState) {
  switch (state.state) {
    case 'absent':
      return state;
    case 'building':
      return { ...state, startedAt: state.startedAt.toISOString() };
    case 'ready':
      return { ...state, builtAt: state.builtAt.toISOString() };
    case 'failed':
      return {
        ...state,
        startedAt: state.startedAt.toISOString(),
        failedAt: state.failedAt.toISOString(),
      };
  }
}

/** `/api/collections/{collection}/index`: the collection's on-disk BM25 index. */
export const collectionIndex = createRouter()
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['collections'],
      summary: "Build the collection's on-disk BM25 index in the background",
      description:
        'Admin only. Answers 202 at once and streams the documents into an on-disk BM25 ' +
        'index under the data directory (replacing one built before once it is complete); ' +
        'poll GET …/index for its state. One build per collection at a time (409 naming the ' +
        'running one). Retrievals of the collection then search it instead of an index built ' +
        'in memory: bm25, and the methods with models, for their first stage and the queries ' +
        'they generate (not those that read term vectors: grill, llmforum without ' +
        'embeddings). An index that no longer matches the documents is refused (409).',
      ...adminOnly,
      request: { params: CollectionParam, query: BuildOptions },
      responses: {
        202: {
          description: 'the build started',
          content: { 'application/json': { schema: CollectionIndexStateSchema } },
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
      const started = await startCollectionDiskIndexBuild(c.var.db, config.dataDir, {
        collection: collection.id,
        ...(memoryMib === undefined ? {} : { memoryBudget: memoryMib * 2 ** 20 }),
      });
      return c.json(presentState(started), 202);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['collections'],
      summary: "The state of the collection's on-disk index: absent, building, ready or failed",
      description:
        'building: documents read so far; ready: from the file header, with fresh telling ' +
        'whether it was built from the documents the collection holds (one row read, no ' +
        'pass over the documents); failed: the last build of this server process failed.',
      ...adminOnly,
      request: { params: CollectionParam },
      responses: {
        200: {
          description: 'the index state',
          content: { 'application/json': { schema: CollectionIndexStateSchema } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      // Without a data directory, no index is searched: retrievals index in memory.
      if (!c.var.config)
        return c.json({ state: 'absent' as const, collection: collection.name }, 200);
      const state = await getCollectionDiskIndexState(
        c.var.db,
        c.var.config.dataDir,
        collection.id,
      );
      return c.json(presentState(state), 200);
    },
  );
