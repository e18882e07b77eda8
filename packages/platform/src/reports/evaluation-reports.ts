// Evaluation reports: stored runs evaluated under a stored label set, as `assay eval`
// evaluates files, kept as immutable snapshots.
import type { Queryable, Run } from '@assay/db';
import { evaluateRuns, type EvaluateRunsInput } from '../analysis/evaluate.js';
import { runsOrAll } from '../catalog/runs.js';
import { resolveCollection, resolveLabelSet, resolveRun } from '../core/resolve.js';
import { ASSAY_VERSION } from '../core/version.js';
import {
  actorRef,
  storeReport,
  type Actor,
  type ReportProvenance,
  type StoredReport,
} from './reports.js';

/** An evaluation of stored runs to store as a report. */
export interface EvaluationReportInput extends EvaluateRunsInput {
  title?: string;
  createdBy?: Actor;
}

/** Evaluates stored runs (as {@link evaluateRuns}) and stores the result as a report. */
export async function createEvaluationReport(
  db: Queryable,
  input: EvaluationReportInput,
): Promise<StoredReport> {
  const collection = await resolveCollection(db, input.collection);
  const set = await resolveLabelSet(db, collection, input.labelSet);
  const runs: Run[] = [];
  for (const ref of await runsOrAll(db, collection, input.runs))
    runs.push(await resolveRun(db, collection, ref));
  const result = await evaluateRuns(db, {
    ...input,
    collection: collection.id,
    labelSet: set.id,
    runs: runs.map((r) => r.id),
  });
  const provenance: ReportProvenance = {
    assayVersion: ASSAY_VERSION,
    createdBy: actorRef(input.createdBy),
    collection: { id: collection.id, name: collection.name },
    labelSets: [{ id: set.id, name: set.name }],
    runs: runs.map((r) => ({ id: r.id, name: r.name })),
    measures: input.measures,
    topicHandling: result.topicHandling,
    completeTopics: input.completeTopics ?? true,
    ...(input.relevanceLevel === undefined ? {} : { relevanceLevel: input.relevanceLevel }),
    ...(input.maxDocs === undefined ? {} : { maxDocs: input.maxDocs }),
    ...(input.judgedOnly === undefined ? {} : { judgedOnly: input.judgedOnly }),
  };
  const title = input.title ?? `${runs.map((r) => r.name).join(', ')} on ${set.name}`;
  return storeReport(db, collection, 'evaluation', title, provenance, result, input.createdBy);
}
