import { sql } from 'kysely';
import type { Queryable } from '../bulk.js';
import type { JsonObject, JsonValue, ReportKind, Row } from '../schema.js';
import { seek, type Seek } from '../keyset.js';

/** A stored report without its result: what lists show. */
export interface ReportSummary {
  id: number;
  collectionId: number;
  kind: ReportKind;
  title: string;
  /** Label sets, runs, measures, settings, assay version and creator the report was made with. */
  provenance: JsonObject;
  createdBy: number | null;
  createdAt: Date;
  /** Slugs it is published under, alphabetically. */
  slugs: string[];
}

/** A stored report with its result. */
export interface Report extends ReportSummary {
  result: JsonValue;
}

/** Fields of a new report. */
export interface NewReport {
  collectionId: number;
  kind: ReportKind;
  title: string;
  provenance: JsonObject;
  result: JsonValue;
  createdBy?: number | null;
}

/** A report published under a slug. */
export interface Publication {
  slug: string;
  reportId: number;
  publishedAt: Date;
  publishedBy: number | null;
}

/** Fields of a new publication. */
export interface NewPublication {
  slug: string;
  reportId: number;
  publishedBy?: number | null;
}

/** Filters of {@link listReports}. */
export interface ListReportsOptions {
  collectionId?: number;
  kind?: ReportKind;
}

/** What a slug must look like: lower-case letters, digits and hyphens, 1 to 63 characters. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

function toSummary(row: Omit<Row<'reports'>, 'result'>, slugs: string[]): ReportSummary {
  return {
    id: row.id,
    collectionId: row.collection_id,
    kind: row.kind,
    title: row.title,
    provenance: row.provenance,
    createdBy: row.created_by,
    createdAt: row.created_at,
    slugs,
  };
}

function toPublication(row: Row<'publications'>): Publication {
  return {
    slug: row.slug,
    reportId: row.report_id,
    publishedAt: row.published_at,
    publishedBy: row.published_by,
  };
}

/**
 * A JSON value as a jsonb parameter. It is sent as text and cast, so that neither driver
 * turns a JavaScript array into a Postgres array or encodes the text a second time.
 */
function jsonb<T extends JsonValue>(value: T) {
  return sql<T>`cast(cast(${JSON.stringify(value)} as text) as jsonb)`;
}

async function slugsOf(db: Queryable, reportIds: number[]): Promise<Map<number, string[]>> {
  const bySlug = new Map<number, string[]>();
  if (reportIds.length === 0) return bySlug;
  const rows = await db
    .selectFrom('publications')
    .select(['report_id', 'slug'])
    .where('report_id', 'in', reportIds)
    .orderBy('slug')
    .execute();
  for (const row of rows) {
    const list = bySlug.get(row.report_id) ?? [];
    list.push(row.slug);
    bySlug.set(row.report_id, list);
  }
  return bySlug;
}

/** Stores a report snapshot; its kind, provenance and result can never change afterwards. */
export async function createReport(db: Queryable, input: NewReport): Promise<Report> {
  const row = await db
    .insertInto('reports')
    .values({
      collection_id: input.collectionId,
      kind: input.kind,
      title: input.title,
      provenance: jsonb(input.provenance),
      result: jsonb(input.result),
      created_by: input.createdBy ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...toSummary(row, []), result: row.result };
}

/** The report with this id, with its result and slugs, if any. */
export async function getReport(db: Queryable, id: number): Promise<Report | undefined> {
  const row = await db.selectFrom('reports').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const slugs = (await slugsOf(db, [row.id])).get(row.id) ?? [];
  return { ...toSummary(row, slugs), result: row.result };
}

/**
 * Locks the report row until the transaction ends: `share` for a writer that needs the
 * report to stay (publishing it), `update` for one that removes it (deleting it), so the
 * two never interleave. False when there is no such report (any more).
 */
export async function lockReport(
  db: Queryable,
  id: number,
  mode: 'share' | 'update',
): Promise<boolean> {
  const query = db.selectFrom('reports').select('id').where('id', '=', id);
  const row = await (mode === 'share' ? query.forShare() : query.forUpdate()).executeTakeFirst();
  return row !== undefined;
}

/**
 * Reports without their results, newest first (id descending), optionally of one collection
 * or kind. Given a page, those after its key (id) and at most limit + 1 of them.
 */
export async function listReports(
  db: Queryable,
  options: ListReportsOptions & { page?: Seek } = {},
): Promise<ReportSummary[]> {
  let query = db
    .selectFrom('reports')
    .select(['id', 'collection_id', 'kind', 'title', 'provenance', 'created_by', 'created_at']);
  if (options.collectionId !== undefined)
    query = query.where('collection_id', '=', options.collectionId);
  if (options.kind !== undefined) query = query.where('kind', '=', options.kind);
  const rows = await seek(query, [sql.ref('id')], options.page, 'desc').execute();
  const slugs = await slugsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toSummary(row, slugs.get(row.id) ?? []));
}

/** Deletes a report and its publications; false if absent. */
export async function deleteReport(db: Queryable, id: number): Promise<boolean> {
  const result = await db.deleteFrom('reports').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Publishes a report under a slug; a taken slug is a unique violation (23505). */
export async function createPublication(
  db: Queryable,
  input: NewPublication,
): Promise<Publication> {
  const row = await db
    .insertInto('publications')
    .values({
      slug: input.slug,
      report_id: input.reportId,
      published_by: input.publishedBy ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toPublication(row);
}

/** The publication under this slug, if any. */
export async function getPublication(
  db: Queryable,
  slug: string,
): Promise<Publication | undefined> {
  const row = await db
    .selectFrom('publications')
    .selectAll()
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row && toPublication(row);
}

/** Every publication, by slug. */
export async function listPublications(db: Queryable): Promise<Publication[]> {
  const rows = await db.selectFrom('publications').selectAll().orderBy('slug').execute();
  return rows.map(toPublication);
}

/** A publication with the title and collection of its report. */
export interface PublicationSummary extends Publication {
  title: string;
  collectionId: number;
}

/**
 * Every publication with its report's title and collection, by slug; given a page, those
 * after its key (slug) and at most limit + 1 of them.
 */
export async function listPublicationSummaries(
  db: Queryable,
  page?: Seek,
): Promise<PublicationSummary[]> {
  const query = db
    .selectFrom('publications as p')
    .innerJoin('reports as r', 'r.id', 'p.report_id')
    .select([
      'p.slug',
      'p.report_id',
      'p.published_at',
      'p.published_by',
      'r.title',
      'r.collection_id',
    ]);
  const rows = await seek(query, [sql.ref('p.slug')], page).execute();
  return rows.map((row) => ({
    slug: row.slug,
    reportId: Number(row.report_id),
    publishedAt: row.published_at,
    publishedBy: row.published_by === null ? null : Number(row.published_by),
    title: row.title,
    collectionId: Number(row.collection_id),
  }));
}

/** Unpublishes a slug (the report stays); false if nothing was published under it. */
export async function deletePublication(db: Queryable, slug: string): Promise<boolean> {
  const result = await db.deleteFrom('publications').where('slug', '=', slug).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
