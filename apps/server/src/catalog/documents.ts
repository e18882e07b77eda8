import { createRoute, z } from '@hono/zod-openapi';
import {
  DOCUMENT_FORMATS,
  DOCUMENT_PAGE,
  getDocument,
  importDocuments,
  listDocumentsPage,
  type StoredDocument,
} from '@assay/platform';
import { linkNextPage, pageOptions, pageQuery } from '../core/paging.js';
import { createRouter } from '../router.js';
import { collectionFromPath } from '../core/resolve.js';
import {
  adminOnly,
  CollectionParam,
  DocumentSchema,
  readErrors,
  uploadBody,
  writeErrors,
} from '../core/schemas.js';
import { readUpload } from '../core/upload.js';

const AddOptions = z.object({
  format: z.enum(DOCUMENT_FORMATS).optional().openapi({
    description:
      'jsonl, tsv or cranfield (default: from the file name, .jsonl, .tsv or cran.all*, else its first line)',
  }),
});

const Page = z.object({
  ...pageQuery(DOCUMENT_PAGE),
  after: pageQuery(DOCUMENT_PAGE).after.openapi({
    description: 'continue after this docno (the previous page’s `next` or `X-Next-Cursor`)',
  }),
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
      ...adminOnly,
      request: { params: CollectionParam, query: Page },
      responses: {
        200: {
          description:
            'one page; when more follow, `next` and the `X-Next-Cursor` header hold the ' +
            '`after` of the next page, and `Link` its URL',
          headers: z.object({
            'X-Next-Cursor': z.string().optional(),
            Link: z.string().optional(),
          }),
          content: { 'application/json': { schema: DocumentPageSchema } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const page = await listDocumentsPage(
        c.var.db,
        c.req.valid('param').collection,
        pageOptions(c.req.valid('query')),
      );
      linkNextPage(c, page.next);
      return c.json({ documents: page.items.map(present), next: page.next }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['documents'],
      summary: 'Add documents to a collection that exists (JSONL, TSV or Cranfield)',
      description:
        'The whole file is parsed first, then written in one transaction; a docno the ' +
        'collection already holds fails the whole file (409, naming them), nothing kept.',
      ...adminOnly,
      request: {
        params: CollectionParam,
        query: AddOptions,
        body: uploadBody({ format: { description: 'jsonl, tsv or cranfield' } }),
      },
      responses: {
        201: {
          description: 'how many documents were added, and how many the collection holds now',
          content: {
            'application/json': {
              schema: z.object({ documents: z.number().int(), total: z.number().int() }),
            },
          },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const collection = await collectionFromPath(c.var.db, c.req.valid('param').collection);
      const upload = await readUpload(c, AddOptions, 'documents');
      const added = await importDocuments(c.var.db, {
        collection: collection.id,
        format: upload.options.format,
        text: upload.text,
        file: upload.file,
      });
      return c.json({ documents: added.documents, total: added.total }, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{docId}',
      tags: ['documents'],
      summary: 'One document by docno',
      ...adminOnly,
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
