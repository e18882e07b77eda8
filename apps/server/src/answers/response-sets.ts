import {
  answerJudgeTemplate,
  getHandScores,
  getResponseSetDetail,
  giveHandScore,
  importResponseSet,
  importScoreSet,
  listStoredResponseSetsPage,
  SMALL_PAGE,
  removeResponseSet,
  scoreResponseSet,
  type HandScore,
  type ResponseSet,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { serverLlmStep } from '../core/llm-steps.js';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import { adminOnly, json, readErrors, TopicQuery, writeErrors } from '../core/schemas.js';
import { presentScoreSet, ScoreSetSchema } from './schemas.js';

const Timestamp = z.string().openapi({ format: 'date-time' });

const ResponseSetSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    provenance: z.record(z.string(), z.unknown()),
    responses: z.number().int(),
    topics: z.number().int(),
    systems: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('ResponseSet');

const AnswerSchema = z.object({
  topicId: z.string(),
  system: z.string(),
  query: z.string().nullable(),
  answer: z.string(),
  references: z.array(z.string()).nullable(),
  sentences: z
    .array(z.object({ text: z.string(), citations: z.array(z.string()) }))
    .nullable()
    .openapi({ description: 'the answer as sentences with the passage ids each cites' }),
});

const ResponseSetParam = z.object({
  responseSet: z
    .string()
    .min(1)
    .openapi({ param: { name: 'responseSet', in: 'path' }, example: 'cqed-answers' }),
});

const Name = z.string().trim().min(1).max(200);

const JudgeId = z.string().min(1).max(200).openapi({ example: 'answer-quality' });

const HandScoresQuery = z.object({
  judge: JudgeId.openapi({ description: 'the judge template whose criteria are scored' }),
  topic: z.string().min(1).optional().openapi({ description: 'only this topic' }),
});

const HandScoreSchema = z
  .object({
    topicId: z.string(),
    system: z.string(),
    criterion: z.string(),
    grade: z.number().int(),
    updatedAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('HandScore');

const HandScoresSchema = z.object({
  responseSet: z.object({ id: z.number().int(), name: z.string() }),
  rubric: z.object({
    judgeId: z.string(),
    description: z.string(),
    criteria: z.array(z.string()),
    scale: z.object({ min: z.number().int(), max: z.number().int() }),
    instructions: z.string(),
  }),
  scores: z.array(HandScoreSchema),
});

const HandScoreBody = z
  .object({
    judge: JudgeId,
    topic: z.string().min(1).max(1000),
    system: z.string().min(1).max(1000),
    criterion: z.string().min(1).max(200),
    grade: z.number().int(),
  })
  .strict();

function presentHandScore(s: HandScore) {
  return { ...s, updatedAt: s.updatedAt.toISOString() };
}
const Jsonl = z
  .string()
  .min(1)
  .max(200 * 1024 * 1024);

const ImportResponsesBody = z
  .object({
    name: Name.openapi({ example: 'cqed-answers' }),
    responses: Jsonl.openapi({
      description: 'JSONL, one {"topic","system","answer","query"?,"references"?} per line',
    }),
    file: z.string().min(1).max(200).optional().openapi({ description: 'name used in errors' }),
  })
  .openapi('ImportResponseSet');

const ScoreBody = z
  .object({
    name: Name.openapi({ example: 'answer-quality-comparative' }),
    judge: z.string().min(1).openapi({ example: 'answer-quality' }),
    mode: z
      .enum(['pointwise', 'comparative'])
      .optional()
      .openapi({ description: 'default pointwise' }),
    model: z.string().min(1).optional().openapi({ description: 'default ASSAY_JUDGE_MODEL' }),
    temperature: z.number().min(0).max(2).optional(),
    trials: z.number().int().min(1).max(20).optional(),
    examples: Jsonl.optional().openapi({
      description: 'JSONL of answers graded by people {"query","answer","scores","justification"?}',
    }),
    exampleSets: z.number().int().min(1).max(50).optional(),
    gold: Jsonl.optional().openapi({ description: 'JSONL {"topic","answer"}' }),
    seed: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'comparative order seed (default 42)' }),
  })
  .openapi('ScoreResponseSet');

const ImportScoresBody = z
  .object({
    name: Name,
    scores: Jsonl.openapi({ description: 'a score file as `assay answers score` writes it' }),
    judge: z.string().min(1).max(100).optional(),
    file: z.string().min(1).max(200).optional(),
  })
  .openapi('ImportScoreSet');

function presentResponseSet(s: ResponseSet) {
  return {
    id: s.id,
    name: s.name,
    provenance: s.provenance as Record<string, unknown>,
    responses: s.responses,
    topics: s.topics,
    systems: s.systems,
    createdAt: s.createdAt.toISOString(),
  };
}

/**
 * `/api/response-sets`: generated answers of several systems (imported JSONL), and their
 * score sets (scored here with a judge, or imported from `assay answers score`).
 */
export const responseSets = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['answers'],
      summary: 'Response sets, newest first, with counts (cursor paging)',
      ...adminOnly,
      request: { query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of response sets, newest first (by id)', ResponseSetSchema),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listStoredResponseSetsPage(c.var.db, pageOptions(c.req.valid('query')));
      linkNextPage(c, page.next);
      return c.json(page.items.map(presentResponseSet), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['answers'],
      summary: 'Import a responses file as a response set',
      ...adminOnly,
      description:
        'Admin only. The whole file is checked first; a bad line is 422 `file:line: reason` and nothing is stored.',
      request: {
        body: { required: true, content: { 'application/json': { schema: ImportResponsesBody } } },
      },
      responses: { 201: json('the stored response set', ResponseSetSchema), ...writeErrors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const set = await importResponseSet(c.var.db, {
        name: body.name,
        text: body.responses,
        ...(body.file ? { file: body.file } : {}),
        createdBy: c.var.user,
      });
      return c.json(presentResponseSet(set), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{responseSet}',
      tags: ['answers'],
      summary: 'A response set (id or name) with its answers and score sets',
      ...adminOnly,
      request: { params: ResponseSetParam, query: TopicQuery },
      responses: {
        200: json(
          'the response set',
          ResponseSetSchema.extend({
            answers: z.array(AnswerSchema),
            scoreSets: z.array(ScoreSetSchema),
          }),
        ),
        ...readErrors,
      },
    }),
    async (c) => {
      const { topic } = c.req.valid('query');
      const detail = await getResponseSetDetail(
        c.var.db,
        c.req.valid('param').responseSet,
        topic === undefined ? {} : { topic },
      );
      return c.json(
        {
          ...presentResponseSet(detail),
          answers: detail.answers,
          scoreSets: detail.scoreSets.map(presentScoreSet),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{responseSet}',
      tags: ['answers'],
      summary: 'Delete a response set with its score sets',
      ...adminOnly,
      request: { params: ResponseSetParam },
      responses: { 204: { description: 'deleted' }, ...writeErrors },
    }),
    async (c) => {
      await removeResponseSet(c.var.db, c.req.valid('param').responseSet);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{responseSet}/score-sets',
      tags: ['answers'],
      summary: 'Score the answers with a judge and store the grades as a score set',
      ...adminOnly,
      description:
        'Admin only. Uses the server’s model endpoint (OPENAI_BASE_URL / OPENAI_API_KEY); ' +
        'every call is stored, so scoring the same answers again costs nothing. Answers ' +
        'the judge could not grade are stored as failed with their reason and raw text.',
      request: {
        params: ResponseSetParam,
        body: { required: true, content: { 'application/json': { schema: ScoreBody } } },
      },
      responses: { 201: json('the score set', ScoreSetSchema), ...writeErrors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const template = answerJudgeTemplate(body.judge);
      const { deps, model } = serverLlmStep(c.var.config, c.var.db, {
        model: body.model,
        templateModel: template.model.name,
      });
      const set = await scoreResponseSet(c.var.db, deps, {
        responseSet: c.req.valid('param').responseSet,
        name: body.name,
        template,
        settings: {
          model,
          ...(body.temperature === undefined ? {} : { temperature: body.temperature }),
        },
        ...(body.mode ? { mode: body.mode } : {}),
        ...(body.trials ? { trials: body.trials } : {}),
        ...(body.examples ? { examples: body.examples, exampleSets: body.exampleSets ?? 1 } : {}),
        ...(body.gold ? { gold: body.gold } : {}),
        ...(body.seed === undefined ? {} : { seed: body.seed }),
        createdBy: c.var.user,
      });
      return c.json(presentScoreSet(set), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{responseSet}/score-sets/import',
      tags: ['answers'],
      summary: 'Store a score file (from `assay answers score`) as a score set',
      ...adminOnly,
      request: {
        params: ResponseSetParam,
        body: { required: true, content: { 'application/json': { schema: ImportScoresBody } } },
      },
      responses: { 201: json('the score set', ScoreSetSchema), ...writeErrors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const set = await importScoreSet(c.var.db, {
        responseSet: c.req.valid('param').responseSet,
        name: body.name,
        text: body.scores,
        ...(body.judge ? { judge: body.judge } : {}),
        ...(body.file ? { file: body.file } : {}),
        createdBy: c.var.user,
      });
      return c.json(presentScoreSet(set), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{responseSet}/hand-scores',
      tags: ['answers'],
      summary: 'Your hand scores of the answers under a judge template, as stored',
      ...adminOnly,
      description:
        'The grades the calling user gave, one per (topic, system, criterion), with the ' +
        'rubric they are given on: the criteria, scale and instructions of the judge template ' +
        '(no machine score set needed).',
      request: { params: ResponseSetParam, query: HandScoresQuery },
      responses: { 200: json('the stored hand scores', HandScoresSchema), ...readErrors },
    }),
    async (c) => {
      const { judge, topic } = c.req.valid('query');
      const result = await getHandScores(
        c.var.db,
        c.req.valid('param').responseSet,
        judge,
        c.var.user,
        topic === undefined ? {} : { topic },
      );
      return c.json({ ...result, scores: result.scores.map(presentHandScore) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/{responseSet}/hand-scores',
      tags: ['answers'],
      summary: 'Store one hand score (a criterion of an answer); a newer grade replaces it',
      ...adminOnly,
      request: {
        params: ResponseSetParam,
        body: { required: true, content: { 'application/json': { schema: HandScoreBody } } },
      },
      responses: { 200: json('the hand score as stored', HandScoreSchema), ...writeErrors },
    }),
    async (c) => {
      const { judge, ...score } = c.req.valid('json');
      const stored = await giveHandScore(
        c.var.db,
        c.req.valid('param').responseSet,
        judge,
        c.var.user,
        score,
      );
      return c.json(presentHandScore(stored), 200);
    },
  );
