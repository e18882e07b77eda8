import {
  createConsensusLabelSet,
  deleteLabelSet,
  exportLabelsAsQrels,
  importQrels,
  listLabelsPage,
  MAX_GRADE,
  MIN_GRADE,
  listLabelSetsPage,
  SMALL_PAGE,
  LARGE_PAGE,
  getLabelSetSummary,
  type LabelSetSummary,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../core/errors.js';
import { collectionFromPath } from '../core/resolve.js';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  CollectionParam,
  NameOrId,
  LabelSchema,
  LabelSetSchema,
  QueryFlag,
  readErrors,
  uploadBody,
  writeErrors,
} from '../core/schemas.js';
import { readUpload } from '../core/upload.js';

const LabelSetParams = CollectionParam.extend({
  labelSet: z
    .string()
    .min(1)
    .openapi({ param: { name: 'labelSet', in: 'path' }, description: 'label set id or name' }),
});

const Grade = z.coerce.number().int().min(MIN_GRADE).max(MAX_GRADE);

const ImportOptions = z.object({
  name: z.string().trim().min(1).max(200).openapi({ description: 'the label set’s name' }),
  replace: QueryFlag.openapi({
    type: 'boolean',
    description: 'replace a label set of the same name (otherwise 409)',
  }),
  scaleMin: Grade.optional().openapi({ description: 'lowest grade of the scale' }),
  scaleMax: Grade.optional().openapi({ description: 'highest grade of the scale' }),
  kind: z.enum(['human', 'llm']).optional().openapi({
    description: 'who made the labels: human (default) or llm (labels judged elsewhere)',
  }),
  judge: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'the judge that wrote LLM labels (kind=llm only)' }),
  model: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'the model that wrote LLM labels (kind=llm only)' }),
});

const ConsensusRequest = z
  .object({
    name: z.string().trim().min(1).max(200).openapi({ description: 'the new label set’s name' }),
    labelSets: z
      .array(NameOrId)
      .min(2)
      .max(100)
      .openapi({
        description: 'the label sets to combine',
        example: ['gpt-4o', 'llama-70b', 'qwen'],
      }),
    method: z.enum(['majority', 'mean', 'median']).openapi({
      description: 'most frequent grade, mean rounded to the nearest grade, or median',
    }),
    minVotes: z.number().int().min(1).optional().openapi({
      description: 'only items graded by at least this many of the sets (default 1)',
    }),
    tie: z.enum(['low', 'high']).optional().openapi({
      description:
        'where a majority tie, an even median or a mean halfway between grades goes (default low)',
    }),
  })
  .openapi('ConsensusRequest');

function present(s: LabelSetSummary) {
  return {
    id: s.id,
    collectionId: s.collectionId,
    name: s.name,
    kind: s.kind,
    scaleMin: s.scaleMin,
    scaleMax: s.scaleMax,
    config: s.config as Record<string, unknown>,
    labelCount: s.labelCount,
    topicCount: s.topicCount,
    createdAt: s.createdAt.toISOString(),
  };
}

/**
 * `/api/collections/{collection}/label-sets`: sources of relevance labels (imported qrels
 * now; LLM judges and annotation campaigns later).
 */
export const labelSets = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['label sets'],
      summary: 'The label sets of a collection, with label and topic counts (cursor paging)',
      ...adminOnly,
      request: { params: CollectionParam, query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of label sets, by name (then id)', LabelSetSchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listLabelSetsPage(
        c.var.db,
        c.req.valid('param').collection,
        pageOptions(c.req.valid('query')),
      );
      linkNextPage(c, page.next);
      return c.json(page.items.map(present), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['label sets'],
      summary: 'Import TREC qrels as a human or LLM label set (all or nothing)',
      ...adminOnly,
      request: {
        params: CollectionParam,
        query: ImportOptions.partial(),
        body: uploadBody({
          name: { description: 'the label set’s name (required)' },
          replace: { description: '"true" to replace a label set of the same name' },
          scaleMin: { description: 'lowest grade (default: from the file, at most 0)' },
          scaleMax: { description: 'highest grade (default: from the file)' },
          kind: { description: 'human (default) or llm' },
          judge: { description: 'the judge that wrote LLM labels (kind=llm only)' },
          model: { description: 'the model that wrote LLM labels (kind=llm only)' },
        }),
      },
      responses: {
        201: {
          description: 'the stored label set',
          content: { 'application/json': { schema: LabelSetSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const upload = await readUpload(c, ImportOptions, 'qrels');
      const { name, replace, scaleMin, scaleMax, kind, judge, model } = upload.options;
      if ((scaleMin === undefined) !== (scaleMax === undefined))
        throw new ApiError('invalid_input', 'give both scaleMin and scaleMax, or neither');
      const result = await importQrels(c.var.db, {
        collection: collection.id,
        labelSet: name,
        text: upload.text,
        file: upload.file,
        replace,
        ...(kind === undefined ? {} : { kind }),
        ...(judge === undefined ? {} : { judge }),
        ...(model === undefined ? {} : { model }),
        ...(scaleMin === undefined || scaleMax === undefined
          ? {}
          : { scale: { min: scaleMin, max: scaleMax } }),
      });
      return c.json(present(result.labelSet), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/consensus',
      tags: ['label sets'],
      summary: 'Store the consensus (majority, mean or median) of several label sets',
      ...adminOnly,
      request: {
        params: CollectionParam,
        body: { content: { 'application/json': { schema: ConsensusRequest } }, required: true },
      },
      responses: {
        201: {
          description: 'the stored consensus label set',
          content: { 'application/json': { schema: LabelSetSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const body = c.req.valid('json');
      const result = await createConsensusLabelSet(c.var.db, {
        collection: collection.id,
        name: body.name,
        labelSets: body.labelSets,
        method: body.method,
        ...(body.minVotes === undefined ? {} : { minVotes: body.minVotes }),
        ...(body.tie === undefined ? {} : { tie: body.tie }),
      });
      const stored = await getLabelSetSummary(c.var.db, collection.id, result.labelSetId);
      return c.json(present(stored), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{labelSet}',
      tags: ['label sets'],
      summary: 'One label set (id or name) with its counts',
      ...adminOnly,
      request: { params: LabelSetParams },
      responses: {
        200: {
          description: 'the label set',
          content: { 'application/json': { schema: LabelSetSchema } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const params = c.req.valid('param');
      const set = await getLabelSetSummary(c.var.db, params.collection, params.labelSet);
      return c.json(present(set), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{labelSet}/qrels',
      tags: ['label sets'],
      summary: 'The label set as a TREC qrels download (`topic 0 docno grade`, byte order)',
      ...adminOnly,
      request: { params: LabelSetParams },
      responses: {
        200: {
          description: 'the qrels file, as an attachment named after the label set',
          content: { 'text/plain': { schema: z.string() } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const params = c.req.valid('param');
      const set = await getLabelSetSummary(c.var.db, params.collection, params.labelSet);
      // The name is the user's; only a safe subset of it reaches the header.
      const filename = `${set.name.replace(/[^A-Za-z0-9._-]/g, '_')}.qrels`;
      return c.text(await exportLabelsAsQrels(c.var.db, set.id), 200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-disposition': `attachment; filename="${filename}"`,
      });
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{labelSet}/labels',
      tags: ['label sets'],
      summary: 'The labels of a set, by topic and docno (byte order; cursor paging)',
      ...adminOnly,
      request: {
        params: LabelSetParams,
        query: z.object({
          topic: z.string().min(1).optional().openapi({ description: 'only this topic' }),
          ...pageQuery(LARGE_PAGE),
        }),
      },
      responses: {
        200: pageResponse('a page of labels, by topic and docno (byte order)', LabelSchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const params = c.req.valid('param');
      const query = c.req.valid('query');
      const page = await listLabelsPage(c.var.db, params.collection, params.labelSet, {
        ...pageOptions(query),
        ...(query.topic === undefined ? {} : { topic: query.topic }),
      });
      linkNextPage(c, page.next);
      return c.json(
        page.items.map((l) => ({
          topicId: l.topicId,
          docId: l.docId,
          grade: l.grade,
          producedBy: l.producedBy,
          rationale: l.rationale,
          createdAt: l.createdAt.toISOString(),
        })),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{labelSet}',
      tags: ['label sets'],
      summary: 'Delete a label set and its labels',
      description:
        'Admin only. A label set a campaign uses (the campaign writes it, compares with it or ' +
        'sampled by it) is kept: 409 naming the campaigns, unless `?force=true`, which deletes ' +
        'it anyway (a campaign that writes it goes with it, labels and all).',
      ...adminOnly,
      request: {
        params: LabelSetParams,
        query: z.object({
          force: QueryFlag.openapi({
            type: 'boolean',
            description: 'delete it even though campaigns use it (otherwise 409)',
          }),
        }),
      },
      responses: { 204: { description: 'deleted' }, ...writeErrors },
    }),
    async (c) => {
      const params = c.req.valid('param');
      await deleteLabelSet(c.var.db, params.collection, params.labelSet, {
        force: c.req.valid('query').force,
      });
      return c.body(null, 204);
    },
  );
