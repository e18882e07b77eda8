import {
  adjudicateItem,
  annotationItem,
  campaignAgreement,
  campaignSummary,
  createCampaign,
  listCampaignDisagreements,
  listCollectionCampaignsPage,
  SMALL_PAGE,
  listMyCampaignsPage,
  MAX_GRADE,
  MIN_GRADE,
  MAX_CAMPAIGN_ITEMS,
  nextAnnotationItem,
  nextAnnotationItems,
  MAX_NEXT_ITEMS,
  DEFAULT_INPUT_LOCK_MS,
  MAX_INPUT_LOCK_MS,
  saveAnnotationLabel,
  skipAnnotationItem,
  undoAnnotationLabel,
  type CampaignSummary,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { requireAdmin } from '../auth.js';
import { collectionFromPath } from '../resolve.js';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../paging.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  anyUser,
  CollectionParam,
  NameOrId,
  readErrors,
  TopicId,
  writeErrors,
  adminComputation,
  busyError,
} from '../schemas.js';
import { PoolSpecSchema, poolSpec } from './pools.js';

const Sampling = z
  .discriminatedUnion('mode', [
    z.object({ mode: z.literal('all') }),
    z.object({
      mode: z.literal('random'),
      perTopic: z.number().int().min(1).max(100_000),
      seed: z.number().int().optional(),
    }),
    z.object({
      mode: z.literal('stratified'),
      labelSet: NameOrId,
      perGrade: z.number().int().min(1).max(100_000),
      seed: z.number().int().optional(),
    }),
    z.object({
      mode: z.literal('disagreement'),
      labelSets: z.array(NameOrId).min(2).max(50),
      limit: z.number().int().min(1).optional(),
    }),
    z.object({
      mode: z.literal('topics'),
      topics: z.number().positive().max(1_000_000).openapi({
        description:
          'for a prediction-powered estimate: every item of this many topics (or this fraction of them, below 1), chosen uniformly with the seed as `assay ppi sample --topics`',
      }),
      seed: z.number().int().optional(),
    }),
  ])
  .openapi('CampaignSampling');

const NewCampaign = z
  .object({
    name: z.string().trim().min(1).max(200),
    pool: PoolSpecSchema.optional().openapi({ description: 'items from a pool of stored runs' }),
    items: z
      .array(z.object({ topic: TopicId, docno: z.string().min(1) }))
      .min(1)
      .max(MAX_CAMPAIGN_ITEMS)
      .optional()
      .openapi({ description: 'or an explicit item list' }),
    judge: z.string().min(1).optional().openapi({
      description: 'judge template giving the scale, grade labels and rubric',
      example: 'graded-0-3',
    }),
    scale: z
      .object({
        min: z.number().int().min(MIN_GRADE).max(MAX_GRADE),
        max: z.number().int().min(MIN_GRADE).max(MAX_GRADE),
      })
      .optional(),
    gradeLabels: z.record(z.string(), z.string().max(500)).optional(),
    rubric: z.string().max(20_000).optional(),
    annotators: z.array(NameOrId).min(1).max(1000),
    overlap: z.number().int().min(1).max(100).optional(),
    sampling: Sampling.optional(),
    compareWith: z.array(NameOrId).max(50).optional(),
    blind: z.boolean().optional(),
    title: z.string().trim().min(1).max(200).optional().openapi({
      description:
        'what annotators see of the campaign instead of its name (default: the name), e.g. a neutral title for a blind campaign named after what it compares',
    }),
    inputLockMs: z
      .number()
      .optional()
      .openapi({
        description: `how long the labelling screen ignores keys after a new item appears, in whole milliseconds from 0 (no lock) to ${MAX_INPUT_LOCK_MS} (default ${DEFAULT_INPUT_LOCK_MS}), so no grade goes to an item nobody saw`,
        example: DEFAULT_INPUT_LOCK_MS,
      }),
  })
  .openapi('NewCampaign');

const Opaque = (name: string) => z.record(z.string(), z.unknown()).openapi(name);
const CampaignSchema = Opaque('Campaign');

const IdParam = z.object({
  id: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: 'id', in: 'path' } }),
});
const ItemParams = IdParam.extend({
  item: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: 'item', in: 'path' } }),
});

function present(s: CampaignSummary) {
  return { ...s, createdAt: s.createdAt.toISOString() } as Record<string, unknown>;
}

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** `/api/collections/{collection}/campaigns`: create and list a collection's campaigns. */
export const collectionCampaigns = createRouter()
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['campaigns'],
      summary: 'Create an annotation campaign from a pool or an item list',
      description:
        'Admin only. A pool keeps only the (topic, document) pairs the collection holds; what ' +
        'it leaves out is counted and named in `leftOut`. A listed item whose topic or ' +
        'document the collection does not hold is a 422 naming them. An annotator who would ' +
        'be in a blind and a non-blind campaign over some of the same pairs is a 409 (nothing ' +
        'is created).',
      security: adminComputation.security,
      middleware: adminComputation.middleware,
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: NewCampaign } } },
      },
      responses: { 201: json(CampaignSchema, 'the campaign'), ...writeErrors, ...busyError },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const body = c.req.valid('json');
      const summary = await createCampaign(c.var.db, {
        collection: collection.id,
        name: body.name,
        annotators: body.annotators,
        ...(body.pool ? { pool: poolSpec(body.pool) } : {}),
        ...(body.items ? { items: body.items } : {}),
        ...(body.judge ? { judge: body.judge } : {}),
        ...(body.scale ? { scale: body.scale } : {}),
        ...(body.gradeLabels ? { gradeLabels: body.gradeLabels } : {}),
        ...(body.rubric !== undefined ? { rubric: body.rubric } : {}),
        ...(body.overlap ? { overlap: body.overlap } : {}),
        ...(body.sampling ? { sampling: body.sampling } : {}),
        ...(body.compareWith ? { compareWith: body.compareWith } : {}),
        ...(body.blind !== undefined ? { blind: body.blind } : {}),
        ...(body.title !== undefined ? { title: body.title } : {}),
        ...(body.inputLockMs !== undefined ? { inputLockMs: body.inputLockMs } : {}),
      });
      return c.json(present(summary), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['campaigns'],
      summary: 'The campaigns of a collection with per-annotator progress (cursor paging)',
      ...adminOnly,
      request: { params: CollectionParam, query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of campaigns, newest first (by id)', CampaignSchema),
        ...writeErrors,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const page = await listCollectionCampaignsPage(
        c.var.db,
        collection.id,
        pageOptions(c.req.valid('query')),
      );
      linkNextPage(c, page.next);
      return c.json(page.items.map(present), 200);
    },
  );

/**
 * `/api/campaigns`: a campaign's state and agreement (admins), and the annotator's API:
 * next item, save, undo, skip. Annotators reach only their own items.
 */
export const campaigns = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['campaigns'],
      summary: 'The campaigns the caller has items in, with their own progress (cursor paging)',
      ...anyUser,
      request: { query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of campaigns, newest first (by id)', Opaque('MyCampaign')),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listMyCampaignsPage(
        c.var.db,
        c.get('user'),
        pageOptions(c.req.valid('query')),
      );
      linkNextPage(c, page.next);
      return c.json(page.items, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      tags: ['campaigns'],
      summary: 'A campaign with per-annotator progress',
      ...adminOnly,
      request: { params: IdParam },
      responses: { 200: json(CampaignSchema, 'the campaign'), ...writeErrors },
    }),
    async (c) => c.json(present(await campaignSummary(c.var.db, c.req.valid('param').id)), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/agreement',
      tags: ['campaigns'],
      summary: 'Agreement among annotators and with the compared label sets',
      description:
        'Admin only. Reports have the shape of `assay agree --format json`; NaN (undefined) values are null.',
      middleware: [requireAdmin],
      security: [{ bearerAuth: [] }],
      request: { params: IdParam },
      responses: { 200: json(Opaque('CampaignAgreement'), 'the agreement'), ...writeErrors },
    }),
    async (c) =>
      c.json(
        JSON.parse(
          JSON.stringify(await campaignAgreement(c.var.db, c.req.valid('param').id)),
        ) as Record<string, unknown>,
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/next',
      tags: ['campaigns'],
      summary: 'The caller’s next item, or 204 when none is left',
      ...anyUser,
      request: { params: IdParam },
      responses: {
        200: json(Opaque('AnnotationItem'), 'the item, scale, rubric and progress'),
        204: { description: 'every item is labelled' },
        ...readErrors,
      },
    }),
    async (c) => {
      const next = await nextAnnotationItem(c.var.db, c.req.valid('param').id, c.get('user'));
      c.header('cache-control', 'no-store');
      if (!next) return c.body(null, 204);
      return c.json(next as unknown as Record<string, unknown>, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/next-items',
      tags: ['campaigns'],
      summary: 'The caller’s next items in the order they are served (empty when none is left)',
      description:
        'What the labelling screen fetches ahead, so the next item shows from memory: up to ' +
        '`count` items (default 5, at most ' +
        `${MAX_NEXT_ITEMS}), each as \`GET /next\` gives it, and the caller's progress.`,
      ...anyUser,
      request: {
        params: IdParam,
        query: z.object({
          count: z.coerce
            .number()
            .int()
            .min(1)
            .max(MAX_NEXT_ITEMS)
            .optional()
            .openapi({ param: { name: 'count', in: 'query' }, example: 5 }),
        }),
      },
      responses: {
        200: json(Opaque('NextAnnotationItems'), 'the items and progress'),
        ...readErrors,
      },
    }),
    async (c) => {
      const next = await nextAnnotationItems(
        c.var.db,
        c.req.valid('param').id,
        c.get('user'),
        c.req.valid('query').count ?? 5,
      );
      c.header('cache-control', 'no-store');
      return c.json(next as unknown as Record<string, unknown>, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/items/{item}',
      tags: ['campaigns'],
      summary: 'One of the caller’s items with their current grade',
      ...anyUser,
      request: { params: ItemParams },
      responses: { 200: json(Opaque('AnnotationItemWithGrade'), 'the item'), ...readErrors },
    }),
    async (c) => {
      const { id, item } = c.req.valid('param');
      const found = await annotationItem(c.var.db, id, item, c.get('user'));
      return c.json(found as unknown as Record<string, unknown>, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/labels',
      tags: ['campaigns'],
      summary: 'Save the caller’s grade of one of their items (a new revision)',
      ...anyUser,
      request: {
        params: IdParam,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z.object({
                item: z.number().int().positive(),
                grade: z.number().int(),
                seconds: z.number().min(0).max(86_400).optional(),
              }),
            },
          },
        },
      },
      responses: {
        201: json(Opaque('SavedLabel'), 'the saved label and progress'),
        ...writeErrors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const saved = await saveAnnotationLabel(c.var.db, c.req.valid('param').id, c.get('user'), {
        item: body.item,
        grade: body.grade,
        ...(body.seconds === undefined ? {} : { seconds: body.seconds }),
      });
      return c.json(saved as unknown as Record<string, unknown>, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/labels/{item}/undo',
      tags: ['campaigns'],
      summary: 'Undo the caller’s latest change to an item (a new revision)',
      ...anyUser,
      request: { params: ItemParams },
      responses: { 200: json(Opaque('UndoneLabel'), 'the label as restored'), ...writeErrors },
    }),
    async (c) => {
      const { id, item } = c.req.valid('param');
      const saved = await undoAnnotationLabel(c.var.db, id, c.get('user'), item);
      return c.json(saved as unknown as Record<string, unknown>, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/skip',
      tags: ['campaigns'],
      summary: 'Put an unlabelled item at the back of the caller’s queue',
      ...anyUser,
      request: {
        params: IdParam,
        body: {
          required: true,
          content: {
            'application/json': { schema: z.object({ item: z.number().int().positive() }) },
          },
        },
      },
      responses: { 200: json(Opaque('SkippedItem'), 'the item and progress'), ...writeErrors },
    }),
    async (c) => {
      const saved = await skipAnnotationItem(
        c.var.db,
        c.req.valid('param').id,
        c.get('user'),
        c.req.valid('json').item,
      );
      return c.json(saved as unknown as Record<string, unknown>, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/disagreements',
      tags: ['campaigns'],
      summary: 'Items whose annotators gave different grades, with each grade (to adjudicate)',
      ...adminOnly,
      request: {
        params: IdParam,
        query: z.object({
          labelSets: z
            .enum(['0', '1'])
            .optional()
            .openapi({ description: '1: add the compared label sets’ grades of each item' }),
        }),
      },
      responses: {
        200: json(z.array(Opaque('Disagreement')), 'the items, in the campaign’s order'),
        ...readErrors,
      },
    }),
    async (c) => {
      const items = await listCampaignDisagreements(c.var.db, c.req.valid('param').id, {
        withLabelSets: c.req.valid('query').labelSets === '1',
      });
      return c.json(items as unknown as Array<Record<string, unknown>>, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/items/{item}/adjudicate',
      tags: ['campaigns'],
      summary: 'Decide an item’s campaign label (null hands it back to the majority)',
      ...adminOnly,
      request: {
        params: ItemParams,
        body: {
          required: true,
          content: {
            'application/json': { schema: z.object({ grade: z.number().int().nullable() }) },
          },
        },
      },
      responses: { 200: json(Opaque('Adjudication'), 'the item’s campaign label'), ...writeErrors },
    }),
    async (c) => {
      const { id, item } = c.req.valid('param');
      const result = await adjudicateItem(c.var.db, id, c.get('user'), {
        item,
        grade: c.req.valid('json').grade,
      });
      return c.json(result, 200);
    },
  );
