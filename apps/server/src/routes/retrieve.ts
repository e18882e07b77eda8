import {
  getRetrieveJob,
  RETRIEVAL_METHODS,
  retrieveStoredRun,
  startRetrieveJob,
  type RetrieveJob,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../errors.js';
import { collectionFromPath } from '../resolve.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  anyUser,
  CollectionParam,
  readErrors,
  TopicId,
  writeErrors,
} from '../schemas.js';

const count = (description: string) =>
  z.number().int().min(1).max(100_000).optional().openapi({ description });
const weight = (description: string) =>
  z.number().finite().min(-100).max(100).optional().openapi({ description });

const RetrieveBody = z
  .object({
    method: z.enum(RETRIEVAL_METHODS).openapi({ example: 'bm25' }),
    tag: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .regex(/^\S+$/, 'a tag has no spaces')
      .openapi({ description: 'name and tag of the stored run', example: 'bm25' }),
    params: z
      .object({
        k: count('documents per topic (default 1000)'),
        k1: z
          .number()
          .finite()
          .min(0)
          .max(100)
          .optional()
          .openapi({ description: 'BM25 k1 (0.9)' }),
        b: z.number().min(0).max(1).optional().openapi({ description: 'BM25 b (0.4)' }),
        fbDocs: count('feedback documents (rm3, rocchio) or documents used as queries (qbd)'),
        fbTerms: count('expansion terms, or terms per document for qbd'),
        fbWeight: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .openapi({ description: 'rm3: original query weight (0.5)' }),
        alpha: weight('Rocchio α'),
        beta: weight('Rocchio β'),
        gamma: weight('Rocchio γ'),
        fbDepth: count('rocchio-weighted: documents re-ranked by cosine (50)'),
        positives: count('rocchio-weighted: positives among them (5)'),
      })
      .strict()
      .optional(),
    topics: z
      .array(TopicId)
      .min(1)
      .max(100_000)
      .optional()
      .openapi({ description: 'only these stored topics (default: all)' }),
    replace: z.boolean().optional().openapi({ description: 'replace a run of the same name' }),
    background: z.boolean().optional().openapi({
      description: 'answer 202 with a job at once and retrieve in the background (poll the job)',
    }),
  })
  .strict()
  .openapi('RetrieveRequest');

const StoredRetrieval = z
  .object({
    runId: z.number().int(),
    name: z.string(),
    entries: z.number().int(),
    topics: z.number().int(),
    replaced: z.boolean(),
    parameters: z.record(z.string(), z.union([z.string(), z.number()])),
  })
  .openapi('StoredRetrieval');

const RetrieveJobSchema = z
  .object({
    id: z.number().int(),
    collectionId: z.number().int(),
    method: z.string(),
    tag: z.string(),
    status: z.enum(['running', 'done', 'failed']),
    progress: z.object({
      phase: z.enum(['indexing', 'retrieving', 'storing']),
      done: z.number().int(),
      total: z.number().int(),
    }),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    result: StoredRetrieval.nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .openapi('RetrieveJob');

function presentJob(job: RetrieveJob) {
  return {
    ...job,
    startedAt: job.startedAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

/** `/api/collections/{collection}/runs/retrieve`: runs made by assay's retrieval methods. */
export const retrieve = createRouter()
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['runs'],
      summary: 'Retrieve with BM25, RM3, Rocchio or query-by-document and store the run',
      ...adminOnly,
      description:
        'Admin only. Indexes the collection on first use (kept in memory), retrieves for its ' +
        'stored topics and stores the result as a run whose description records every ' +
        'parameter. With background=true, answers 202 with a job to poll.',
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: RetrieveBody } } },
      },
      responses: {
        201: {
          description: 'the stored run',
          content: { 'application/json': { schema: StoredRetrieval } },
        },
        202: {
          description: 'the background job',
          content: { 'application/json': { schema: RetrieveJobSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const body = c.req.valid('json');
      const input = {
        collection: collection.id,
        method: body.method,
        tag: body.tag,
        ...(body.params ? { params: body.params } : {}),
        ...(body.topics ? { topics: body.topics } : {}),
        ...(body.replace ? { replace: true } : {}),
      };
      if (body.background) return c.json(presentJob(await startRetrieveJob(c.var.db, input)), 202);
      return c.json(await retrieveStoredRun(c.var.db, input), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{job}',
      tags: ['runs'],
      summary: 'A background retrieval: progress, then the stored run or the error',
      ...anyUser,
      request: {
        params: CollectionParam.extend({
          job: z
            .string()
            .regex(/^\d{1,15}$/)
            .openapi({ param: { name: 'job', in: 'path' } }),
        }),
      },
      responses: {
        200: {
          description: 'the job',
          content: { 'application/json': { schema: RetrieveJobSchema } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const params = c.req.valid('param');
      const collection = await collectionFromPath(c.var.db, params.collection);
      const job = getRetrieveJob(collection.id, Number(params.job));
      if (!job)
        throw new ApiError(
          'not_found',
          `no retrieval job ${params.job} in collection "${collection.name}"`,
        );
      return c.json(presentJob(job), 200);
    },
  );
