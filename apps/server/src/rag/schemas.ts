// Response and request schemas of the RAG evaluation routes (nugget banks, rubric sets,
// assessment sets), and how the platform's objects are shown through them.
import type {
  AssessmentAgreement,
  AssessmentScreen,
  AssessmentSet,
  LlmStepReport,
  NuggetBank,
  NuggetBankVersion,
  RubricSet,
  StoredCriterion,
  StoredNugget,
} from '@assay/platform';
import { z } from '@hono/zod-openapi';
import { CompareJsonSchema } from '../reports/result-schemas.js';

const Timestamp = z.string().openapi({ format: 'date-time' });
const Json = z.record(z.string(), z.unknown());

export const NuggetSchema = z
  .object({
    id: z.number().int(),
    topicId: z.string(),
    position: z.number().int(),
    text: z.string(),
    importance: z.enum(['vital', 'okay']),
    origin: z.enum(['llm', 'person', 'imported']),
    edited: z.boolean().openapi({ description: 'changed by a person since it was made' }),
    lineage: z.number().int().nullable(),
    extra: Json.openapi({ description: "the file's fields assay does not know" }),
    history: z.array(z.unknown()).openapi({ description: 'who changed what: {at, by, action, …}' }),
  })
  .openapi('Nugget');

export const NuggetBankVersionSchema = z
  .object({
    id: z.number().int(),
    version: z.number().int(),
    provenance: Json,
    frozen: z.boolean().openapi({ description: 'used by an assessment: edits make a new version' }),
    nuggets: z.number().int(),
    vital: z.number().int(),
    okay: z.number().int(),
    topicCount: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('NuggetBankVersion');

export const NuggetBankSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    latestVersion: z.number().int(),
    latest: NuggetBankVersionSchema.nullable(),
    createdAt: Timestamp,
  })
  .openapi('NuggetBank');

export function presentVersion(v: NuggetBankVersion) {
  return {
    id: v.id,
    version: v.version,
    provenance: v.provenance as Record<string, unknown>,
    frozen: v.frozen,
    nuggets: v.nuggets,
    vital: v.vital,
    okay: v.okay,
    topicCount: v.topicCount,
    createdAt: v.createdAt.toISOString(),
  };
}

export function presentBank(b: NuggetBank, latest: NuggetBankVersion | null) {
  return {
    id: b.id,
    name: b.name,
    latestVersion: b.latestVersion,
    latest: latest && presentVersion(latest),
    createdAt: b.createdAt.toISOString(),
  };
}

export function presentNugget(n: StoredNugget) {
  return {
    id: n.id,
    topicId: n.topicId,
    position: n.position,
    text: n.text,
    importance: n.importance,
    origin: n.origin,
    edited: n.edited,
    lineage: n.lineage,
    extra: n.extra as Record<string, unknown>,
    history: n.history as unknown[],
  };
}

export const NuggetEditSchema = z
  .discriminatedUnion('action', [
    z.object({
      action: z.literal('add'),
      topic: z.string().min(1),
      text: z.string().min(1).max(2000),
      importance: z.enum(['vital', 'okay']),
      after: z.number().int().optional().openapi({ description: 'the nugget it follows' }),
    }),
    z.object({
      action: z.literal('edit'),
      nugget: z.number().int(),
      text: z.string().min(1).max(2000).optional(),
      importance: z.enum(['vital', 'okay']).optional(),
    }),
    z.object({ action: z.literal('delete'), nugget: z.number().int() }),
    z.object({
      action: z.literal('merge'),
      nuggets: z.array(z.number().int()).min(2).max(100),
      text: z.string().min(1).max(2000),
      importance: z.enum(['vital', 'okay']).optional(),
    }),
    z.object({
      action: z.literal('split'),
      nugget: z.number().int(),
      texts: z.array(z.string().min(1).max(2000)).min(2).max(20),
    }),
    z.object({ action: z.literal('move'), nugget: z.number().int(), to: z.number().int().min(0) }),
  ])
  .openapi('NuggetEdit');

export const CriterionSchema = z
  .object({
    id: z.number().int(),
    topicId: z.string(),
    position: z.number().int(),
    criterion: z.string(),
    weight: z.number(),
    axis: z.string().nullable(),
    extra: Json,
  })
  .openapi('RubricCriterion');

export const RubricSetSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    provenance: Json,
    criteria: z.number().int(),
    topicCount: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('RubricSet');

export function presentRubricSet(r: RubricSet) {
  return {
    id: r.id,
    name: r.name,
    provenance: r.provenance as Record<string, unknown>,
    criteria: r.criteria,
    topicCount: r.topicCount,
    createdAt: r.createdAt.toISOString(),
  };
}

export function presentCriterion(c: StoredCriterion) {
  return { ...c, extra: c.extra as Record<string, unknown> };
}

export const AssessmentKindSchema = z.enum(['nuggets', 'support', 'rubric']);

export const AssessmentSetSchema = z
  .object({
    id: z.number().int(),
    collectionId: z.number().int(),
    kind: AssessmentKindSchema,
    name: z.string(),
    responseSetId: z.number().int(),
    nuggetVersionId: z.number().int().nullable(),
    rubricSetId: z.number().int().nullable(),
    assessor: z.enum(['llm', 'people', 'imported']),
    mode: z.enum(['blind', 'post_edit']).nullable(),
    referenceSetId: z.number().int().nullable(),
    settings: Json,
    judged: z.number().int(),
    failed: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('AssessmentSet');

export function presentAssessmentSet(s: AssessmentSet) {
  return {
    id: s.id,
    collectionId: s.collectionId,
    kind: s.kind,
    name: s.name,
    responseSetId: s.responseSetId,
    nuggetVersionId: s.nuggetVersionId,
    rubricSetId: s.rubricSetId,
    assessor: s.assessor,
    mode: s.mode,
    referenceSetId: s.referenceSetId,
    settings: s.settings as Record<string, unknown>,
    judged: s.judged,
    failed: s.failed,
    createdAt: s.createdAt.toISOString(),
  };
}

export const AssessmentAnswerSchema = z
  .object({
    topic: z.string(),
    system: z.string(),
    items: z.number().int(),
    judged: z.number().int(),
  })
  .openapi('AssessmentAnswer');

const ScreenItemSchema = z.object({
  item: z.string(),
  text: z.string(),
  importance: z.enum(['vital', 'okay']).optional(),
  weight: z.number().optional(),
  axis: z.string().nullable().optional(),
  sentence: z.number().int().optional(),
  citation: z.number().int().optional(),
  docid: z.string().optional(),
  passage: z.string().nullable().optional(),
  label: z.string().nullable(),
  labelledBy: z.number().int().nullable(),
  reference: z
    .object({ label: z.string().nullable(), error: z.string().nullable() })
    .optional()
    .openapi({ description: "post-edit sets only: the LLM's label" }),
});

export const AssessmentScreenSchema = z
  .object({
    set: AssessmentSetSchema,
    labels: z.array(z.string()),
    topic: z.string(),
    system: z.string(),
    query: z.string().nullable(),
    answer: z.string(),
    sentences: z.array(z.object({ text: z.string(), citations: z.array(z.string()) })).nullable(),
    items: z.array(ScreenItemSchema),
  })
  .openapi('AssessmentScreen');

export function presentScreen(s: AssessmentScreen) {
  return { ...s, set: presentAssessmentSet(s.set), labels: [...s.labels] };
}

const LabelAgreementSchema = z.object({
  n: z.number().int(),
  exact: z.number().nullable(),
  kappa: z.number().nullable().openapi({ description: "Cohen's kappa; null when undefined" }),
  confusion: z.object({ labels: z.array(z.string()), matrix: z.array(z.array(z.number().int())) }),
});

export const AssessmentAgreementSchema = z
  .object({
    a: z.object({ id: z.number().int(), name: z.string(), assessor: z.string() }),
    b: z.object({ id: z.number().int(), name: z.string(), assessor: z.string() }),
    kind: AssessmentKindSchema,
    overall: LabelAgreementSchema,
    perTopic: z.array(LabelAgreementSchema.extend({ topic: z.string() })),
  })
  .openapi('AssessmentAgreement');

/** NaN statistics (kappa with one label throughout) as null. */
export function presentAgreement(
  a: AssessmentAgreement,
): z.infer<typeof AssessmentAgreementSchema> {
  return JSON.parse(JSON.stringify(a)) as z.infer<typeof AssessmentAgreementSchema>;
}

export const StepReportSchema = z
  .object({
    paidCalls: z.number().int(),
    cachedAnswers: z.number().int(),
    costUsd: z.number().openapi({ description: 'what the priced calls cost' }),
    unpricedCalls: z
      .number()
      .int()
      .openapi({ description: 'calls paid at a price not known (no price for the model)' }),
    stoppedByBudget: z.boolean(),
    planned: z
      .object({
        calls: z.number().int(),
        promptTokens: z.number().int(),
        completionTokens: z.number().int(),
        costUsd: z.number().optional(),
      })
      .optional()
      .openapi({ description: 'dry runs: what it would send' }),
  })
  .openapi('LlmStepReport');

export function presentStep(r: LlmStepReport) {
  return { ...r, ...(r.planned ? { planned: { ...r.planned } } : {}) };
}

export const AssessmentScoresSchema = z
  .object({
    set: AssessmentSetSchema,
    answers: z.array(
      z.object({
        topic: z.string(),
        system: z.string(),
        scores: z.record(z.string(), z.number()),
        axes: z.record(z.string(), z.number()).optional(),
      }),
    ),
    incomplete: z.array(
      z.object({ topic: z.string(), system: z.string(), missing: z.number().int() }),
    ),
    citations: z
      .object({ total: z.number().int(), cannotAssess: z.number().int() })
      .optional()
      .openapi({
        description:
          'support: the citations scored, and those "cannot assess" (in neither precision nor recall)',
      }),
    leaderboard: CompareJsonSchema.nullable().openapi({
      description: 'null with fewer than two systems or two fully judged topics',
    }),
  })
  .openapi('AssessmentScores');
