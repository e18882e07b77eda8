import {
  createPublication,
  listPublicationSummaries,
  deletePublication,
  getPublication,
  lockReport,
  SLUG_PATTERN,
  withTransaction,
  type PublicationSummary,
  type Queryable,
} from '@assay/db';
import { renderComparison, type CompareReport } from '../analysis/index.js';
import { PlatformError, writing } from '../core/errors.js';
import { getReport, type Actor, type StoredReport } from './reports.js';
import { pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';

/** A published leaderboard: its slug, when it was published, and the comparison report. */
export interface PublishedLeaderboard {
  slug: string;
  publishedAt: Date;
  report: StoredReport & { kind: 'comparison' };
}

/** Download formats of a published leaderboard. */
export type LeaderboardFormat = 'csv' | 'latex' | 'json' | 'html';

/** A rendered download: its text, media type and file extension. */
export interface RenderedLeaderboard {
  body: string;
  contentType: string;
  extension: string;
}

/**
 * Publishes a comparison report as a public, read-only leaderboard under `slug`
 * (`^[a-z0-9][a-z0-9-]{0,62}$`). A taken slug is a conflict; the report is not copied, and
 * being a snapshot it never changes.
 */
export async function publishLeaderboard(
  db: Queryable,
  input: { report: number; slug: string; publishedBy?: Actor },
): Promise<PublishedLeaderboard> {
  if (!SLUG_PATTERN.test(input.slug))
    throw new PlatformError(
      'invalid_input',
      `slug ${JSON.stringify(input.slug)} must be 1-63 lower-case letters, digits or hyphens, starting with a letter or digit`,
    );
  const { report, publication } = await writing(
    () =>
      withTransaction(db, async (trx) => {
        // The report must stay until the publication is stored: a delete waits for it
        // (and then refuses), or went first (and the report is not found).
        if (Number.isSafeInteger(input.report) && !(await lockReport(trx, input.report, 'share')))
          throw new PlatformError('not_found', `no report ${input.report}`);
        const report = await getReport(trx, input.report);
        if (report.kind !== 'comparison')
          throw new PlatformError(
            'invalid_input',
            `report ${report.id} is an ${report.kind} report; only comparisons are leaderboards`,
          );
        const publication = await createPublication(trx, {
          slug: input.slug,
          reportId: report.id,
          publishedBy: input.publishedBy?.id ?? null,
        });
        return { report, publication };
      }),
    `the slug "${input.slug}" is taken`,
  );
  return {
    slug: publication.slug,
    publishedAt: publication.publishedAt,
    report: { ...report, slugs: [...report.slugs, input.slug].sort() },
  };
}

/** Unpublishes a leaderboard (the report stays); not_found when nothing has that slug. */
export async function unpublishLeaderboard(db: Queryable, slug: string): Promise<void> {
  if (!(await deletePublication(db, slug)))
    throw new PlatformError('not_found', `no leaderboard ${JSON.stringify(slug)}`);
}

/** The leaderboard published under `slug`; not_found when there is none. */
export async function getPublishedLeaderboard(
  db: Queryable,
  slug: string,
): Promise<PublishedLeaderboard> {
  const publication = SLUG_PATTERN.test(slug) ? await getPublication(db, slug) : undefined;
  if (!publication) throw new PlatformError('not_found', `no leaderboard ${JSON.stringify(slug)}`);
  const report = await getReport(db, publication.reportId);
  if (report.kind !== 'comparison')
    throw new PlatformError('not_found', `no leaderboard ${JSON.stringify(slug)}`);
  return { slug, publishedAt: publication.publishedAt, report };
}

/**
 * A comparison rendered for download, exactly as `assay compare --format` renders it:
 * csv, latex (booktabs), json (full precision) or html (one self-contained page). The
 * report's `title` heads the HTML page and opens the CSV and LaTeX.
 */
export function renderLeaderboard(
  result: CompareReport,
  format: LeaderboardFormat,
  title?: string,
): RenderedLeaderboard {
  return { body: renderComparison(result, format, { title }), ...DOWNLOADS[format] };
}

/** The media type and file extension of each download format. */
const DOWNLOADS: Record<LeaderboardFormat, Omit<RenderedLeaderboard, 'body'>> = {
  csv: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  latex: { contentType: 'application/x-tex; charset=utf-8', extension: 'tex' },
  json: { contentType: 'application/json; charset=utf-8', extension: 'json' },
  html: { contentType: 'text/html; charset=utf-8', extension: 'html' },
};

/** A published leaderboard as listed: its slug, report, collection, title and date. */
export interface PublishedLeaderboardSummary {
  slug: string;
  reportId: number;
  collectionId: number;
  title: string;
  publishedAt: Date;
}

/** A page of the published leaderboards with their reports' titles and collections, by slug. */
export async function listPublishedLeaderboardsPage(
  db: Queryable,
  options: PageOptions = {},
): Promise<Page<PublishedLeaderboardSummary>> {
  const page = seekPage(options, SMALL_PAGE, ['text']);
  const rows = await listPublicationSummaries(db, page);
  return pageOf(rows, page, (p) => [p.slug], leaderboardSummary);
}

function leaderboardSummary(p: PublicationSummary): PublishedLeaderboardSummary {
  return {
    slug: p.slug,
    reportId: p.reportId,
    collectionId: p.collectionId,
    title: p.title,
    publishedAt: p.publishedAt,
  };
}
