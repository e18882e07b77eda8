import {
  getRetrieveJob,
  isModelMethod,
  methodSettingsSchema,
  MODEL_METHODS,
  MODEL_REQUEST_FIELDS,
  RETRIEVAL_METHODS,
  retrieveStoredModelRun,
  retrieveStoredRun,
  SAMPLING,
  startModelRetrieveJob,
  startRetrieveJob,
  type RetrieveJob,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../core/errors.js';
import { collectionFromPath } from '../core/resolve.js';
import { createRouter } from '../router.js';
import { adminOnly, CollectionParam, readErrors, TopicId, writeErrors } from '../core/schemas.js';

const count = (description: string) =>
  z.number().int().min(1).max(100_000).optional().openapi({ description });
const weight = (description: string) =>
  z.number().finite().min(-100).max(100).optional().openapi({ description });

const ModelName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine(
    (name) => ![...name].some((ch) => ch.charCodeAt(0) < 0x20),
    'a model name has no control characters',
  );

// The settings of the methods that call models: made from each method's one settings
// schema (see docs/methods.md); which of them a method takes is checked by the platform.
const MethodSettings = methodSettingsSchema().openapi('MethodSettings');

const Sampling = {
  temperature: SAMPLING.temperature.optional(),
  topP: SAMPLING.topP.optional(),
};

const StepSettings = z
  .object({ model: ModelName.optional(), ...Sampling })
  .strict()
  .openapi('StepSettings');

const Prefix = z
  .string()
  .max(100)
  .refine(
    (p) => ![...p].some((ch) => ch.charCodeAt(0) < 0x20),
    'a prefix has no control characters',
  );

const RetrieveBody = z
  .object({
    method: z.enum([...RETRIEVAL_METHODS, ...MODEL_METHODS]).openapi({
      example: 'bm25',
      description: 'a lexical method, or a method that calls models (needs a configured endpoint)',
    }),
    model: ModelName.optional().openapi({ description: 'chat model of LLM methods' }),
    embeddingModel: ModelName.optional().openapi({
      description: 'embeddings model of dense methods and aggregations',
    }),
    rerankerModel: ModelName.optional().openapi({
      description: 'model of the cross-encoder reranker (settings.reranker: cross-encoder)',
    }),
    settings: MethodSettings.optional(),
    temperature: Sampling.temperature.openapi({
      description: "sampling temperature of every step (each prompt's own otherwise)",
    }),
    topP: Sampling.topP.openapi({
      description: 'top_p of every step (the endpoint default otherwise)',
    }),
    steps: z
      .record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/), StepSettings)
      .optional()
      .openapi({
        description:
          'model, temperature and top_p of single steps, by prompt id (gr-answer, binary-filter, rankgpt …)',
      }),
    queryPrefix: Prefix.optional().openapi({
      description: 'before every query-side text embedded ("query: " for E5 models)',
    }),
    passagePrefix: Prefix.optional().openapi({
      description: 'before every document embedded ("passage: " for E5 models)',
    }),
    budgetUsd: z
      .number()
      .positive()
      .max(1_000_000)
      .optional()
      .openapi({ description: 'send no call once this many USD were spent (priced models only)' }),
    strict: z.boolean().optional().openapi({
      description: 'store the run only when every topic has results (else 422 naming them)',
    }),
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
    topicsAsked: z.number().int().openapi({ description: 'topics retrieved for' }),
    missing: z
      .array(z.object({ topic: z.string(), reason: z.string() }))
      .openapi({ description: 'every topic without entries, with the reason' }),
  })
  .openapi('StoredRetrieval');

const ModelRetrievalExtras = z.object({
  routes: z.record(z.string(), z.number().int()).optional(),
  warnings: z.array(z.string()).optional(),
  traceEntries: z.number().int().optional(),
  responseSet: z
    .object({ id: z.number().int(), name: z.string(), answers: z.number().int() })
    .optional(),
  failures: z.array(z.object({ topic: z.string(), reason: z.string() })).optional(),
  unfinished: z.array(z.string()).optional(),
  spend: z
    .object({
      calls: z.number().int(),
      failedCalls: z.number().int(),
      tokens: z.number().int(),
      costUsd: z
        .number()
        .nullable()
        .openapi({ description: 'USD paid; null when a model has no price (unknown, not 0)' }),
    })
    .optional(),
});

const RetrieveJobSchema = z
  .object({
    id: z.number().int(),
    collectionId: z.number().int(),
    method: z.string(),
    tag: z.string(),
    status: z.enum(['running', 'done', 'failed']),
    progress: z.object({
      phase: z.enum(['indexing', 'retrieving', 'storing', 'done', 'failed']).openapi({
        description:
          'done: topics retrieved for of those asked; failed: those retrieved for before it failed',
      }),
      done: z.number().int(),
      total: z.number().int(),
    }),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    result: StoredRetrieval.extend(ModelRetrievalExtras.shape).nullable(),
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
      summary: 'Retrieve with a lexical method or a method that calls models; store the run',
      ...adminOnly,
      description:
        'Admin only. Indexes the collection on first use (kept in memory), retrieves for its ' +
        'stored topics and stores the result as a run whose description records every ' +
        'parameter. Methods that call models (query2doc, amd, dense, hybrid …) need the ' +
        "server's endpoint (OPENAI_BASE_URL / OPENAI_API_KEY); every call goes through the " +
        'call store (a rerun sends nothing), the trace of generated texts is stored with ' +
        'the run (GET …/runs/{run}/trace) and the answers of methods that answer become a ' +
        'response set of the same name. With background=true, answers 202 with a job to poll.',
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: RetrieveBody } } },
      },
      responses: {
        201: {
          description: 'the stored run',
          content: {
            'application/json': { schema: StoredRetrieval.extend(ModelRetrievalExtras.shape) },
          },
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
      if (isModelMethod(body.method)) {
        const config = c.var.config;
        if (!config)
          throw new ApiError('invalid_input', 'this server has no model endpoint configured');
        const { k, k1, b, ...lexical } = body.params ?? {};
        const stray = Object.keys(lexical)[0];
        if (stray)
          throw new ApiError(
            'invalid_input',
            `"params.${stray}" applies to the lexical methods; methods with models take their settings in "settings"`,
          );
        const params = {
          ...(k === undefined ? {} : { k }),
          ...(k1 === undefined ? {} : { k1 }),
          ...(b === undefined ? {} : { b }),
        };
        const { method, params: _params, background, ...request } = body;
        const input = {
          ...request,
          method,
          collection: collection.id,
          ...(Object.keys(params).length ? { params } : {}),
        };
        if (background)
          return c.json(presentJob(await startModelRetrieveJob(c.var.db, config, input)), 202);
        return c.json(await retrieveStoredModelRun(c.var.db, config, input), 201);
      }
      const given = [...MODEL_REQUEST_FIELDS, 'settings' as const].filter(
        (f) => body[f] !== undefined,
      );
      if (given.length)
        throw new ApiError(
          'invalid_input',
          `${body.method} calls no model: ${given.map((f) => `"${f}"`).join(', ')} ${given.length === 1 ? 'is' : 'are'} for ${MODEL_METHODS.join(', ')}`,
        );
      const input = {
        collection: collection.id,
        method: body.method,
        tag: body.tag,
        ...(body.params ? { params: body.params } : {}),
        ...(body.topics ? { topics: body.topics } : {}),
        ...(body.replace ? { replace: true } : {}),
        ...(body.strict ? { strict: true } : {}),
        // bm25 searches the collection's on-disk index when one was built there.
        ...(c.var.config ? { dataDir: c.var.config.dataDir } : {}),
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
      ...adminOnly,
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
