import {
  COMPARE_CORRECTIONS,
  COMPARE_TESTS,
  createAgreementReport,
  createComparisonReport,
  createEvaluationReport,
  deleteReport,
  getReport,
  listReportsPage,
  SMALL_PAGE,
  publishLeaderboard,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { linkNextPage, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import { EvaluationRequest } from '../analysis/schemas.js';
import {
  presentReport as present,
  presentReportSummary as summary,
  ReportSchema,
  ReportSummarySchema,
  SlugSchema,
} from './schemas.js';
import {
  adminComputation,
  adminOnly,
  busyError,
  NameOrId,
  readErrors,
  writeErrors,
} from '../core/schemas.js';

const IdParam = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a report id (digits)')
    .openapi({ param: { name: 'id', in: 'path' }, example: '1' }),
});

const Title = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .optional()
  .openapi({ description: 'shown in lists (default: the runs and label sets)' });

const ComparisonRequest = z
  .object({
    collection: NameOrId.openapi({ example: 'cranfield' }),
    labelSets: z
      .array(NameOrId)
      .min(1)
      .max(2)
      .openapi({
        description:
          'one label set, or two whose leaderboards are rank-correlated (the first is ground truth for tau-AP)',
        example: ['cranfield-qrels'],
      }),
    runs: z
      .array(NameOrId)
      .min(2)
      .max(200)
      .optional()
      .openapi({
        description: 'runs by name or id; default every run of the collection',
        example: ['bm25', 'rm3'],
      }),
    measures: z
      .array(z.string().min(1))
      .min(1)
      .max(50)
      .openapi({
        description: 'as `assay compare -m`; the first orders the leaderboard',
        example: ['ndcg_cut.10', 'map'],
      }),
    test: z.enum(COMPARE_TESTS).optional().openapi({ description: 'default t' }),
    correction: z
      .enum(COMPARE_CORRECTIONS)
      .optional()
      .openapi({ description: 'default holm; one family per measure' }),
    alpha: z.number().gt(0).lt(1).optional().openapi({ description: 'default 0.05' }),
    baseline: NameOrId.optional().openapi({
      description: 'test each run against this run only, instead of every pair',
    }),
    permutations: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .openapi({ description: 'sign flips of the randomization test (default 10000)' }),
    seed: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'seed of the randomization test and the bootstrap (default 42)' }),
    topRuns: z.number().int().min(2).max(1000).optional().openapi({
      description:
        'two label sets: tau@k is Kendall tau-b over the top k runs of the first (default 10)',
    }),
    tolerance: z.number().min(0).max(1e9).optional().openapi({
      description:
        'two label sets: the gap-aware tau charges a swap of runs within this of each other in proportion to their gap (default 0.01)',
    }),
    correlationSamples: z.number().int().min(0).max(100_000).optional().openapi({
      description:
        'two label sets: bootstrap resamples of the rank correlations’ 95% intervals, topics drawn with replacement (default 1000; 0: none)',
    }),
    title: Title,
  })
  .openapi('ComparisonRequest');

const AgreementRequest = z
  .object({
    collection: NameOrId.openapi({ example: 'cranfield' }),
    labelSetA: NameOrId.openapi({ example: 'cranfield-qrels' }),
    labelSetB: NameOrId.openapi({ example: 'gpt-judge' }),
    scale: z
      .object({ min: z.number().int(), max: z.number().int() })
      .refine((s) => s.min < s.max, 'min must be below max')
      .optional()
      .openapi({ description: 'the grade scale (default: the grades seen in either set)' }),
    clip: z
      .boolean()
      .optional()
      .openapi({ description: 'clamp grades outside the scale instead of failing' }),
    samples: z.number().int().min(0).max(100_000).optional().openapi({
      description:
        'bootstrap resamples of the 95% intervals, topics drawn with their pairs (default 1000; 0: none)',
    }),
    seed: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'seed of the bootstrap (default 42)' }),
    title: Title,
  })
  .openapi('AgreementRequest');

const EvaluationReportRequest = EvaluationRequest.extend({ title: Title }).openapi(
  'EvaluationReportRequest',
);

const ListQuery = z.object({
  collection: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: 'only reports of this collection (id or name)' }),
  kind: z.enum(['evaluation', 'comparison', 'agreement']).optional(),
  ...pageQuery(SMALL_PAGE),
});

const invalidContent = {
  description: 'an unknown measure, an empty label set, grades outside the scale …',
  content: { 'application/json': { schema: readErrors[400].content['application/json'].schema } },
};

const created = {
  description: 'the stored report',
  content: { 'application/json': { schema: ReportSchema } },
};

/** Drops undefined options, so the use-cases apply their defaults. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * `/api/reports`: evaluations, comparisons and agreement reports computed once and stored
 * as immutable snapshots with their provenance; comparisons can be published.
 */
export const reports = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['reports'],
      summary: 'Stored reports, newest first (without their results; cursor paging)',
      ...adminOnly,
      request: { query: ListQuery },
      responses: {
        200: pageResponse('a page of reports, newest first (by id)', ReportSummarySchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listReportsPage(c.var.db, defined(c.req.valid('query')));
      linkNextPage(c, page.next);
      return c.json(page.items.map(summary), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/comparisons',
      tags: ['reports'],
      summary: 'Compare stored runs under one or two label sets and store the leaderboard',
      ...adminComputation,
      description:
        'Admin only. The analysis of `assay compare`: means over every topic of the label set (a topic a ' +
        'run lacks scores 0), Judged@10, 95% bootstrap intervals, pairwise tests with ' +
        'per-measure corrections, and with two label sets the rank correlations.',
      request: {
        body: { required: true, content: { 'application/json': { schema: ComparisonRequest } } },
      },
      responses: { 201: created, ...writeErrors, ...busyError, 422: invalidContent },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const report = await createComparisonReport(
        c.var.db,
        defined({ ...body, createdBy: c.var.user }),
      );
      return c.json(present(report), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/agreements',
      tags: ['reports'],
      summary: 'Measure the agreement of two label sets and store it',
      ...adminComputation,
      description:
        'Admin only. The analysis of `assay agree` over the (topic, document) pairs both label sets hold.',
      request: {
        body: { required: true, content: { 'application/json': { schema: AgreementRequest } } },
      },
      responses: { 201: created, ...writeErrors, ...busyError, 422: invalidContent },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const report = await createAgreementReport(
        c.var.db,
        defined({ ...body, createdBy: c.var.user }),
      );
      return c.json(present(report), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/evaluations',
      tags: ['reports'],
      summary: 'Evaluate stored runs against a label set and store the result',
      ...adminComputation,
      request: {
        body: {
          required: true,
          content: { 'application/json': { schema: EvaluationReportRequest } },
        },
      },
      responses: { 201: created, ...writeErrors, ...busyError, 422: invalidContent },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const report = await createEvaluationReport(
        c.var.db,
        defined({ ...body, createdBy: c.var.user }),
      );
      return c.json(present(report), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      tags: ['reports'],
      summary: 'A stored report with its provenance and result',
      ...adminOnly,
      request: { params: IdParam },
      responses: {
        200: {
          description: 'the report',
          content: { 'application/json': { schema: ReportSchema } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const report = await getReport(c.var.db, Number(c.req.valid('param').id));
      return c.json(present(report), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{id}',
      tags: ['reports'],
      summary: 'Delete a report (409 while it is published)',
      ...adminOnly,
      request: { params: IdParam },
      responses: { 204: { description: 'deleted' }, ...writeErrors },
    }),
    async (c) => {
      await deleteReport(c.var.db, Number(c.req.valid('param').id));
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/publish',
      tags: ['reports'],
      summary: 'Publish a comparison as a public leaderboard under a slug',
      ...adminOnly,
      description:
        'Admin only. Anyone can then read it, without a token, at /api/public/leaderboards/{slug} ' +
        '(JSON), and download it as .csv, .tex, .json or .html.',
      request: {
        params: IdParam,
        body: {
          required: true,
          content: { 'application/json': { schema: z.object({ slug: SlugSchema }) } },
        },
      },
      responses: {
        201: {
          description: 'published',
          content: {
            'application/json': {
              schema: z.object({
                slug: z.string(),
                reportId: z.number().int(),
                publishedAt: z.string(),
                url: z.string(),
              }),
            },
          },
        },
        ...writeErrors,
        422: invalidContent,
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const { slug } = c.req.valid('json');
      const published = await publishLeaderboard(c.var.db, {
        report: Number(id),
        slug,
        publishedBy: c.var.user,
      });
      return c.json(
        {
          slug: published.slug,
          reportId: published.report.id,
          publishedAt: published.publishedAt.toISOString(),
          url: `/api/public/leaderboards/${published.slug}`,
        },
        201,
      );
    },
  );
