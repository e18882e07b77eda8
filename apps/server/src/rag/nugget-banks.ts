import {
  createNuggetBankWithLlm,
  editNuggetBank,
  exportNuggetBank,
  importNuggetBank,
  listCollectionNuggetBanks,
  loadJudgeTemplate,
  nuggetBankDetail,
  removeNuggetBank,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { serverLlmStep } from '../core/llm-steps.js';
import {
  NuggetBankSchema,
  NuggetBankVersionSchema,
  NuggetEditSchema,
  NuggetSchema,
  presentBank,
  presentNugget,
  presentStep,
  presentVersion,
  StepReportSchema,
} from './schemas.js';
import { createRouter } from '../router.js';
import { adminOnly, CollectionParam, json, readErrors, writeErrors } from '../core/schemas.js';

const BankParams = CollectionParam.extend({
  bank: z
    .string()
    .min(1)
    .openapi({ param: { name: 'bank', in: 'path' }, description: 'the nugget bank’s name' }),
});

const VersionQuery = z.object({
  version: z.coerce.number().int().min(1).optional().openapi({ description: 'default the latest' }),
  topic: z.string().min(1).optional().openapi({ description: 'only this topic’s nuggets' }),
});

const Jsonl = z
  .string()
  .min(1)
  .max(200 * 1024 * 1024);

const ImportBody = z
  .object({
    name: z.string().trim().min(1).max(200).openapi({ example: 'rag25-nist' }),
    nuggets: Jsonl.openapi({ description: 'JSONL {"qid","nuggets":[{"text","importance",…}]}' }),
    file: z.string().min(1).max(200).optional().openapi({ description: 'name used in errors' }),
  })
  .openapi('ImportNuggetBank');

const CreateBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    labelSet: z.union([z.string().min(1), z.number().int().positive()]),
    minGrade: z.number().int().optional().openapi({ description: 'default 1' }),
    topics: z.array(z.string().min(1)).max(10000).optional(),
    model: z.string().min(1).optional().openapi({ description: 'default ASSAY_JUDGE_MODEL' }),
    batchSize: z.number().int().min(1).max(100).optional(),
    maxNuggets: z.number().int().min(1).max(200).optional(),
    scoreBatch: z.number().int().min(1).max(100).optional(),
    dryRun: z.boolean().optional(),
    budgetUsd: z.number().min(0).optional(),
  })
  .openapi('CreateNuggetBank');

const StoredVersion = z.object({
  bank: NuggetBankSchema,
  created: z.boolean().openapi({ description: 'false: the latest version held these nuggets' }),
});

/** `/api/collections/{collection}/nugget-banks`: nugget banks, their versions and edits. */
export const nuggetBanks = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['rag'],
      summary: 'The collection’s nugget banks with their latest version',
      ...adminOnly,
      request: { params: CollectionParam },
      responses: {
        200: json('the nugget banks, by name', z.array(NuggetBankSchema)),
        ...readErrors,
      },
    }),
    async (c) => {
      const banks = await listCollectionNuggetBanks(c.var.db, c.req.valid('param').collection);
      return c.json(
        banks.map((b) => presentBank(b, b.latest)),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['rag'],
      summary: 'Import a nugget bank file as the bank’s next version',
      ...adminOnly,
      description:
        'Admin only. The file is checked whole first (a bad line is 422 `file:line: reason`); ' +
        'unknown fields are kept. The same nuggets again store no new version (200).',
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: ImportBody } } },
      },
      responses: {
        201: json('the new version', StoredVersion),
        200: json('unchanged: the latest version holds these nuggets', StoredVersion),
        ...writeErrors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const stored = await importNuggetBank(c.var.db, {
        collection: c.req.valid('param').collection,
        bank: body.name,
        text: body.nuggets,
        ...(body.file ? { file: body.file } : {}),
        createdBy: c.var.user,
      });
      const out = { bank: presentBank(stored.bank, stored.version), created: stored.created };
      return stored.created ? c.json(out, 201) : c.json(out, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/create',
      tags: ['rag'],
      summary: 'Make a nugget bank with an LLM from a label set’s relevant passages',
      ...adminOnly,
      description:
        'Admin only. The AutoNuggetizer steps (passages in batches, the list updated after ' +
        'each, at most 30 nuggets, then vital or okay) with the server’s model endpoint; ' +
        'every call is stored, so asking again costs nothing. `dryRun` sends nothing and ' +
        'answers the calls and cost it would spend.',
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: CreateBody } } },
      },
      responses: {
        200: json(
          'what was made',
          z.object({
            report: StepReportSchema,
            version: NuggetBankVersionSchema.nullable(),
            topics: z.array(
              z.object({
                topicId: z.string(),
                status: z.enum(['created', 'failed', 'not_sent']),
                reason: z.string().optional(),
                nuggets: z.number().int().optional(),
              }),
            ),
            skipped: z.array(z.object({ topic: z.string(), reason: z.string() })),
          }),
        ),
        ...writeErrors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const creator = loadJudgeTemplate('nugget-create');
      const { deps, model } = serverLlmStep(c.var.config, c.var.db, {
        model: body.model,
        templateModel: creator.model.name,
        budgetUsd: body.budgetUsd,
        dryRun: body.dryRun,
      });
      const result = await createNuggetBankWithLlm(c.var.db, deps, {
        collection: c.req.valid('param').collection,
        bank: body.name,
        labelSet: body.labelSet,
        ...(body.minGrade === undefined ? {} : { minGrade: body.minGrade }),
        ...(body.topics ? { topics: body.topics } : {}),
        creator,
        scorer: loadJudgeTemplate('nugget-importance'),
        ...(body.batchSize ? { batchSize: body.batchSize } : {}),
        ...(body.maxNuggets ? { maxNuggets: body.maxNuggets } : {}),
        ...(body.scoreBatch ? { scoreBatch: body.scoreBatch } : {}),
        settings: { model },
        ...(body.dryRun ? { dryRun: true } : {}),
        ...(body.budgetUsd === undefined ? {} : { budgetUsd: body.budgetUsd }),
        createdBy: c.var.user,
      });
      return c.json(
        {
          report: presentStep(result.report),
          version: result.stored ? presentVersion(result.stored.version) : null,
          topics: result.topics.map((t) => ({
            topicId: t.topicId,
            status: t.status,
            ...(t.status === 'failed' ? { reason: t.reason } : {}),
            ...(t.status === 'created' ? { nuggets: t.nuggets.length } : {}),
          })),
          skipped: result.skipped,
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{bank}',
      tags: ['rag'],
      summary: 'A bank version (default the latest) with its nuggets and every version',
      ...adminOnly,
      request: { params: BankParams, query: VersionQuery },
      responses: {
        200: json(
          'the bank version',
          z.object({
            bank: NuggetBankSchema,
            version: NuggetBankVersionSchema,
            versions: z.array(NuggetBankVersionSchema),
            topics: z.array(z.string()),
            nuggets: z.array(NuggetSchema),
          }),
        ),
        ...readErrors,
      },
    }),
    async (c) => {
      const p = c.req.valid('param');
      const q = c.req.valid('query');
      const d = await nuggetBankDetail(
        c.var.db,
        { collection: p.collection, bank: p.bank, ...(q.version ? { version: q.version } : {}) },
        q.topic === undefined ? {} : { topic: q.topic },
      );
      return c.json(
        {
          bank: presentBank(d.bank, d.versions.at(-1) ?? null),
          version: presentVersion(d.version),
          versions: d.versions.map(presentVersion),
          topics: d.topics,
          nuggets: d.nuggets.map(presentNugget),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{bank}/export',
      tags: ['rag'],
      summary: 'A bank version as JSONL, unknown fields as imported',
      ...adminOnly,
      request: { params: BankParams, query: VersionQuery.pick({ version: true }) },
      responses: {
        200: {
          description: 'JSONL, one topic a line',
          content: { 'text/plain': { schema: z.string() } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const p = c.req.valid('param');
      const { version } = c.req.valid('query');
      const text = await exportNuggetBank(c.var.db, {
        collection: p.collection,
        bank: p.bank,
        ...(version ? { version } : {}),
      });
      return c.text(text, 200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{bank}/edits',
      tags: ['rag'],
      summary: 'Edit the latest version’s nuggets: add, edit, merge, split, delete, move',
      ...adminOnly,
      description:
        'Admin only. `version` must be the latest (else 409: reload). When it is frozen (an ' +
        'assessment uses it) the edit goes to a new version copied from it. Every nugget ' +
        'touched records who changed what.',
      request: {
        params: BankParams,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z.object({ version: z.number().int().min(1), edit: NuggetEditSchema }),
            },
          },
        },
      },
      responses: {
        200: json(
          'the topic’s nuggets after the edit',
          z.object({
            version: NuggetBankVersionSchema,
            newVersion: z.boolean(),
            topic: z.string(),
            nuggets: z.array(NuggetSchema),
          }),
        ),
        ...writeErrors,
      },
    }),
    async (c) => {
      const p = c.req.valid('param');
      const body = c.req.valid('json');
      const r = await editNuggetBank(
        c.var.db,
        { collection: p.collection, bank: p.bank, version: body.version },
        body.edit,
        c.var.user,
      );
      return c.json(
        {
          version: presentVersion(r.version),
          newVersion: r.newVersion,
          topic: r.topic,
          nuggets: r.nuggets.map(presentNugget),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{bank}',
      tags: ['rag'],
      summary: 'Delete a nugget bank with its versions and the assessment sets made on them',
      ...adminOnly,
      request: { params: BankParams },
      responses: { 204: { description: 'deleted' }, ...writeErrors },
    }),
    async (c) => {
      const p = c.req.valid('param');
      await removeNuggetBank(c.var.db, { collection: p.collection, bank: p.bank });
      return c.body(null, 204);
    },
  );
