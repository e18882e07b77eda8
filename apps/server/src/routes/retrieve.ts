import {
  getRetrieveJob,
  isModelMethod,
  MODEL_METHODS,
  RETRIEVAL_METHODS,
  retrieveStoredModelRun,
  retrieveStoredRun,
  startModelRetrieveJob,
  startRetrieveJob,
  type ModelMethodSettings,
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

const ModelName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine(
    (name) => ![...name].some((ch) => ch.charCodeAt(0) < 0x20),
    'a model name has no control characters',
  );

// The settings of the methods that call models (see docs/methods.md).
const MethodSettings = z
  .object({
    aggregation: z.enum(['sparse', 'dense', 'rrf']).optional().openapi({
      description: 'query2doc: sparse or dense; amd: sparse, dense or rrf',
    }),
    feedback: z.boolean().optional().openapi({ description: "amd's reflective feedback (true)" }),
    queryWeight: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .openapi({ description: "weight of the query embedding in amd's dense aggregation (0.7)" }),
    rrfK: z.number().int().min(1).max(10_000).optional().openapi({ description: 'RRF k (60)' }),
    budgetUsd: z
      .number()
      .positive()
      .max(1_000_000)
      .optional()
      .openapi({ description: 'send no call once this many USD were spent' }),
    rounds: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .openapi({ description: 'grill: retrieve → expand rounds at most (1)' }),
    minGain: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .optional()
      .openapi({ description: 'grill: stop when a round adds fewer new documents (0: off)' }),
    rerankBudget: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .openapi({ description: 'grill: fused documents kept for the final reranker (500)' }),
    decompose: z
      .boolean()
      .optional()
      .openapi({ description: 'grill: split the request into sub-questions (false)' }),
    firstStageK: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .openapi({ description: 'gr-*: BM25 documents per query before the rerank stage (1000)' }),
    rerankDepth: z.number().int().min(1).max(10_000).optional().openapi({
      description: 'documents the reranker reorders: rerank (100), each gr-* list (1000)',
    }),
    searchK: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: 'srsa, simple-search, react: documents per search (5)' }),
    maxRounds: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .openapi({ description: 'srsa: planning searches; react: steps (5)' }),
    today: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD')
      .refine((d) => new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'a real date')
      .optional()
      .openapi({ description: "the date srsa's router is told is today (the server's clock)" }),
    reranker: z.enum(['cross-encoder', 'rankgpt']).optional().openapi({
      description:
        'the reranker of rerank, gr-* and grill: /v1/rerank or RankGPT over the chat model',
    }),
    rankgpt: z
      .object({
        window: z.number().int().min(2).max(100).optional(),
        step: z.number().int().min(1).max(100).optional(),
        passageWords: z.number().int().min(1).max(5000).optional(),
      })
      .strict()
      .optional()
      .openapi({ description: "RankGPT's window (20), step (10) and words per passage (300)" }),
    maxRegenerations: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .openapi({ description: 'llmforum: regenerations of an answer scored below 0.5 (2)' }),
  })
  .strict()
  .openapi('MethodSettings');

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

const ModelRetrievalExtras = z.object({
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
      phase: z.enum(['indexing', 'retrieving', 'storing']),
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
        const settings: ModelMethodSettings = { ...body.settings };
        if (body.method === 'llmforum') {
          // Weighted Rocchio over the embeddings when an embeddings model is given.
          settings.forumDense = body.embeddingModel !== undefined;
          const p = body.params ?? {};
          settings.weightedRocchio = Object.fromEntries(
            Object.entries({
              depth: p.fbDepth,
              positives: p.positives,
              fbTerms: p.fbTerms,
              alpha: p.alpha,
              beta: p.beta,
              gamma: p.gamma,
            }).filter(([, v]) => v !== undefined),
          );
        }
        if (body.params?.k !== undefined) settings.k = body.params.k;
        if (body.params?.k1 !== undefined || body.params?.b !== undefined)
          settings.bm25 = {
            ...(body.params.k1 === undefined ? {} : { k1: body.params.k1 }),
            ...(body.params.b === undefined ? {} : { b: body.params.b }),
          };
        const input = {
          collection: collection.id,
          method: body.method,
          tag: body.tag,
          settings,
          ...(body.model ? { model: body.model } : {}),
          ...(body.embeddingModel ? { embeddingModel: body.embeddingModel } : {}),
          ...(body.rerankerModel ? { rerankerModel: body.rerankerModel } : {}),
          ...(body.topics ? { topics: body.topics } : {}),
          ...(body.replace ? { replace: true } : {}),
        };
        const config = c.var.config;
        if (!config)
          throw new ApiError('invalid_input', 'this server has no model endpoint configured');
        if (body.background)
          return c.json(presentJob(await startModelRetrieveJob(c.var.db, config, input)), 202);
        return c.json(await retrieveStoredModelRun(c.var.db, config, input), 201);
      }
      if (body.model || body.embeddingModel || body.rerankerModel || body.settings)
        throw new ApiError(
          'invalid_input',
          `${body.method} calls no model: model, embeddingModel and settings are for ${MODEL_METHODS.join(', ')}`,
        );
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
