import { importRubricSet, listCollectionRubricSets, rubricSetDetail } from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { CriterionSchema, presentCriterion, presentRubricSet, RubricSetSchema } from './schemas.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  CollectionParam,
  json,
  readErrors,
  TopicQuery,
  writeErrors,
} from '../core/schemas.js';

const RubricParams = CollectionParam.extend({
  rubricSet: z
    .string()
    .min(1)
    .openapi({ param: { name: 'rubricSet', in: 'path' }, description: 'rubric set id or name' }),
});

const ImportBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    rubrics: z
      .string()
      .min(1)
      .max(200 * 1024 * 1024)
      .openapi({ description: 'JSONL {"qid","rubrics":[{"criterion","weight","axis"}],…}' }),
    file: z.string().min(1).max(200).optional(),
  })
  .openapi('ImportRubricSet');

/** `/api/collections/{collection}/rubric-sets`: per-topic weighted rubrics. */
export const rubricSets = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['rag'],
      summary: 'The collection’s rubric sets',
      ...adminOnly,
      request: { params: CollectionParam },
      responses: { 200: json('rubric sets by name', z.array(RubricSetSchema)), ...readErrors },
    }),
    async (c) =>
      c.json(
        (await listCollectionRubricSets(c.var.db, c.req.valid('param').collection)).map(
          presentRubricSet,
        ),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['rag'],
      summary: 'Import a rubric file (criteria weighted −5 … 5 on named axes)',
      ...adminOnly,
      description:
        'Admin only. Checked whole first: a bad line (a weight out of range, a topic without a ' +
        'positive weight) is 422 `file:line: reason`. The same file under the same name again ' +
        'answers 200 with the stored set; other rubrics under that name are 409.',
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: ImportBody } } },
      },
      responses: {
        201: json('the stored rubric set', RubricSetSchema),
        200: json('the same rubric set, stored before', RubricSetSchema),
        ...writeErrors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const set = await importRubricSet(c.var.db, {
        collection: c.req.valid('param').collection,
        name: body.name,
        text: body.rubrics,
        ...(body.file ? { file: body.file } : {}),
        createdBy: c.var.user,
      });
      return set.created ? c.json(presentRubricSet(set), 201) : c.json(presentRubricSet(set), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{rubricSet}',
      tags: ['rag'],
      summary: 'A rubric set with its criteria (optionally one topic’s)',
      ...adminOnly,
      request: { params: RubricParams, query: TopicQuery },
      responses: {
        200: json(
          'the rubric set',
          RubricSetSchema.extend({ criteriaList: z.array(CriterionSchema) }),
        ),
        ...readErrors,
      },
    }),
    async (c) => {
      const p = c.req.valid('param');
      const { topic } = c.req.valid('query');
      const d = await rubricSetDetail(
        c.var.db,
        p.collection,
        p.rubricSet,
        topic === undefined ? {} : { topic },
      );
      return c.json(
        { ...presentRubricSet(d), criteriaList: d.criteriaList.map(presentCriterion) },
        200,
      );
    },
  );
