import {
  addAssessmentAnnotators,
  assessmentAgreement,
  assessmentScreen,
  assessmentSetDetail,
  comparisonJsonValue,
  createAssessmentReport,
  createPeopleAssessmentSet,
  DEFAULT_ASSESSMENT_JUDGE,
  exportAssessmentSet,
  importAssessmentSet,
  listAssessmentAnswers,
  listAssignedAssessmentSets,
  listCollectionAssessmentSets,
  loadJudgeTemplate,
  removeAssessmentAnnotator,
  removeAssessmentSet,
  renderComparison,
  runLlmAssessment,
  saveAssessment,
  scoreAssessmentSet,
  undoAssessment,
  type CompareFormat,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import {
  AssessmentAgreementSchema,
  AssessmentAnswerSchema,
  AssessmentKindSchema,
  AssessmentScoresSchema,
  AssessmentScreenSchema,
  AssessmentSetSchema,
  presentAgreement,
  presentAssessmentSet,
  presentScreen,
  presentStep,
  StepReportSchema,
} from './schemas.js';
import { presentReport, ReportSchema } from '../reports/schemas.js';
import { createRouter } from '../router.js';
import {
  adminOnly,
  annotatorRoute,
  CollectionParam,
  json,
  NameOrId,
  QueryFlag,
  readErrors,
  writeErrors,
} from '../core/schemas.js';
import { serverLlmStep } from '../core/llm-steps.js';
import { REPORT_PAGE_POLICY } from '../core/page-policies.js';

const Name = z.string().trim().min(1).max(200);

/** What an annotator (not an admin) reaches of the sets, said on each of their routes. */
const ANNOTATOR_REACH =
  'An annotator reaches only a people set that names them (404 for any other, machine sets ' +
  'included) and sees only their own labels there; admins reach every set.';
const Ref = z.object({
  responseSet: z.union([z.string().min(1), z.number().int().positive()]),
  bank: z.string().min(1).optional().openapi({ description: 'nuggets: the nugget bank' }),
  version: z.number().int().min(1).optional().openapi({ description: 'default its latest' }),
  rubricSet: z.string().min(1).optional().openapi({ description: 'rubric: the rubric set' }),
});

const bankOf = (b: { bank?: string | undefined; version?: number | undefined }) =>
  b.bank === undefined
    ? {}
    : { bank: { name: b.bank, ...(b.version ? { version: b.version } : {}) } };

const PeopleBody = Ref.extend({
  responseSet: Ref.shape.responseSet
    .optional()
    .openapi({ description: 'not needed with referenceSet (its answers are judged)' }),
  kind: AssessmentKindSchema,
  name: Name,
  mode: z.enum(['blind', 'post_edit']),
  referenceSet: z
    .number()
    .int()
    .positive()
    .optional()
    .openapi({ description: 'the set people post-edit, or are compared with when blind' }),
  annotators: z.array(NameOrId).max(1000).optional().openapi({
    description: 'who assesses it (names or ids): only they reach it, besides admins',
  }),
}).openapi('PeopleAssessmentSet');

const LlmBody = Ref.extend({
  kind: AssessmentKindSchema,
  name: Name.optional().openapi({ description: 'default <response set>-<model>' }),
  judge: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  batchSize: z.number().int().min(1).max(100).optional(),
  dryRun: z.boolean().optional(),
  budgetUsd: z.number().min(0).optional(),
}).openapi('LlmAssessment');

const ImportBody = Ref.extend({
  kind: AssessmentKindSchema,
  name: Name,
  text: z
    .string()
    .min(1)
    .max(200 * 1024 * 1024)
    .openapi({ description: "JSONL in the kind's form (nuggetizer's for nuggets)" }),
  file: z.string().min(1).max(200).optional(),
}).openapi('ImportAssessments');

const SetParam = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be an assessment set id (digits)')
    .openapi({ param: { name: 'id', in: 'path' }, example: '1' }),
});

const CompareQuery = z.object({
  test: z.enum(['t', 'wilcoxon', 'randomization']).optional(),
  correction: z.enum(['holm', 'bonferroni', 'bh', 'none']).optional(),
  alpha: z.coerce.number().gt(0).lt(1).optional(),
  seed: z.coerce.number().int().optional(),
  permutations: z.coerce.number().int().min(1).max(1_000_000).optional(),
  firstCitationOnly: QueryFlag.openapi({
    type: 'boolean',
    description: 'support: first citations only',
  }),
});

const settingsOf = (q: {
  test?: 't' | 'wilcoxon' | 'randomization' | undefined;
  correction?: 'holm' | 'bonferroni' | 'bh' | 'none' | undefined;
  alpha?: number | undefined;
  seed?: number | undefined;
  permutations?: number | undefined;
}) => ({
  test: q.test ?? 't',
  correction: q.correction ?? 'holm',
  alpha: q.alpha ?? 0.05,
  seed: q.seed ?? 42,
  permutations: q.permutations ?? 10000,
});

const CONTENT_TYPES = {
  table: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  latex: 'application/x-tex; charset=utf-8',
  html: 'text/html; charset=utf-8',
} as const;

/** `/api/collections/{collection}/assessment-sets`: making assessment sets. */
export const collectionAssessmentSets = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['rag'],
      summary: 'The collection’s assessment sets (nuggets, support, rubric), oldest first',
      ...adminOnly,
      request: {
        params: CollectionParam,
        query: z.object({ kind: AssessmentKindSchema.optional() }),
      },
      responses: { 200: json('the assessment sets', z.array(AssessmentSetSchema)), ...readErrors },
    }),
    async (c) => {
      const { kind } = c.req.valid('query');
      const sets = await listCollectionAssessmentSets(
        c.var.db,
        c.req.valid('param').collection,
        kind,
      );
      return c.json(sets.map(presentAssessmentSet), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['rag'],
      summary: 'Make an assessment set for people (blind, or post-editing an LLM set)',
      description:
        'Only its `annotators` (and admins) reach it. Someone who assesses the same answers ' +
        'in a set of the other mode is a 409: post-editing shows the LLM labels a blind set hides.',
      ...adminOnly,
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: PeopleBody } } },
      },
      responses: { 201: json('the new set', AssessmentSetSchema), ...writeErrors },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const set = await createPeopleAssessmentSet(c.var.db, {
        collection: c.req.valid('param').collection,
        kind: b.kind,
        name: b.name,
        ...(b.responseSet === undefined ? {} : { responseSet: b.responseSet }),
        ...bankOf(b),
        ...(b.rubricSet ? { rubricSet: b.rubricSet } : {}),
        mode: b.mode,
        ...(b.referenceSet ? { referenceSet: b.referenceSet } : {}),
        ...(b.annotators ? { annotators: b.annotators } : {}),
        createdBy: c.var.user,
      });
      return c.json(presentAssessmentSet(set), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/llm',
      tags: ['rag'],
      summary: 'Assess a response set with an LLM (nugget assignment, support, rubric criteria)',
      ...adminOnly,
      description:
        'Admin only. The server’s model endpoint; every call is stored, so the same request ' +
        'again sends nothing already answered and finishes what a budget left. An item the ' +
        'LLM could not judge is stored failed with its raw answer. `dryRun`: nothing is sent ' +
        'or stored; the answer counts the calls and cost. Support: a citation whose passage ' +
        'the collection lacks is "cannot assess" (counted in `cannotAssess`); when that is ' +
        'every citation the run is refused (422), naming how to add the documents.',
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: LlmBody } } },
      },
      responses: {
        200: json(
          'what the run did',
          z.object({
            set: AssessmentSetSchema.nullable(),
            created: z.boolean(),
            report: StepReportSchema,
            answers: z.number().int(),
            items: z.number().int(),
            pending: z.number().int(),
            cannotAssess: z
              .object({ citations: z.number().int(), passages: z.number().int() })
              .openapi({
                description:
                  'support: citations "cannot assess" because the collection lacks their passages (add them: POST /api/collections/{collection}/documents)',
              }),
            failures: z.array(
              z.object({
                topic: z.string(),
                system: z.string(),
                item: z.string(),
                reason: z.string(),
                raw: z.string().optional(),
              }),
            ),
          }),
        ),
        ...writeErrors,
      },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const template = loadJudgeTemplate(b.judge ?? DEFAULT_ASSESSMENT_JUDGE[b.kind]);
      const { deps, model } = serverLlmStep(c.var.config, c.var.db, {
        model: b.model,
        templateModel: template.model.name,
        budgetUsd: b.budgetUsd,
        dryRun: b.dryRun,
      });
      const r = await runLlmAssessment(c.var.db, deps, {
        collection: c.req.valid('param').collection,
        kind: b.kind,
        ...(b.name ? { name: b.name } : {}),
        responseSet: b.responseSet,
        ...bankOf(b),
        ...(b.rubricSet ? { rubricSet: b.rubricSet } : {}),
        template,
        settings: { model, ...(b.temperature === undefined ? {} : { temperature: b.temperature }) },
        ...(b.batchSize ? { batchSize: b.batchSize } : {}),
        ...(b.dryRun ? { dryRun: true } : {}),
        ...(b.budgetUsd === undefined ? {} : { budgetUsd: b.budgetUsd }),
        createdBy: c.var.user,
      });
      return c.json(
        {
          set: r.set ? presentAssessmentSet(r.set) : null,
          created: r.created,
          report: presentStep(r.report),
          answers: r.answers,
          items: r.items,
          pending: r.pending,
          cannotAssess: r.cannotAssess,
          failures: r.failures,
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/import',
      tags: ['rag'],
      summary: 'Store judgments made elsewhere (e.g. NIST’s assignments in nuggetizer’s form)',
      ...adminOnly,
      request: {
        params: CollectionParam,
        body: { required: true, content: { 'application/json': { schema: ImportBody } } },
      },
      responses: { 201: json('the stored set', AssessmentSetSchema), ...writeErrors },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const set = await importAssessmentSet(c.var.db, {
        collection: c.req.valid('param').collection,
        kind: b.kind,
        name: b.name,
        responseSet: b.responseSet,
        ...bankOf(b),
        ...(b.rubricSet ? { rubricSet: b.rubricSet } : {}),
        text: b.text,
        ...(b.file ? { file: b.file } : {}),
        createdBy: c.var.user,
      });
      return c.json(presentAssessmentSet(set), 201);
    },
  );

/** `/api/assessment-sets/{id}`: an assessment set, its screens, labels, agreement and scores. */
export const assessmentSets = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      tags: ['rag'],
      summary: 'An assessment set with what it judges named',
      ...adminOnly,
      request: { params: SetParam },
      responses: {
        200: json(
          'the set',
          AssessmentSetSchema.extend({
            responseSet: z.object({ id: z.number().int(), name: z.string() }),
            nuggetBank: z
              .object({
                id: z.number().int(),
                name: z.string(),
                versionId: z.number().int(),
                version: z.number().int(),
              })
              .optional(),
            rubricSet: z.object({ id: z.number().int(), name: z.string() }).optional(),
            annotators: z
              .array(z.object({ id: z.number().int(), name: z.string() }))
              .optional()
              .openapi({ description: 'people sets: who assesses it' }),
          }),
        ),
        ...readErrors,
      },
    }),
    async (c) => {
      const d = await assessmentSetDetail(c.var.db, Number(c.req.valid('param').id));
      return c.json(
        {
          ...presentAssessmentSet(d),
          responseSet: d.responseSet,
          ...(d.nuggetBank ? { nuggetBank: d.nuggetBank } : {}),
          ...(d.rubricSet ? { rubricSet: d.rubricSet } : {}),
          ...(d.annotators ? { annotators: d.annotators } : {}),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{id}',
      tags: ['rag'],
      summary: 'Delete an assessment set with its judgments',
      ...adminOnly,
      request: { params: SetParam },
      responses: { 204: { description: 'deleted' }, ...writeErrors },
    }),
    async (c) => {
      await removeAssessmentSet(c.var.db, Number(c.req.valid('param').id));
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['rag'],
      summary: 'The people sets you assess, with how many of their items you labelled',
      ...annotatorRoute,
      responses: {
        200: json(
          'the sets naming you as an annotator, oldest first',
          z.array(
            z.object({
              set: AssessmentSetSchema,
              items: z.number().int(),
              judged: z.number().int(),
            }),
          ),
        ),
        ...readErrors,
      },
    }),
    async (c) => {
      const sets = await listAssignedAssessmentSets(c.var.db, c.var.user);
      return c.json(
        sets.map((s) => ({ set: presentAssessmentSet(s.set), items: s.items, judged: s.judged })),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/annotators',
      tags: ['rag'],
      summary: 'Add annotators to a people set (they reach it from then on)',
      description:
        'Admin only. Someone who assesses the same answers in a set of the other mode is a ' +
        '409 (nobody is added).',
      ...adminOnly,
      request: {
        params: SetParam,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z.object({ annotators: z.array(NameOrId).min(1).max(1000) }),
            },
          },
        },
      },
      responses: { 200: json('the set', AssessmentSetSchema), ...writeErrors },
    }),
    async (c) => {
      const set = await addAssessmentAnnotators(
        c.var.db,
        Number(c.req.valid('param').id),
        c.req.valid('json').annotators,
      );
      return c.json(presentAssessmentSet(set), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{id}/annotators/{user}',
      tags: ['rag'],
      summary: 'Remove an annotator from a people set (the labels they gave are kept)',
      ...adminOnly,
      request: {
        params: SetParam.extend({
          user: z
            .string()
            .min(1)
            .openapi({ param: { name: 'user', in: 'path' } }),
        }),
      },
      responses: { 200: json('the set', AssessmentSetSchema), ...writeErrors },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(
        presentAssessmentSet(await removeAssessmentAnnotator(c.var.db, Number(p.id), p.user)),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/answers',
      tags: ['rag'],
      summary: 'The answers the set judges, with how many of their items are labelled',
      description: ANNOTATOR_REACH,
      ...annotatorRoute,
      request: { params: SetParam },
      responses: { 200: json('the answers', z.array(AssessmentAnswerSchema)), ...readErrors },
    }),
    async (c) =>
      c.json(
        await listAssessmentAnswers(c.var.db, Number(c.req.valid('param').id), c.var.user),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/answer',
      tags: ['rag'],
      summary: 'One answer on the assessment screen: request, answer, items and labels',
      description:
        "In a post-edit set each item carries the LLM set's label (`reference`); a blind set " +
        `never shows it. ${ANNOTATOR_REACH}`,
      ...annotatorRoute,
      request: {
        params: SetParam,
        query: z.object({ topic: z.string().min(1), system: z.string().min(1) }),
      },
      responses: { 200: json('the answer', AssessmentScreenSchema), ...readErrors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const screen = await assessmentScreen(
        c.var.db,
        Number(c.req.valid('param').id),
        q.topic,
        q.system,
        c.var.user,
      );
      return c.json(presentScreen(screen), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/labels',
      tags: ['rag'],
      summary: 'Save a person’s label of one item (a new revision)',
      description: ANNOTATOR_REACH,
      ...annotatorRoute,
      request: {
        params: SetParam,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z.object({
                topic: z.string().min(1),
                system: z.string().min(1),
                item: z.string().min(1),
                label: z.string().min(1),
                seconds: z.number().min(0).max(86400).optional(),
              }),
            },
          },
        },
      },
      responses: {
        201: json(
          'the saved revision',
          z.object({ id: z.number().int(), item: z.string(), label: z.string().nullable() }),
        ),
        ...writeErrors,
      },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const saved = await saveAssessment(
        c.var.db,
        Number(c.req.valid('param').id),
        {
          topic: b.topic,
          system: b.system,
          item: b.item,
          label: b.label,
          ...(b.seconds === undefined ? {} : { seconds: b.seconds }),
        },
        c.var.user,
      );
      return c.json({ id: saved.id, item: saved.item, label: saved.label }, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/undo',
      tags: ['rag'],
      summary: 'Take back your latest label still standing (the label before comes back)',
      description: ANNOTATOR_REACH,
      ...annotatorRoute,
      request: { params: SetParam },
      responses: {
        200: json(
          'the revision that undid it',
          z.object({
            topic: z.string(),
            system: z.string(),
            item: z.string(),
            label: z.string().nullable(),
          }),
        ),
        204: { description: 'nothing to undo' },
        ...writeErrors,
      },
    }),
    async (c) => {
      const r = await undoAssessment(c.var.db, Number(c.req.valid('param').id), c.var.user);
      if (!r) return c.body(null, 204);
      return c.json({ topic: r.topicId, system: r.system, item: r.item, label: r.label }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/agreement/{other}',
      tags: ['rag'],
      summary:
        'Agreement with another set of the same answers: κ per topic and overall, confusion matrix',
      ...adminOnly,
      request: {
        params: SetParam.extend({
          other: z
            .string()
            .regex(/^[0-9]{1,15}$/)
            .openapi({ param: { name: 'other', in: 'path' }, example: '2' }),
        }),
      },
      responses: { 200: json('the agreement', AssessmentAgreementSchema), ...readErrors },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(
        presentAgreement(await assessmentAgreement(c.var.db, Number(p.id), Number(p.other))),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/scores',
      tags: ['rag'],
      summary:
        'Per-answer scores and the leaderboard of the systems (intervals, tests, corrections)',
      description:
        'JSON by default: every fully judged answer’s scores, the answers left out, and the ' +
        'leaderboard as `assay compare --format json` writes it. `format` gives the table, ' +
        'CSV, LaTeX or HTML leaderboard.',
      ...adminOnly,
      request: {
        params: SetParam,
        query: CompareQuery.extend({
          format: z.enum(['json', 'table', 'csv', 'latex', 'html']).optional(),
        }),
      },
      responses: {
        200: {
          description: 'the scores',
          content: {
            'application/json': { schema: AssessmentScoresSchema },
            'text/plain': { schema: z.string() },
            'text/csv': { schema: z.string() },
            'application/x-tex': { schema: z.string() },
            'text/html': { schema: z.string() },
          },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const scores = await scoreAssessmentSet(
        c.var.db,
        Number(c.req.valid('param').id),
        settingsOf(q),
        q.firstCitationOnly ? { firstCitationOnly: true } : {},
      );
      const format = q.format ?? 'json';
      if (format !== 'json') {
        if (!scores.leaderboard)
          return c.body(
            'fewer than two systems or two fully judged topics: no leaderboard\n',
            200,
            {
              'content-type': CONTENT_TYPES.table,
            },
          );
        return c.body(renderComparison(scores.leaderboard.report, format as CompareFormat), 200, {
          'content-type': CONTENT_TYPES[format],
          // The HTML leaderboard is a self-contained report page: its own style, no script.
          ...(format === 'html' ? { 'content-security-policy': REPORT_PAGE_POLICY } : {}),
        });
      }
      const leaderboard = scores.leaderboard
        ? comparisonJsonValue(scores.leaderboard.report)
        : null;
      return c.json(
        {
          set: presentAssessmentSet(scores.set),
          answers: scores.answers,
          incomplete: scores.incomplete,
          ...(scores.citations ? { citations: scores.citations } : {}),
          leaderboard,
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{id}/reports',
      tags: ['rag'],
      summary: 'Store the leaderboard as a comparison report (publishable as any leaderboard)',
      ...adminOnly,
      request: {
        params: SetParam,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z.object({
                title: z.string().trim().min(1).max(500).optional(),
                test: z.enum(['t', 'wilcoxon', 'randomization']).optional(),
                correction: z.enum(['holm', 'bonferroni', 'bh', 'none']).optional(),
                alpha: z.number().gt(0).lt(1).optional(),
                seed: z.number().int().optional(),
                permutations: z.number().int().min(1).max(1_000_000).optional(),
                firstCitationOnly: z.boolean().optional(),
              }),
            },
          },
        },
      },
      responses: { 201: json('the stored report', ReportSchema), ...writeErrors },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const report = await createAssessmentReport(c.var.db, Number(c.req.valid('param').id), {
        settings: settingsOf(b),
        ...(b.firstCitationOnly ? { firstCitationOnly: true } : {}),
        ...(b.title ? { title: b.title } : {}),
        createdBy: c.var.user,
      });
      return c.json(presentReport(report), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{id}/export',
      tags: ['rag'],
      summary: "The set's judgments as JSONL (nuggetizer's form for nuggets)",
      ...adminOnly,
      request: { params: SetParam },
      responses: {
        200: {
          description: 'one line per fully judged answer',
          content: { 'text/plain': { schema: z.string() } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const { text } = await exportAssessmentSet(c.var.db, Number(c.req.valid('param').id));
      return c.text(text, 200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
    },
  );
