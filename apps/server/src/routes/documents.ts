import { createRoute, z } from '@hono/zod-openapi';
import { getDocument, listDocuments, type StoredDocument } from '@assay/platform';
import { createRouter } from '../router.js';
import { anyUser, CollectionParam, DocumentSchema, readErrors } from '../schemas.js';

const Page = z.object({
  limit: z.coerce.number().int().min(1).max(10_000).default(100).openapi({ example: 100 }),
  after: z
    .string()
    .optional()
    .openapi({ description: 'continue after this docno (the previous page’s `next`)' }),
});

const DocumentPageSchema = z
  .object({
    documents: z.array(DocumentSchema),
    next: z
      .string()
      .nullable()
      .openapi({ description: 'pass as `after` for the next page; null on the last page' }),
  })
  .openapi('DocumentPage');

function present(d: StoredDocument) {
  return { docId: d.docId, title: d.title, text: d.text, metadata: d.metadata };
}

/** `/api/collections/{collection}/documents`: a collection's documents in docno byte order. */
export const documents = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['documents'],
      summary: 'A page of documents, in docno byte order (keyset paging with `after`)',
      ...anyUser,
      request: { params: CollectionParam, query: Page },
      responses: {
        200: {
          description: 'one page',
          content: { 'application/json': { schema: DocumentPageSchema } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const { limit, after } = c.req.valid('query');
      const page = await listDocuments(
        c.var.db,
        c.req.valid('param').collection,
        after === undefined ? { limit } : { limit, after },
      );
      const next = page.length === limit ? page[page.length - 1]!.docId : null;
      return c.json({ documents: page.map(present), next }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{docId}',
      tags: ['documents'],
      summary: 'One document by docno',
      ...anyUser,
      request: {
        params: CollectionParam.extend({
          docId: z
            .string()
            .min(1)
            .openapi({ param: { name: 'docId', in: 'path' } }),
        }),
      },
      responses: {
        200: {
          description: 'the document',
          content: { 'application/json': { schema: DocumentSchema } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const params = c.req.valid('param');
      return c.json(present(await getDocument(c.var.db, params.collection, params.docId)), 200);
    },
  );
