import { evaluateRuns } from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { EvaluationResultSchema } from '../reports/result-schemas.js';
import { createRouter } from '../router.js';
import { adminComputation, busyError, NameOrId, readErrors } from '../core/schemas.js';

/** The body of an evaluation (also of a stored evaluation report, with a title). */
export const EvaluationRequest = z
  .object({
    collection: NameOrId.openapi({ example: 'cranfield' }),
    labelSet: NameOrId.openapi({ example: 'cranfield-qrels' }),
    runs: z
      .array(NameOrId)
      .min(1)
      .max(1000)
      .optional()
      .openapi({
        description: 'runs by name or id; default every run of the collection',
        example: ['bm25'],
      }),
    measures: z
      .array(z.string().min(1))
      .min(1)
      .max(200)
      .openapi({
        description: 'trec_eval or ir_measures names',
        example: ['map', 'ndcg_cut.10', 'P@5'],
      }),
    completeTopics: z.boolean().optional().openapi({
      description:
        'every topic of the label set counts and a topic missing from a run scores 0 (trec_eval -c); default true',
    }),
    relevanceLevel: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'lowest grade that counts as relevant (trec_eval -l)' }),
    maxDocs: z
      .number()
      .int()
      .positive()
      .optional()
      .openapi({ description: 'evaluate only the top N of each ranking (trec_eval -M)' }),
    judgedOnly: z
      .boolean()
      .optional()
      .openapi({ description: 'drop unjudged documents from rankings first (trec_eval -J)' }),
  })
  .openapi('EvaluationRequest');

/** `/api/evaluations`: trec_eval-exact evaluation of stored runs against a label set. */
export const evaluations = createRouter().openapi(
  createRoute({
    method: 'post',
    path: '/',
    tags: ['evaluations'],
    summary: 'Evaluate stored runs against a label set (per topic and mean)',
    ...adminComputation,
    description: 'Stores nothing, but reads a label set: admin only.',
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: EvaluationRequest } },
      },
    },
    responses: {
      200: {
        description: 'per-topic and mean values of each run',
        content: { 'application/json': { schema: EvaluationResultSchema } },
      },
      ...readErrors,
      ...busyError,
      422: {
        description: 'an unknown measure, an empty label set, or a run missing topics',
        content: {
          'application/json': { schema: readErrors[400].content['application/json'].schema },
        },
      },
    },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const input: Parameters<typeof evaluateRuns>[1] = {
      collection: body.collection,
      labelSet: body.labelSet,
      runs: body.runs,
      measures: body.measures,
    };
    if (body.completeTopics !== undefined) input.completeTopics = body.completeTopics;
    if (body.relevanceLevel !== undefined) input.relevanceLevel = body.relevanceLevel;
    if (body.maxDocs !== undefined) input.maxDocs = body.maxDocs;
    if (body.judgedOnly !== undefined) input.judgedOnly = body.judgedOnly;
    return c.json(await evaluateRuns(c.var.db, input), 200);
  },
);
