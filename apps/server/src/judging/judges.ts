import { JUDGE_KINDS, listJudgeTemplates } from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../router.js';
import { adminOnly, readErrors } from '../core/schemas.js';

const JudgeTemplateSchema = z
  .object({
    id: z.string().openapi({ example: 'graded-0-3' }),
    kind: z.enum(JUDGE_KINDS),
    scale: z.object({ min: z.number().int(), max: z.number().int() }),
    description: z.string(),
  })
  .openapi('JudgeTemplate');

/** `/api/judges`: the judge templates a judge job or answer scoring can name. */
export const judges = createRouter().openapi(
  createRoute({
    method: 'get',
    path: '/',
    tags: ['judge-jobs'],
    summary: 'The judge templates, by id (id, kind, grade scale, description)',
    ...adminOnly,
    responses: {
      200: {
        description: 'the judge templates shipped with this assay',
        content: { 'application/json': { schema: z.array(JudgeTemplateSchema) } },
      },
      ...readErrors,
    },
  }),
  (c) => c.json(listJudgeTemplates(), 200),
);
