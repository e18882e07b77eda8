import {
  comparisonJsonValue,
  getPublishedLeaderboard,
  listPublishedLeaderboardsPage,
  SMALL_PAGE,
  renderLeaderboard,
  unpublishLeaderboard,
  type LeaderboardFormat,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../core/errors.js';
import { REPORT_PAGE_POLICY } from '../core/page-policies.js';
import { SlugSchema } from './schemas.js';
import { CompareJsonSchema } from './result-schemas.js';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import { adminOnly, publicRoute, ErrorSchema, readErrors, writeErrors } from '../core/schemas.js';

/** File extensions a download may be asked for with, and the format each names. */
const EXTENSIONS: Record<string, LeaderboardFormat> = {
  csv: 'csv',
  tex: 'latex',
  json: 'json',
  html: 'html',
};

const PublicParam = z.object({
  slug: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9-]{0,62}(\.(csv|tex|json|html))?$/,
      'must be a leaderboard slug, optionally with .csv, .tex, .json or .html',
    )
    .openapi({
      param: { name: 'slug', in: 'path' },
      description: 'the slug; with .csv, .tex, .json or .html appended, a download of that format',
      example: 'cranfield-bm25-2026',
    }),
});

const FormatQuery = z.object({
  format: z
    .enum(['csv', 'latex', 'json', 'html'])
    .optional()
    .openapi({ description: 'a download of this format (as the extension would)' }),
});

const PublicLeaderboardSchema = z
  .object({
    slug: z.string(),
    title: z.string(),
    publishedAt: z.string().openapi({ format: 'date-time' }),
    provenance: z.record(z.string(), z.unknown()).openapi({
      description: 'label sets, runs, measures, test, correction, alpha, seed, assay version',
    }),
    leaderboard: CompareJsonSchema.openapi({
      description: 'what `assay compare --format json` writes for the same data',
    }),
    downloads: z.record(z.string(), z.string()),
  })
  .openapi('PublicLeaderboard');

const PublicListItem = z
  .object({
    slug: z.string(),
    title: z.string(),
    publishedAt: z.string().openapi({ format: 'date-time' }),
    url: z.string().openapi({ description: 'the public, token-free address' }),
  })
  .openapi('PublicLeaderboardSummary');

const LeaderboardListItem = z
  .object({
    slug: z.string(),
    reportId: z.number().int(),
    collectionId: z.number().int(),
    title: z.string(),
    publishedAt: z.string().openapi({ format: 'date-time' }),
    url: z.string().openapi({ description: 'the public, token-free address' }),
  })
  .openapi('PublishedLeaderboardSummary');

/** `/api/leaderboards`: what is published (any token) and unpublishing (admins). */
export const leaderboards = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['leaderboards'],
      summary: 'Every published leaderboard, by slug (cursor paging)',
      ...adminOnly,
      request: { query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of published leaderboards, by slug', LeaderboardListItem),
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listPublishedLeaderboardsPage(c.var.db, pageOptions(c.req.valid('query')));
      linkNextPage(c, page.next);
      return c.json(
        page.items.map((p) => ({
          slug: p.slug,
          reportId: p.reportId,
          collectionId: p.collectionId,
          title: p.title,
          publishedAt: p.publishedAt.toISOString(),
          url: `/api/public/leaderboards/${p.slug}`,
        })),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{slug}',
      tags: ['leaderboards'],
      summary: 'Unpublish a leaderboard (the report stays)',
      ...adminOnly,
      request: {
        params: z.object({
          slug: SlugSchema.openapi({ param: { name: 'slug', in: 'path' } }),
        }),
      },
      responses: { 204: { description: 'unpublished' }, ...writeErrors },
    }),
    async (c) => {
      await unpublishLeaderboard(c.var.db, c.req.valid('param').slug);
      return c.body(null, 204);
    },
  );

/**
 * `/api/public/leaderboards`: published leaderboards, read-only and open to anyone (the only
 * routes besides health and the OpenAPI document that need no token; see auth.ts).
 */
export const publicLeaderboards = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['leaderboards'],
      summary: 'The index of published leaderboards (no token needed; cursor paging)',
      ...publicRoute,
      request: { query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse(
          'a page of published leaderboards by slug: title, date and public address',
          PublicListItem,
        ),
        400: readErrors[400],
      },
    }),
    async (c) => {
      const page = await listPublishedLeaderboardsPage(c.var.db, pageOptions(c.req.valid('query')));
      linkNextPage(c, page.next);
      return c.json(
        page.items.map((p) => ({
          slug: p.slug,
          title: p.title,
          publishedAt: p.publishedAt.toISOString(),
          url: `/api/public/leaderboards/${p.slug}`,
        })),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{slug}',
      tags: ['leaderboards'],
      summary: 'A published leaderboard, as JSON or as a CSV, LaTeX, JSON or HTML download',
      description:
        'No token needed. `/{slug}` answers a JSON object (title, provenance, leaderboard); ' +
        '`/{slug}.csv`, `.tex`, `.json`, `.html` (or `?format=csv|latex|json|html`) answer the ' +
        'file `assay compare --format …` writes, headed by the report title: CSV, LaTeX and JSON ' +
        'as an attachment, HTML inline so that a link shows the page.',
      ...publicRoute,
      request: { params: PublicParam, query: FormatQuery },
      responses: {
        200: {
          description: 'the leaderboard',
          content: {
            'application/json': { schema: PublicLeaderboardSchema },
            'text/csv': { schema: z.string() },
            'application/x-tex': { schema: z.string() },
            'text/html': { schema: z.string() },
          },
        },
        400: {
          description: 'not a slug',
          content: { 'application/json': { schema: ErrorSchema } },
        },
        404: {
          description: 'nothing is published under this slug',
          content: { 'application/json': { schema: ErrorSchema } },
        },
      },
    }),
    async (c) => {
      const [slug, extension] = c.req.valid('param').slug.split('.') as [string, string?];
      const fromQuery = c.req.valid('query').format;
      const fromExtension = extension === undefined ? undefined : EXTENSIONS[extension];
      if (fromQuery !== undefined && fromExtension !== undefined && fromQuery !== fromExtension)
        throw new ApiError(
          'invalid_input',
          `the extension .${extension} and format=${fromQuery} disagree`,
        );
      const format = fromExtension ?? fromQuery;
      const published = await getPublishedLeaderboard(c.var.db, slug);
      const { report } = published;
      if (format === undefined) {
        // Who published or created it stays private; everything it was computed from is shown.
        const { createdBy: _createdBy, ...provenance } = report.provenance;
        return c.json(
          {
            slug,
            title: report.title,
            publishedAt: published.publishedAt.toISOString(),
            provenance: provenance as Record<string, unknown>,
            // Checked here: a route with several content types does not check its JSON answer.
            leaderboard: comparisonJsonValue(report.result) satisfies z.input<
              typeof CompareJsonSchema
            >,
            downloads: Object.fromEntries(
              Object.keys(EXTENSIONS).map((ext) => [
                ext,
                `/api/public/leaderboards/${slug}.${ext}`,
              ]),
            ),
          },
          200,
        );
      }
      const rendered = renderLeaderboard(report.result, format, report.title);
      if (format === 'html')
        // Shown in the browser; the page needs nothing but its own inline style and SVG.
        return c.body(rendered.body, 200, {
          'content-type': rendered.contentType,
          'content-security-policy': REPORT_PAGE_POLICY,
        });
      return c.body(rendered.body, 200, {
        'content-type': rendered.contentType,
        'content-disposition': `attachment; filename="${slug}.${rendered.extension}"`,
      });
    },
  );
