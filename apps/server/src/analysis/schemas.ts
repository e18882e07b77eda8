// The body of an evaluation of stored runs, also the body of a stored evaluation report
// (with a title).
import { z } from '@hono/zod-openapi';
import { NameOrId } from '../core/schemas.js';

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
