import {
  addCampaignAnnotators,
  adjudicateItem,
  adjudicationItem,
  campaignDeletionPreview,
  closeCampaign,
  deleteCampaign,
  removeCampaignAnnotator,
  reopenCampaign,
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
  ITEM_FLAGS,
  listCampaignNotes,
  listMyLabelledItemsPage,
  MAX_NOTE_LENGTH,
  myItemNote,
  nextAnnotationItem,
  nextAnnotationItems,
  MAX_NEXT_ITEMS,
  DEFAULT_INPUT_LOCK_MS,
  MAX_INPUT_LOCK_MS,
  saveAnnotationLabel,
  saveMyItemNote,
  skipAnnotationItem,
  undoAnnotationLabel,
  type CampaignSummary,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { collectionFromPath } from '../core/resolve.js';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  annotatorRoute,
  CollectionParam,
  json,
  NameOrId,
  readErrors,
  TopicId,
  writeErrors,
  adminComputation,
  busyError,
  QueryFlag,
} from '../core/schemas.js';
import {
  AddedAnnotatorsSchema,
  AdjudicationItemSchema,
  AdjudicationSchema,
  AnnotationItemSchema,
  AnnotationItemWithGradeSchema,
  CampaignAgreementSchema,
  CampaignDeletionSchema,
  CampaignNoteSchema,
  CampaignSchema,
  DisagreementSchema,
  HistoryItemSchema,
  ItemNoteSchema,
  MyCampaignSchema,
  NextAnnotationItemsSchema,
  RemovedAnnotatorSchema,
  SavedLabelSchema,
} from './schemas.js';
import { PoolSpecSchema, poolSpec } from '../catalog/schemas.js';

const Sampling = z
  .discriminatedUnion('mode', [
    z.object({ mode: z.literal('all') }),
    z.object({
      mode: z.literal('random'),
      perTopic: z
        .number()
        .int('items per topic is a whole number')
        .min(1, 'random sampling takes at least 1 item per topic')
        .max(100_000, 'random sampling takes at most 100000 items per topic'),
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
      labelSets: z
        .array(NameOrId)
        .min(2, 'disagreement-first sampling needs two label sets to compare')
        .max(50, 'disagreement-first sampling compares at most 50 label sets'),
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
    name: z
      .string()
      .trim()
      .min(1, 'a campaign needs a name')
      .max(200, 'a campaign name has at most 200 characters'),
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
    annotators: z
      .array(NameOrId)
      .min(1, 'a campaign needs at least one annotator')
      .max(1000, 'a campaign has at most 1000 annotators'),
    overlap: z
      .number()
      .int('overlap (annotators per item) is a whole number')
      .min(1, 'overlap (annotators per item) is at least 1')
      .max(100, 'overlap (annotators per item) is at most 100')
      .optional(),
    sampling: Sampling.optional(),
    compareWith: z.array(NameOrId).max(50).optional(),
    blind: z.boolean().optional(),
    title: z.string().trim().min(1).max(200).optional().openapi({
      description:
        'what annotators see of the campaign instead of its name (default: the name), e.g. a neutral title for a blind campaign named after what it compares',
    }),
    topicByTopic: z.boolean().optional().openapi({
      description:
        'serve each annotator one topic’s items before the next topic’s, as TREC assessors judge (default false: the sampling’s order); stored as `settings.order: "topic"`',
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
  return { ...s, createdAt: s.createdAt.toISOString() };
}

const NoteBody = z
  .object({
    flag: z
      .enum(ITEM_FLAGS as [string, ...string[]])
      .nullable()
      .optional()
      .openapi({ description: 'broken: the passage is broken; unsure: not sure of the grade' }),
    note: z.string().max(MAX_NOTE_LENGTH).optional(),
  })
  .openapi('ItemNoteInput');

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
      ...adminComputation,
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: NewCampaign } } },
      },
      responses: { 201: json('the campaign', CampaignSchema), ...writeErrors, ...busyError },
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
        ...(body.topicByTopic !== undefined ? { topicByTopic: body.topicByTopic } : {}),
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
      ...annotatorRoute,
      request: { query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of campaigns, newest first (by id)', MyCampaignSchema),
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
      responses: { 200: json('the campaign', CampaignSchema), ...writeErrors },
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
      ...adminOnly,
      request: { params: IdParam },
      responses: { 200: json('the agreement', CampaignAgreementSchema), ...writeErrors },
    }),
    async (c) =>
      c.json(
        JSON.parse(JSON.stringify(await campaignAgreement(c.var.db, c.req.valid('param').id))),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/next',
      tags: ['campaigns'],
      summary: 'The caller’s next item, or 204 when none is left',
      ...annotatorRoute,
      request: { params: IdParam },
      responses: {
        200: json('the item, scale, rubric and progress', AnnotationItemSchema),
        204: { description: 'every item is labelled' },
        ...readErrors,
      },
    }),
    async (c) => {
      const next = await nextAnnotationItem(c.var.db, c.req.valid('param').id, c.get('user'));
      c.header('cache-control', 'no-store');
      if (!next) return c.body(null, 204);
      return c.json(next, 200);
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
      ...annotatorRoute,
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
        200: json('the items and progress', NextAnnotationItemsSchema),
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
      return c.json(next, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/items/{item}',
      tags: ['campaigns'],
      summary: 'One of the caller’s items with their current grade',
      ...annotatorRoute,
      request: { params: ItemParams },
      responses: { 200: json('the item', AnnotationItemWithGradeSchema), ...readErrors },
    }),
    async (c) => {
      const { id, item } = c.req.valid('param');
      const found = await annotationItem(c.var.db, id, item, c.get('user'));
      return c.json(found, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/labels',
      tags: ['campaigns'],
      summary: 'Save the caller’s grade of one of their items (a new revision)',
      ...annotatorRoute,
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
        201: json('the saved label and progress', SavedLabelSchema),
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
      return c.json(saved, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/labels/{item}/undo',
      tags: ['campaigns'],
      summary: 'Undo the caller’s latest change to an item (a new revision)',
      ...annotatorRoute,
      request: { params: ItemParams },
      responses: { 200: json('the label as restored', SavedLabelSchema), ...writeErrors },
    }),
    async (c) => {
      const { id, item } = c.req.valid('param');
      const saved = await undoAnnotationLabel(c.var.db, id, c.get('user'), item);
      return c.json(saved, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/skip',
      tags: ['campaigns'],
      summary: 'Put an unlabelled item at the back of the caller’s queue',
      ...annotatorRoute,
      request: {
        params: IdParam,
        body: {
          required: true,
          content: {
            'application/json': { schema: z.object({ item: z.number().int().positive() }) },
          },
        },
      },
      responses: { 200: json('the item and progress', SavedLabelSchema), ...writeErrors },
    }),
    async (c) => {
      const saved = await skipAnnotationItem(
        c.var.db,
        c.req.valid('param').id,
        c.get('user'),
        c.req.valid('json').item,
      );
      return c.json(saved, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/history',
      tags: ['campaigns'],
      summary: 'The items the caller labelled, most recently changed first (cursor paging)',
      description:
        'Each with the caller’s own grade, seconds spent, when it was last changed and their ' +
        'note; nobody else’s grade. Open one with `GET /api/campaigns/{id}/items/{item}` and ' +
        'relabel it with `POST /api/campaigns/{id}/labels` (a new revision).',
      ...annotatorRoute,
      request: { params: IdParam, query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of labelled items', HistoryItemSchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listMyLabelledItemsPage(
        c.var.db,
        c.req.valid('param').id,
        c.get('user'),
        pageOptions(c.req.valid('query')),
      );
      c.header('cache-control', 'no-store');
      linkNextPage(c, page.next);
      return c.json(page.items, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/items/{item}/note',
      tags: ['campaigns'],
      summary: 'The caller’s note and flag on one of their items (empty when none)',
      ...annotatorRoute,
      request: { params: ItemParams },
      responses: { 200: json('the note', ItemNoteSchema), ...readErrors },
    }),
    async (c) => {
      const { id, item } = c.req.valid('param');
      const note = await myItemNote(c.var.db, id, item, c.get('user'));
      return c.json(note, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/{id}/items/{item}/note',
      tags: ['campaigns'],
      summary: 'Set the caller’s note and flag on one of their items (none and empty: remove)',
      description:
        'The campaign’s admins see it (`GET /api/campaigns/{id}/notes` and the campaign page); ' +
        'other annotators do not.',
      ...annotatorRoute,
      request: {
        params: ItemParams,
        body: { required: true, content: { 'application/json': { schema: NoteBody } } },
      },
      responses: { 200: json('the note as stored', ItemNoteSchema), ...writeErrors },
    }),
    async (c) => {
      const { id, item } = c.req.valid('param');
      const body = c.req.valid('json');
      const note = await saveMyItemNote(c.var.db, id, item, c.get('user'), {
        flag: body.flag ?? null,
        note: body.note ?? '',
      });
      return c.json(note, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/notes',
      tags: ['campaigns'],
      summary: 'Every annotator’s notes and flags on the campaign’s items, newest first',
      ...adminOnly,
      request: { params: IdParam },
      responses: {
        200: json('who flagged or noted what, and when', z.array(CampaignNoteSchema)),
        ...readErrors,
      },
    }),
    async (c) => {
      const notes = await listCampaignNotes(c.var.db, c.req.valid('param').id);
      return c.json(notes, 200);
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
        200: json('the items, in the campaign’s order', z.array(DisagreementSchema)),
        ...readErrors,
      },
    }),
    async (c) => {
      const items = await listCampaignDisagreements(c.var.db, c.req.valid('param').id, {
        withLabelSets: c.req.valid('query').labelSets === '1',
      });
      return c.json(items, 200);
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
      responses: { 200: json('the item’s campaign label', AdjudicationSchema), ...writeErrors },
    }),
    async (c) => {
      const { id, item } = c.req.valid('param');
      const result = await adjudicateItem(c.var.db, id, c.get('user'), {
        item,
        grade: c.req.valid('json').grade,
      });
      return c.json(result, 200);
    },
  ) // --- Campaigns as objects: close, reopen, annotators, deletion; the adjudicator's item ---
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/adjudication/{item}',
      tags: ['campaigns'],
      summary: 'One item with its query, passage and every annotator’s grade (to adjudicate)',
      description:
        'Admin only. `status` says how the label stands: `tie` (the most given grades are ' +
        'given equally often, e.g. two annotators grading 1 and 2; the label takes the lower ' +
        'grade until decided), `majority`, `adjudicated`, `agreed` or `unlabelled`.',
      ...adminOnly,
      request: {
        params: ItemParams,
        query: z.object({
          labelSets: z
            .enum(['0', '1'])
            .optional()
            .openapi({ description: '1: add the compared label sets’ grades' }),
        }),
      },
      responses: { 200: json('the item', AdjudicationItemSchema), ...readErrors },
    }),
    async (c) => {
      const { id, item } = c.req.valid('param');
      const found = await adjudicationItem(c.var.db, id, item, {
        withLabelSets: c.req.valid('query').labelSets === '1',
      });
      return c.json(found, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/close',
      tags: ['campaigns'],
      summary: 'Close a campaign: annotators can no longer label in it (labels are kept)',
      description:
        'Admin only. While closed, saving, undoing or skipping a label and asking for the next ' +
        'item are a 409 "campaign closed"; adjudication goes on. Closing twice changes nothing.',
      ...adminOnly,
      request: { params: IdParam },
      responses: { 200: json('the campaign, with `closed`', CampaignSchema), ...writeErrors },
    }),
    async (c) =>
      c.json(present(await closeCampaign(c.var.db, c.req.valid('param').id, c.get('user'))), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/reopen',
      tags: ['campaigns'],
      summary: 'Reopen a closed campaign',
      ...adminOnly,
      request: { params: IdParam },
      responses: { 200: json('the campaign', CampaignSchema), ...writeErrors },
    }),
    async (c) => c.json(present(await reopenCampaign(c.var.db, c.req.valid('param').id)), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/annotators',
      tags: ['campaigns'],
      summary: 'Add annotators to a campaign (or bring back removed ones)',
      description:
        'Admin only. Each gets the items with fewer than `overlap` annotators (those left by ' +
        'someone removed), or with `allItems` every item they lack. Someone who would then be ' +
        'in a blind and a non-blind campaign over the same pairs is a 409 (nobody is added).',
      ...adminOnly,
      request: {
        params: IdParam,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z.object({
                annotators: z.array(NameOrId).min(1).max(1000),
                allItems: z.boolean().optional(),
              }),
            },
          },
        },
      },
      responses: {
        200: json('the items each was given, and the campaign', AddedAnnotatorsSchema),
        ...writeErrors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const result = await addCampaignAnnotators(c.var.db, c.req.valid('param').id, {
        annotators: body.annotators,
        ...(body.allItems === undefined ? {} : { allItems: body.allItems }),
      });
      return c.json({ added: result.added, campaign: present(result.campaign) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{id}/annotators/{user}',
      tags: ['campaigns'],
      summary: 'Remove an annotator from a campaign (the labels they gave are kept)',
      description:
        'Admin only. Their unlabelled items are taken back; they can no longer label in the ' +
        'campaign (409). The response says how many labels were kept.',
      ...adminOnly,
      request: {
        params: IdParam.extend({
          user: z
            .string()
            .min(1)
            .openapi({ param: { name: 'user', in: 'path' } }),
        }),
      },
      responses: {
        200: json('labels kept, items taken back', RemovedAnnotatorSchema),
        ...writeErrors,
      },
    }),
    async (c) => {
      const { id, user } = c.req.valid('param');
      const result = await removeCampaignAnnotator(c.var.db, id, user);
      return c.json({ ...result, campaign: present(result.campaign) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/deletion',
      tags: ['campaigns'],
      summary: 'What deleting the campaign would delete (items, labels, its label set)',
      ...adminOnly,
      request: { params: IdParam },
      responses: { 200: json('what would go', CampaignDeletionSchema), ...writeErrors },
    }),
    async (c) => {
      const preview = await campaignDeletionPreview(c.var.db, c.req.valid('param').id);
      return c.json(preview, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{id}',
      tags: ['campaigns'],
      summary: 'Delete a campaign with its items, labels and label set',
      description:
        'Admin only. When another campaign compares with its label set or sampled by it, 409 ' +
        'naming them unless `?force=true`. The response names what was deleted.',
      ...adminOnly,
      request: {
        params: IdParam,
        query: z.object({
          force: QueryFlag.openapi({
            type: 'boolean',
            description: 'delete it even though other campaigns use its label set',
          }),
        }),
      },
      responses: { 200: json('what was deleted', CampaignDeletionSchema), ...writeErrors },
    }),
    async (c) => {
      const deleted = await deleteCampaign(c.var.db, c.req.valid('param').id, {
        force: c.req.valid('query').force,
      });
      return c.json(deleted, 200);
    },
  );
// --- end of campaigns as objects ---
