import {
  createCollectionJudgeJob,
  judgeEndpointIdentity,
  judgeJobFailuresPage,
  judgeJobStatus,
  listCollectionJudgeJobsPage,
  loadPrices,
  SMALL_PAGE,
  LARGE_PAGE,
  retryJudgeJobFailures,
  setJudgeJobPaused,
  type AssayConfig,
  type JudgeJobSummary,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../core/errors.js';
import { collectionFromPath } from '../core/resolve.js';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  CollectionParam,
  readErrors,
  TopicId,
  writeErrors,
  adminComputation,
  busyError,
  LeftOutSchema,
} from '../core/schemas.js';
import { poolSpec, PoolSpecSchema } from '../catalog/schemas.js';

const JobParam = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a judge job id (digits)')
    .openapi({ param: { name: 'id', in: 'path' }, example: '1' }),
});

const Count = z.number().int();

const ProgressSchema = z
  .object({
    total: Count,
    pending: Count,
    running: Count,
    labelled: Count,
    failed: Count,
    timedOut: Count.openapi({
      description:
        'items pending or running whose last call timed out (a timed-out call is tried once more, then its item goes back to pending): the endpoint does not answer in time',
    }),
    costUsd: z.number().nullable().openapi({
      description:
        'USD paid for the job’s items so far; null when the model has no price (the cost is unknown, not 0), from the job’s creation on',
    }),
  })
  .openapi('JudgeJobProgress');

const JudgeJobSchema = z
  .object({
    id: Count,
    collection: z.string(),
    labelSet: z.object({ id: Count, name: z.string() }),
    judgeId: z.string().openapi({ example: 'graded-0-3' }),
    templateHash: z.string().openapi({ description: 'SHA-256 of the judge template' }),
    model: z.string(),
    settings: z.record(z.string(), z.unknown()).openapi({
      description: 'model settings (model, temperature, maxTokens …)',
    }),
    endpoint: z.string().nullable().openapi({
      description:
        'the model endpoint the job is judged at (base URL without credentials or query); workers calling another endpoint never claim its items; null until the first worker records its own',
      example: 'http://localhost:8000/v1',
    }),
    openToWorkers: z.boolean().openapi({
      description:
        'whether every worker at that endpoint (the server’s, `assay worker`) may claim its items; false for a job an `assay judge` run keeps for itself (only `assay worker --job` takes it)',
    }),
    status: z.enum(['active', 'paused', 'done']).openapi({
      description:
        'workers claim items only from active jobs; done once every item is labelled or failed',
    }),
    createdAt: z.string().openapi({ format: 'date-time' }),
    progress: ProgressSchema,
    finishedAt: z.string().nullable().openapi({
      format: 'date-time',
      description: 'when the last item was finished (done jobs only)',
    }),
    itemsPerSecond: z.number().nullable().openapi({
      description:
        'items finished per second: over the whole job once done, else over its latest items up to now; null before 5 items',
    }),
    etaSeconds: z.number().nullable().openapi({
      description: 'seconds until the pending and running items are finished (active jobs only)',
    }),
  })
  .openapi('JudgeJob');

const JudgeJobRequest = z
  .object({
    labelSet: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .openapi({ description: 'name of the LLM label set the job writes', example: 'gpt-4o' }),
    judge: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: 'a relevance judge of judges/', example: 'graded-0-3' }),
    settings: z
      .object({
        model: z.string().trim().min(1).max(200).optional().openapi({
          description: 'model name (default: ASSAY_JUDGE_MODEL of the server)',
          example: 'gpt-4o-mini',
        }),
        temperature: z.number().min(0).max(2).optional(),
        maxTokens: z.number().int().min(1).max(1_000_000).optional(),
        structuredOutput: z.boolean().optional().openapi({
          description: 'ask for the template’s JSON schema as structured output (default true)',
        }),
        logprobs: z.boolean().optional().openapi({
          description: 'ask for log-probabilities to keep each grade distribution',
        }),
      })
      .optional(),
    pool: PoolSpecSchema.optional().openapi({
      description: 'judge the pool of stored runs (give this or items)',
    }),
    items: z
      .array(z.object({ topicId: TopicId, docId: z.string().min(1) }))
      .min(1)
      .max(1_000_000)
      .optional()
      .openapi({ description: '(topic, document) pairs in judging order (give this or pool)' }),
    paused: z.boolean().optional().openapi({
      description: 'create the job paused (start it later); absent leaves an existing job as is',
    }),
  })
  .openapi('JudgeJobRequest');

const FailureSchema = z
  .object({
    topicId: z.string(),
    docId: z.string(),
    error: z.string(),
    raw: z.string().nullable().openapi({ description: 'the unreadable answer, if any' }),
  })
  .openapi('JudgeFailure');

const created = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: JudgeJobSchema.extend({
        leftOut: LeftOutSchema.openapi({
          description:
            'the pool’s pairs whose topic or document the collection does not hold, left out as POST …/pools leaves them out (nothing for items)',
        }),
      }),
    },
  },
});

/** The prices a job's cost is told by: those the server's own worker judges at. */
function pricesOf(config: AssayConfig | undefined) {
  return config ? loadPrices(config) : undefined;
}

function present(job: JudgeJobSummary) {
  return {
    ...job,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

/** `/api/collections/{collection}/judge-jobs`: LLM judging jobs writing label sets. */
export const collectionJudgeJobs = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['judging'],
      summary: 'The judge jobs of a collection, each with its progress (cursor paging)',
      ...adminOnly,
      request: { params: CollectionParam, query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of jobs, oldest first (by id)', JudgeJobSchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const page = await listCollectionJudgeJobsPage(
        c.var.db,
        collection.id,
        pageOptions(c.req.valid('query')),
        pricesOf(c.var.config),
      );
      linkNextPage(c, page.next);
      return c.json(page.items.map(present), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['judging'],
      summary: 'Create a judge job (or add new items to it) over a pool or given items',
      description:
        'Admin only. Items get their prompt from the stored topics and documents. A pool ' +
        'keeps the pairs the collection holds, as POST …/pools does, naming the others in ' +
        '`leftOut`; a listed item without them refuses the whole request (422, nothing ' +
        'written). Posting the same ' +
        'job again adds only the items it does not have. The job is judged at the server’s ' +
        'endpoint (OPENAI_BASE_URL, or the OpenAI API with only OPENAI_API_KEY), by the ' +
        'server’s own worker or `assay worker` processes calling that endpoint; on a server ' +
        'without an endpoint, by the first worker that takes it, at its own.',
      ...adminComputation,
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: JudgeJobRequest } } },
      },
      responses: {
        200: created('the job existed with this configuration; new items were added'),
        201: created('the job and its label set were created'),
        ...writeErrors,
        ...busyError,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const body = c.req.valid('json');
      if ((body.pool === undefined) === (body.items === undefined))
        throw new ApiError('invalid_input', 'give either pool or items, not both or neither');
      const settings = body.settings ?? {};
      const defaultModel = c.var.config?.judgeModel;
      const endpoint = c.var.config ? judgeEndpointIdentity(c.var.config) : undefined;
      const result = await createCollectionJudgeJob(c.var.db, {
        collection: collection.id,
        labelSet: body.labelSet,
        judge: body.judge,
        settings: Object.fromEntries(
          Object.entries(settings).filter(([, v]) => v !== undefined),
        ) as typeof settings,
        ...(defaultModel === undefined ? {} : { defaultModel }),
        ...(body.pool === undefined ? {} : { pool: poolSpec(body.pool) }),
        ...(body.items === undefined ? {} : { items: body.items }),
        ...(body.paused === undefined ? {} : { paused: body.paused }),
        ...(endpoint === undefined ? {} : { endpoint }),
        prices: pricesOf(c.var.config),
      });
      const job = { ...present(result.job), leftOut: result.leftOut };
      return result.created ? c.json(job, 201) : c.json(job, 200);
    },
  );

/** `/api/judge-jobs/{id}`: one judge job's progress, pausing, failures and retries. */
export const judgeJobs = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      tags: ['judging'],
      summary: 'A judge job: label set, judge, model, status and progress (counts and cost)',
      ...adminOnly,
      request: { params: JobParam },
      responses: {
        200: {
          description: 'the job',
          content: { 'application/json': { schema: JudgeJobSchema } },
        },
        ...readErrors,
      },
    }),
    async (c) =>
      c.json(
        present(
          await judgeJobStatus(c.var.db, Number(c.req.valid('param').id), pricesOf(c.var.config)),
        ),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/start',
      tags: ['judging'],
      summary: 'Resume a judge job: workers claim its items again',
      ...adminOnly,
      request: { params: JobParam },
      responses: {
        200: {
          description: 'the job',
          content: { 'application/json': { schema: JudgeJobSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) =>
      c.json(
        present(
          await setJudgeJobPaused(
            c.var.db,
            Number(c.req.valid('param').id),
            false,
            pricesOf(c.var.config),
          ),
        ),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/stop',
      tags: ['judging'],
      summary: 'Pause a judge job: workers claim nothing more from it; items in flight finish',
      ...adminOnly,
      request: { params: JobParam },
      responses: {
        200: {
          description: 'the job',
          content: { 'application/json': { schema: JudgeJobSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) =>
      c.json(
        present(
          await setJudgeJobPaused(
            c.var.db,
            Number(c.req.valid('param').id),
            true,
            pricesOf(c.var.config),
          ),
        ),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/failures',
      tags: ['judging'],
      summary:
        'The items of a judge job that could not be labelled, with the reasons (cursor paging)',
      ...adminOnly,
      request: { params: JobParam, query: z.object(pageQuery(LARGE_PAGE)) },
      responses: {
        200: pageResponse('a page of failed items in priority order', FailureSchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await judgeJobFailuresPage(
        c.var.db,
        Number(c.req.valid('param').id),
        pageOptions(c.req.valid('query')),
      );
      linkNextPage(c, page.next);
      return c.json(page.items, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/retry-failed',
      tags: ['judging'],
      summary:
        'Put a judge job’s failed items back to pending for another try, asked anew (new attempt numbers; the unreadable answers stay stored)',
      ...adminOnly,
      request: { params: JobParam },
      responses: {
        200: {
          description: 'how many items went back, and the job',
          content: {
            'application/json': {
              schema: z.object({ retried: Count, job: JudgeJobSchema }),
            },
          },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const { retried, job } = await retryJudgeJobFailures(
        c.var.db,
        Number(c.req.valid('param').id),
        pricesOf(c.var.config),
      );
      return c.json({ retried, job: present(job) }, 200);
    },
  );
