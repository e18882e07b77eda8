import { evaluateRuns } from '@assay/platform';
import { createRoute } from '@hono/zod-openapi';
import { EvaluationResultSchema } from '../reports/result-schemas.js';
import { createRouter } from '../router.js';
import { adminComputation, busyError, readErrors } from '../core/schemas.js';
import { EvaluationRequest } from './schemas.js';

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
