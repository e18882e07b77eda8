// Stored reports (comparisons, agreements, evaluations): what they record, storing one, and
// reading, listing and deleting them. Each kind is computed in its own file
// (comparison-reports.ts, agreement-reports.ts, evaluation-reports.ts).
import {
  createReport,
  deleteReport as deleteStoredReport,
  getReport as getStoredReport,
  listReports as listStoredReports,
  lockReport,
  withTransaction,
  type JsonObject,
  type Queryable,
  type Report,
  type ReportKind,
  type ReportSummary,
} from '@assay/db';
import type { PValueAdjustment } from '@assay/stats';
import type {
  AgreementReport,
  CompareReport,
  GradeScale,
  RankCorrelationSettings,
  TestName,
} from '../analysis/index.js';
import type { EvaluateRunsResult } from '../analysis/evaluate.js';
import { writeInCollection } from '../catalog/collection-writes.js';
import { PlatformError, writing } from '../core/errors.js';
import { resolveCollection, type CollectionRef } from '../core/resolve.js';
import { pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';
import { ASSAY_VERSION } from '../core/version.js';
import { decodeReport, toJson } from './report-codec.js';

/** Who creates a report or publishes a leaderboard (recorded by id and name). */
export interface Actor {
  id: number;
  name: string;
}

/** A stored thing named in a provenance: its id and its name at the time. */
export interface NamedRef {
  id: number;
  name: string;
}

/** What a report was computed from and how; stored with it and never changed. */
export interface ReportProvenance {
  assayVersion: string;
  createdBy: NamedRef | null;
  collection: NamedRef;
  /** In the order given (a comparison's first label set is ground truth for tau-AP). */
  labelSets: NamedRef[];
  runs: NamedRef[];
  /** Measures as asked for (evaluation, comparison). */
  measures?: string[];
  /** Measure columns tested, in order (comparison). */
  testedMeasures?: string[];
  test?: TestName;
  correction?: PValueAdjustment;
  alpha?: number;
  seed?: number;
  permutations?: number;
  baseline?: string;
  bootstrapSamples?: number;
  topicHandling?: string;
  completeTopics?: boolean;
  relevanceLevel?: number;
  maxDocs?: number;
  judgedOnly?: boolean;
  scale?: GradeScale;
  clip?: boolean;
  /** Two label sets: how the rank correlations and their intervals were computed. */
  rankCorrelation?: RankCorrelationSettings;
  /** A leaderboard of generated answers: what judged them (see the rag use-cases). */
  rag?: {
    kind: 'nuggets' | 'support' | 'rubric';
    assessmentSet: NamedRef;
    responseSet: NamedRef;
    assessor: string;
    nuggetBank?: { id: number; name: string; version: number };
    rubricSet?: NamedRef;
    firstCitationOnly?: boolean;
    /** Answers left out because some of their items were not judged. */
    incompleteAnswers: number;
  };
}

/** A stored report: its snapshot result typed by kind. */
export type StoredReport = Omit<Report, 'kind' | 'result' | 'provenance'> & {
  provenance: ReportProvenance;
} & (
    | { kind: 'evaluation'; result: EvaluateRunsResult }
    | { kind: 'comparison'; result: CompareReport }
    | { kind: 'agreement'; result: AgreementReport }
  );

/** A stored report without its result, as lists show it. */
export type StoredReportSummary = Omit<ReportSummary, 'provenance'> & {
  provenance: ReportProvenance;
};

/**
 * Stores a leaderboard computed elsewhere (the systems of generated answers, scored by an
 * assessment set) as a comparison report of the collection, publishable like any other.
 */
export async function storeComparisonReport(
  db: Queryable,
  input: {
    collection: NamedRef;
    title: string;
    provenance: Omit<ReportProvenance, 'assayVersion' | 'createdBy' | 'collection'>;
    result: CompareReport;
    createdBy?: Actor;
  },
): Promise<StoredReport> {
  const provenance: ReportProvenance = {
    assayVersion: ASSAY_VERSION,
    createdBy: actorRef(input.createdBy),
    collection: input.collection,
    ...input.provenance,
  };
  return storeReport(
    db,
    input.collection,
    'comparison',
    input.title,
    provenance,
    input.result,
    input.createdBy,
  );
}

/** A provenance's record of who acted. */
export function actorRef(actor: Actor | undefined): NamedRef | null {
  return actor ? { id: actor.id, name: actor.name } : null;
}

/** Stores a computed report of `kind` under a non-blank title, in its collection. */
export async function storeReport(
  db: Queryable,
  collection: { id: number; name: string },
  kind: ReportKind,
  title: string,
  provenance: ReportProvenance,
  result: EvaluateRunsResult | CompareReport | AgreementReport,
  createdBy: Actor | undefined,
): Promise<StoredReport> {
  const trimmed = title.trim();
  if (trimmed === '') throw new PlatformError('invalid_input', 'the title must not be blank');
  const report = await writing(
    () =>
      writeInCollection(db, collection, (trx) =>
        createReport(trx, {
          collectionId: collection.id,
          kind,
          title: trimmed,
          provenance: toJson(provenance) as JsonObject,
          result: toJson(result),
          createdBy: createdBy?.id ?? null,
        }),
      ),
    'the report conflicts with existing data',
  );
  return decodeReport(report);
}

// -------------------------------------------------------------------------------- read

/** A stored report with its result; not_found when there is none. */
export async function getReport(db: Queryable, id: number): Promise<StoredReport> {
  const report = Number.isSafeInteger(id) ? await getStoredReport(db, id) : undefined;
  if (!report) throw new PlatformError('not_found', `no report ${id}`);
  return decodeReport(report);
}

/** Stored reports without results, newest first, optionally of one collection or kind. */
export async function listReports(
  db: Queryable,
  options: { collection?: CollectionRef; kind?: ReportKind } = {},
): Promise<StoredReportSummary[]> {
  const collection =
    options.collection === undefined ? undefined : await resolveCollection(db, options.collection);
  const reports = await listStoredReports(db, {
    ...(collection ? { collectionId: collection.id } : {}),
    ...(options.kind ? { kind: options.kind } : {}),
  });
  return reports.map(withProvenance);
}

/** A page of {@link listReports} (newest first: by id, descending). */
export async function listReportsPage(
  db: Queryable,
  options: { collection?: CollectionRef; kind?: ReportKind } & PageOptions = {},
): Promise<Page<StoredReportSummary>> {
  const page = seekPage(options, SMALL_PAGE, ['int']);
  const collection =
    options.collection === undefined ? undefined : await resolveCollection(db, options.collection);
  const reports = await listStoredReports(db, {
    ...(collection ? { collectionId: collection.id } : {}),
    ...(options.kind ? { kind: options.kind } : {}),
    page,
  });
  return pageOf(reports, page, (r) => [r.id], withProvenance);
}

function withProvenance(r: ReportSummary): StoredReportSummary {
  return { ...r, provenance: r.provenance as unknown as ReportProvenance };
}

/** Deletes a report; not_found when there is none, conflict while it is published. */
export async function deleteReport(db: Queryable, id: number): Promise<void> {
  if (!Number.isSafeInteger(id)) throw new PlatformError('not_found', `no report ${id}`);
  await withTransaction(db, async (trx) => {
    // Waits for publications in progress, and holds off new ones until the delete is done.
    if (!(await lockReport(trx, id, 'update')))
      throw new PlatformError('not_found', `no report ${id}`);
    const report = await getReport(trx, id);
    if (report.slugs.length > 0)
      throw new PlatformError(
        'conflict',
        `report ${id} is published as ${report.slugs.join(', ')}; unpublish it first`,
      );
    await deleteStoredReport(trx, id);
  });
}
