import {
  COMPARE_CORRECTIONS,
  estimateLeaderboard,
  PPI_SAMPLINGS,
  renderJudgeReport,
  reportOnJudges,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../router.js';
import { adminComputation, busyError, NameOrId, readErrors } from '../core/schemas.js';
import { REPORT_PAGE_POLICY } from '../core/page-policies.js';

// NaN statistics (kappa of a constant judge, …) are written as null.
const Num = z.number().nullable();
const Estimate = z.object({ estimate: Num, ci_lower: Num, ci_upper: Num });

const unprocessable = {
  description: 'an unknown measure, human labels outside the LLM labels, too few human topics …',
  content: { 'application/json': { schema: readErrors[400].content['application/json'].schema } },
};

const PpiRequest = z
  .object({
    collection: NameOrId.openapi({ example: 'dl21' }),
    humanLabelSet: NameOrId.openapi({
      description:
        "people's labels: every judged pair of a sample of topics (or, sampling pairs, of the LLM's pairs); a campaign's label set counts the topics whose items are all labelled",
      example: 'nist-sample',
    }),
    llmLabelSet: NameOrId.openapi({
      description: "the LLM's labels on every topic",
      example: 'gpt-4o',
    }),
    runs: z
      .array(NameOrId)
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: 'runs by name or id; default every run of the collection' }),
    measures: z
      .array(z.string().min(1))
      .min(1)
      .max(50)
      .optional()
      .openapi({ description: 'as `assay ppi -m` (default nDCG@10)', example: ['nDCG@10'] }),
    sampling: z
      .enum(PPI_SAMPLINGS)
      .optional()
      .openapi({ description: 'topics (default) or pairs' }),
    alpha: z
      .number()
      .gt(0)
      .lt(1)
      .optional()
      .openapi({ description: 'intervals at 1 − alpha (0.05)' }),
    correction: z.enum(COMPARE_CORRECTIONS).optional().openapi({ description: 'default holm' }),
    targetHalfWidth: z
      .number()
      .gt(0)
      .optional()
      .openapi({ description: 'say how many labelled units each estimate likely needs for it' }),
  })
  .openapi('PpiRequest');

const PpiResult = z
  .object({
    sampling: z.enum(PPI_SAMPLINGS),
    level: z.number(),
    alpha: z.number(),
    correction: z.string(),
    measures: z.array(z.string()),
    n: z.number().int(),
    N: z.number().int(),
    topics: z.number().int(),
    method: z.string(),
    targetHalfWidth: z.number().optional(),
    needed: z.object({ units: z.number().int(), more: z.number().int() }).optional(),
    rows: z.array(
      Estimate.extend({
        run: z.string(),
        measure: z.string(),
        lambda: Num,
        n: z.number().int(),
        N: z.number().int(),
        human: Estimate,
        llm_mean: Num,
        needed: z.number().int().optional(),
      }),
    ),
    pairs: z.array(
      Estimate.extend({
        a: z.string(),
        b: z.string(),
        measure: z.string(),
        lambda: Num,
        p: Num,
        p_adjusted: Num,
        significant: z.boolean(),
        human: Estimate,
      }),
    ),
    humanLabelSet: z.object({ id: z.number().int(), name: z.string() }),
    llmLabelSet: z.object({ id: z.number().int(), name: z.string() }),
    campaign: z
      .object({
        id: z.number().int(),
        name: z.string(),
        topics: z.number().int(),
        finishedTopics: z.number().int(),
      })
      .optional(),
  })
  .openapi('PpiResult');

const JudgeReportRequest = z
  .object({
    collection: NameOrId.openapi({ example: 'rag26-dev' }),
    human: NameOrId.optional().openapi({
      description: "people's labels; absent: the judges are measured against each other",
    }),
    judges: z
      .array(NameOrId)
      .min(1)
      .max(50)
      .openapi({ example: ['qwen-v1', 'qwen-v2'] }),
    drift: z
      .array(z.tuple([NameOrId, NameOrId]))
      .max(50)
      .optional()
      .openapi({ description: 'pairs [earlier, later] of the judges: versions of one judge' }),
    runs: z
      .array(NameOrId)
      .min(2)
      .max(1000)
      .optional()
      .openapi({ description: "runs whose leaderboards are correlated with the human one's" }),
    measure: z.string().min(1).optional().openapi({ description: 'of the leaderboards (nDCG@10)' }),
    lengthBias: z
      .boolean()
      .optional()
      .openapi({ description: 'grade difference against the stored passages’ length' }),
    scale: z
      .object({ min: z.number().int(), max: z.number().int() })
      .refine((s) => s.min < s.max, 'min must be below max')
      .optional()
      .openapi({ description: "default: the label sets' declared scales" }),
    samples: z.number().int().min(0).max(100_000).optional().openapi({
      description: 'bootstrap resamples of every 95% interval (default 1000; 0: none)',
    }),
    seed: z.number().int().optional(),
  })
  .openapi('JudgeReportRequest');

const Usage = z.array(
  z.object({ grade: z.number().int(), count: z.number().int(), share: Num, rare: z.boolean() }),
);
const Agreement = z
  .object({
    n: z.number().int(),
    exactAgreement: Num,
    cohenKappa: z.object({ unweighted: Num, linear: Num, quadratic: Num }),
    krippendorffAlpha: z.object({ nominal: Num, ordinal: Num, interval: Num }),
    fleissKappa: Num,
    gwet: z.object({ ac1: Num, ac2: z.object({ linear: Num, quadratic: Num }) }),
    pabak: Num,
    confusion: z.object({ labels: z.array(z.number()), matrix: z.array(z.array(z.number())) }),
  })
  .loose()
  .openapi({ description: 'the `assay agree --format json` object, with intervals' });

const JudgeReportResult = z
  .object({
    scale: z.object({ min: z.number().int(), max: z.number().int() }),
    human: z.object({ name: z.string(), labels: z.number().int(), usage: Usage }).optional(),
    judges: z.array(
      z
        .object({
          judge: z.string(),
          labels: z.number().int(),
          outsideScale: z.number().int(),
          usage: Usage,
          rareGrades: z.array(z.number().int()),
          against: z.string(),
          agreement: Agreement,
          inverted: z.boolean(),
          leaderboard: z.record(z.string(), z.unknown()).optional(),
          lengthBias: z.record(z.string(), z.unknown()).optional(),
          cost: z
            .object({
              items: z.number().int(),
              calls: z.number().int(),
              costUsd: z.number(),
              perThousandItems: z.object({ costUsd: Num, calls: Num }),
            })
            .optional(),
        })
        .loose(),
    ),
    panel: z.record(z.string(), z.unknown()).optional(),
    drift: z.array(
      z.object({
        from: z.string(),
        to: z.string(),
        n: z.number().int(),
        changed: Num,
        meanShift: Num,
        agreement: Agreement,
      }),
    ),
    bootstrap: z.object({
      samples: z.number().int(),
      seed: z.number().int(),
      level: z.number(),
      method: z.string(),
    }),
    rareGradeShare: z.number(),
    notes: z.array(z.string()),
  })
  .loose()
  .openapi('JudgeReport');

/** Drops undefined fields, so the use-cases apply their defaults. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * How far to trust LLM labels: `POST /api/ppi` (prediction-powered leaderboards, as
 * `assay ppi`) and `POST /api/judge-reports` (the judge-quality report, as `assay
 * judge-report`). Both read only, so any valid token may call them.
 */
export const ppi = createRouter().openapi(
  createRoute({
    method: 'post',
    path: '/',
    tags: ['estimates'],
    summary: 'A leaderboard estimated from a few human labels and LLM labels on everything (PPI++)',
    ...adminComputation,
    description:
      'Admin only. The analysis of `assay ppi` on stored runs and label sets. When the human label set is an ' +
      "annotation campaign's, the topics whose items are all labelled count, so the intervals narrow as people label.",
    request: {
      body: { required: true, content: { 'application/json': { schema: PpiRequest } } },
    },
    responses: {
      200: {
        description: 'per run and measure the estimate, its interval and λ; the tested differences',
        content: { 'application/json': { schema: PpiResult } },
      },
      ...readErrors,
      422: unprocessable,
      ...busyError,
    },
  }),
  async (c) => c.json(await estimateLeaderboard(c.var.db, defined(c.req.valid('json'))), 200),
);

export const judgeReports = createRouter().openapi(
  createRoute({
    method: 'post',
    path: '/',
    tags: ['estimates'],
    summary: 'How good LLM judges are, against human labels or each other',
    ...adminComputation,
    description:
      'Admin only. The analysis of `assay judge-report` on stored label sets; judges whose label set a judge ' +
      'job wrote also get their cost and model calls per 1,000 items. `?format=html` answers the ' +
      'report as one self-contained page.',
    request: {
      query: z.object({ format: z.enum(['json', 'html']).optional() }),
      body: { required: true, content: { 'application/json': { schema: JudgeReportRequest } } },
    },
    responses: {
      200: {
        description: 'the report (JSON), or the page (`?format=html`)',
        content: {
          'application/json': { schema: JudgeReportResult },
          'text/html': { schema: z.string() },
        },
      },
      ...readErrors,
      422: unprocessable,
      ...busyError,
    },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const report = await reportOnJudges(
      c.var.db,
      defined({
        ...body,
        drift: body.drift?.map(([a, b]): [string | number, string | number] => [a, b]),
      }),
    );
    if (c.req.valid('query').format === 'html') {
      c.header('content-security-policy', REPORT_PAGE_POLICY);
      return c.html(renderJudgeReport(report, 'html', 'Judge report'), 200);
    }
    return c.json(report, 200);
  },
);
