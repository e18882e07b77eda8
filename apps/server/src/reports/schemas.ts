import type { StoredReport, StoredReportSummary } from '@assay/platform';
import { z } from '@hono/zod-openapi';
import { CompareResultSchema, EvaluationResultSchema } from './result-schemas.js';

/** A leaderboard's public name: lower-case letters, digits and hyphens, 1 to 63 characters. */
export const SlugSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,62}$/,
    'must be 1-63 lower-case letters, digits or hyphens, starting with a letter or digit',
  )
  .openapi({ example: 'cranfield-bm25-2026' });

const Named = z.object({ id: z.number().int(), name: z.string() });

/** What a report was computed from and how, as stored with it. */
export const ProvenanceSchema = z
  .object({
    assayVersion: z.string(),
    createdBy: Named.nullable(),
    collection: Named,
    labelSets: z.array(Named),
    runs: z.array(Named),
    measures: z.array(z.string()).optional(),
    testedMeasures: z.array(z.string()).optional(),
    test: z.string().optional(),
    correction: z.string().optional(),
    alpha: z.number().optional(),
    seed: z.number().optional(),
    permutations: z.number().optional(),
    baseline: z.string().optional(),
    bootstrapSamples: z.number().optional(),
    topicHandling: z.string().optional(),
  })
  .loose()
  .openapi('ReportProvenance');

/** The provenance as the API answers it. */
export type ProvenanceBody = z.infer<typeof ProvenanceSchema>;

/** A stored report without its result. */
export const ReportSummarySchema = z
  .object({
    id: z.number().int(),
    collectionId: z.number().int(),
    kind: z.enum(['evaluation', 'comparison', 'agreement']),
    title: z.string(),
    provenance: ProvenanceSchema,
    createdBy: z.number().int().nullable(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    slugs: z.array(z.string()).openapi({ description: 'slugs it is published under' }),
  })
  .openapi('ReportSummary');

/** A stored report with its result, whose shape its kind gives. */
export const ReportSchema = z
  .discriminatedUnion('kind', [
    ReportSummarySchema.extend({
      kind: z.literal('comparison'),
      result: CompareResultSchema,
    }).openapi('StoredComparisonReport'),
    ReportSummarySchema.extend({
      kind: z.literal('evaluation'),
      result: EvaluationResultSchema,
    }).openapi('StoredEvaluationReport'),
    ReportSummarySchema.extend({
      kind: z.literal('agreement'),
      result: z.record(z.string(), z.unknown()).openapi({
        description:
          'the `assay agree --format json` object. NaN and infinite statistics are null.',
      }),
    }).openapi('StoredAgreementReport'),
  ])
  .openapi('Report');

/** A report as the API shows it: an evaluation's or comparison's result field by field. */
export function presentReport(report: StoredReport) {
  const shown = presentReportSummary(report);
  // One branch per kind, so each answer carries its kind's result type (the union of both
  // would match neither member of ReportSchema).
  if (report.kind === 'comparison') return { ...shown, kind: report.kind, result: report.result };
  if (report.kind === 'evaluation') return { ...shown, kind: report.kind, result: report.result };
  return {
    ...shown,
    kind: report.kind,
    result: report.result as unknown as Record<string, unknown>,
  };
}

/** A report without its result, as lists show it. */
export function presentReportSummary(report: StoredReportSummary) {
  return {
    id: report.id,
    collectionId: report.collectionId,
    kind: report.kind,
    title: report.title,
    provenance: report.provenance as unknown as ProvenanceBody,
    createdBy: report.createdBy,
    createdAt: report.createdAt.toISOString(),
    slugs: report.slugs,
  };
}
