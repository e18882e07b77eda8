import {
  getScoreSetDetail,
  removeScoreSet,
  renderAnswersReport,
  scoreSetAgreement,
  scoreSetPositionSwap,
  scoreSetReport,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { REPORT_PAGE_POLICY } from '../core/page-policies.js';
import { AnswersReportSchema } from '../reports/result-schemas.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  ErrorSchema,
  json,
  readErrors,
  TopicQuery,
  writeErrors,
} from '../core/schemas.js';
import { presentScoreSet, ScoreSetSchema } from './schemas.js';

const AnswerScoreSchema = z.object({
  topicId: z.string(),
  system: z.string(),
  trial: z.number().int(),
  scores: z.record(z.string(), z.number()).nullable(),
  justification: z.string().nullable(),
  label: z.string().nullable(),
  error: z.string().nullable().openapi({ description: 'why the answer could not be scored' }),
  raw: z.string().nullable().openapi({ description: "the judge's unreadable answer" }),
});

const ScoreSetParam = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a score set id (digits)')
    .openapi({ param: { name: 'id', in: 'path' }, example: '1' }),
});

const ReportQuery = z.object({
  test: z.enum(['paired', 'welch']).optional().openapi({ description: 'default paired' }),
  correction: z.enum(['holm', 'bonferroni', 'bh', 'none']).optional(),
  alpha: z.coerce.number().gt(0).lt(1).optional(),
  seed: z.coerce.number().int().optional(),
  format: z.enum(['json', 'table', 'csv', 'latex', 'html']).optional(),
});

const AgreementParam = ScoreSetParam.extend({
  other: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a score set id (digits)')
    .openapi({ param: { name: 'other', in: 'path' }, example: '2' }),
});

const CriterionAgreementSchema = z
  .object({
    criterion: z.string(),
    n: z.number().int(),
    exact: z.number().nullable(),
    kappaLinear: z.number().nullable(),
    kappaQuadratic: z.number().nullable(),
    alphaOrdinal: z.number().nullable(),
    alphaInterval: z.number().nullable(),
  })
  .openapi('CriterionAgreement');

const CONTENT_TYPES = {
  table: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  latex: 'application/x-tex; charset=utf-8',
  html: 'text/html; charset=utf-8',
} as const;

/** `/api/score-sets/{id}`: a score set's grades, its report, deleting it. */
export const scoreSets = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      tags: ['answers'],
      summary:
        'A score set with every (topic, system, trial): scores and justification, or why it failed',
      ...adminOnly,
      request: { params: ScoreSetParam, query: TopicQuery },
      responses: {
        200: json('the score set', ScoreSetSchema.extend({ rows: z.array(AnswerScoreSchema) })),
        ...readErrors,
      },
    }),
    async (c) => {
      const { topic } = c.req.valid('query');
      const detail = await getScoreSetDetail(
        c.var.db,
        Number(c.req.valid('param').id),
        topic === undefined ? {} : { topic },
      );
      return c.json({ ...presentScoreSet(detail), rows: detail.rows }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/report',
      tags: ['answers'],
      summary: 'Means with bootstrap intervals, win rates and t-tests of a score set',
      description:
        'As `assay answers report`: JSON `{systems, tests}` by default; `format` gives the ' +
        'table, CSV, LaTeX or the self-contained HTML page. Failed answers are left out.',
      ...adminOnly,
      request: { params: ScoreSetParam, query: ReportQuery },
      responses: {
        200: {
          description: 'the report',
          content: {
            'application/json': { schema: AnswersReportSchema },
            'text/plain': { schema: z.string() },
            'text/csv': { schema: z.string() },
            'application/x-tex': { schema: z.string() },
            'text/html': { schema: z.string() },
          },
        },
        ...readErrors,
        422: {
          description: 'no scored answers',
          content: { 'application/json': { schema: ErrorSchema } },
        },
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const test = q.test ?? 'paired';
      const correction = q.correction ?? 'holm';
      const alpha = q.alpha ?? 0.05;
      const { report, spread, routes } = await scoreSetReport(
        c.var.db,
        Number(c.req.valid('param').id),
        {
          test,
          correction,
          alpha,
          ...(q.seed === undefined ? {} : { seed: q.seed }),
        },
      );
      const format = q.format ?? 'json';
      if (format === 'json')
        // Checked here: a route with several content types does not check its JSON answer.
        return c.json(report satisfies z.input<typeof AnswersReportSchema>, 200);
      return c.body(
        renderAnswersReport(report, format, { test, correction, alpha, spread, routes }),
        200,
        {
          'content-type': CONTENT_TYPES[format],
          // The HTML page shows with its own inline style; the other formats are data.
          ...(format === 'html' ? { 'content-security-policy': REPORT_PAGE_POLICY } : {}),
        },
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/agreement/{other}',
      tags: ['answers'],
      summary: 'Per criterion, agreement with another score set of the same answers',
      description:
        'Exact agreement, linear and quadratic Cohen kappa, ordinal and interval ' +
        'Krippendorff alpha on the 0–5 scale, over the answers both score sets graded ' +
        '(e.g. the LLM judge against people scoring the same answers).',
      ...adminOnly,
      request: { params: AgreementParam },
      responses: {
        200: json('agreement per criterion', z.array(CriterionAgreementSchema)),
        ...readErrors,
        422: {
          description: 'the score sets grade different response sets',
          content: { 'application/json': { schema: ErrorSchema } },
        },
      },
    }),
    async (c) => {
      const rows = await scoreSetAgreement(
        c.var.db,
        Number(c.req.valid('param').id),
        Number(c.req.valid('param').other),
      );
      return c.json(
        JSON.parse(JSON.stringify(rows)) as z.infer<typeof CriterionAgreementSchema>[],
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/position-swap/{other}',
      tags: ['answers'],
      summary: 'Position-swap consistency with another comparative score set of the same answers',
      description:
        'Two comparative score sets of the same answers in different orders (different seeds): per ' +
        'criterion, the pairs of answers shown in both orders, how many kept their preference, and how ' +
        'often the answer shown first (or second) won both times (`assay judge-report --swap`).',
      ...adminOnly,
      request: { params: AgreementParam },
      responses: {
        200: json(
          'position-swap consistency per criterion',
          z.object({
            topics: z.number().int(),
            criteria: z.array(
              z.object({
                criterion: z.string(),
                swapped: z.number().int(),
                consistent: z.number().int(),
                consistency: z.number().nullable(),
                firstWins: z.number().int(),
                secondWins: z.number().int(),
              }),
            ),
          }),
        ),
        ...readErrors,
        422: {
          description: 'the score sets grade different response sets',
          content: { 'application/json': { schema: ErrorSchema } },
        },
      },
    }),
    async (c) => {
      const { id, other } = c.req.valid('param');
      const report = await scoreSetPositionSwap(c.var.db, Number(id), Number(other));
      return c.json(
        {
          topics: report.topics,
          criteria: report.criteria.map((r) => ({
            ...r,
            consistency: Number.isFinite(r.consistency) ? r.consistency : null,
          })),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{id}',
      tags: ['answers'],
      summary: 'Delete a score set',
      ...adminOnly,
      request: { params: ScoreSetParam },
      responses: { 204: { description: 'deleted' }, ...writeErrors },
    }),
    async (c) => {
      await removeScoreSet(c.var.db, Number(c.req.valid('param').id));
      return c.body(null, 204);
    },
  );
