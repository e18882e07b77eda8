import { z, type RouteConfig } from '@hono/zod-openapi';
import type { AccessDeclaration } from '../access/route-access.js';
import { computing } from './computations.js';

/** `{ error: { code, message } }`, the body of every error response. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'not_found' }),
      message: z.string().openapi({ example: 'no collection "robust04"' }),
    }),
  })
  .openapi('Error');

/** A JSON response of the given schema: `200: json('the run', RunSchema)`. */
export const json = <T extends z.ZodTypeAny>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
});

const error = (description: string) => json(description, ErrorSchema);

/** Error responses of routes any authenticated user may call. */
export const readErrors = {
  400: error('invalid request (query or path parameters)'),
  401: error('missing, unknown or revoked API token'),
  404: error('not found'),
};

/** The 403 an admin route answers any other token (access/route-access.ts lists it). */
export const forbiddenError = error('the token is not an admin’s');

/** Error responses of admin-only routes that change data. */
export const writeErrors = {
  ...readErrors,
  403: forbiddenError,
  409: error('conflicts with existing data (e.g. a run of that name; use replace=true)'),
  413: error('the upload is larger than the server accepts'),
  422: error('the uploaded content is invalid; the message says `file:line: reason`'),
};

const bearer = [{ bearerAuth: [] }];

/**
 * Who may call a route, spread into its `createRoute` config: the one declaration the
 * authentication, the role check and the OpenAPI document read (see access/route-access.ts).
 * Public: anyone, no token.
 */
export const publicRoute: AccessDeclaration = { 'x-access': 'public', security: [] };

/** Any valid API token: annotators (their use-cases refuse what is not theirs) and admins. */
export const annotatorRoute: AccessDeclaration = { 'x-access': 'annotator', security: bearer };

/** Admin tokens only: everything that creates, imports or deletes, and every other read. */
export const adminOnly: AccessDeclaration = { 'x-access': 'admin', security: bearer };

/** Admin tokens only, for a heavy computation: it takes its turn (see computations.ts). */
export const adminComputation = { ...adminOnly, middleware: [computing] };

/** The error response of a heavy computation the server cannot queue. */
export const busyError = {
  503: error('the server is computing as much as it queues; try again after `Retry-After` seconds'),
};

/** A collection in a path: its numeric id or its name. */
export const CollectionParam = z.object({
  collection: z
    .string()
    .min(1)
    .openapi({ param: { name: 'collection', in: 'path' }, example: 'cranfield' }),
});

/** `{collection}/runs/{run}` path parameters. */
export const RunParams = CollectionParam.extend({
  run: z
    .string()
    .min(1)
    .openapi({ param: { name: 'run', in: 'path' }, description: 'run id or name' }),
});

/** `name` or numeric id of a collection, run or label set, in a JSON body. */
export const NameOrId = z.union([z.string().min(1), z.number().int().positive()]);

/**
 * A topic id in a request body: a string, or a JSON number (a whole number, written as its
 * decimal digits), since TREC topic ids are often numbers (`{"topics": [301, 302]}`).
 */
export const TopicId = z
  .union([z.string().min(1), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)])
  .transform((v) => String(v))
  .openapi({ description: 'a topic id; a whole JSON number is taken as its digits' });

/** A boolean query parameter: `true`/`1` or `false`/`0`. */
export const QueryFlag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === '1');

const Json = z.record(z.string(), z.unknown());
const Timestamp = z.string().openapi({ format: 'date-time' });

export const CollectionSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    documentCount: z.number().int(),
    topicCount: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('Collection');

export const DocumentSchema = z
  .object({
    docId: z.string(),
    title: z.string().nullable(),
    text: z.string(),
    metadata: Json,
  })
  .openapi('Document');

export const TopicSchema = z
  .object({
    topicId: z.string(),
    query: z.string(),
    description: z.string().nullable(),
    narrative: z.string().nullable(),
    context: Json.nullable(),
  })
  .openapi('Topic');

export const RunSchema = z
  .object({
    id: z.number().int(),
    collectionId: z.number().int(),
    name: z.string(),
    tag: z.string().nullable(),
    description: z.string().nullable(),
    entryCount: z.number().int(),
    topicCount: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('Run');

export const RunEntrySchema = z
  .object({ topicId: z.string(), docId: z.string(), rank: z.number().int(), score: z.number() })
  .openapi('RunEntry');

export const LabelSetSchema = z
  .object({
    id: z.number().int(),
    collectionId: z.number().int(),
    name: z.string(),
    kind: z.string().openapi({ example: 'human_qrels' }),
    scaleMin: z.number().int(),
    scaleMax: z.number().int(),
    config: Json,
    labelCount: z.number().int(),
    topicCount: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('LabelSet');

export const LabelSchema = z
  .object({
    topicId: z.string(),
    docId: z.string(),
    grade: z.number().int(),
    producedBy: z.string().nullable(),
    rationale: z.string().nullable(),
    createdAt: Timestamp,
  })
  .openapi('Label');

type RequestBody = NonNullable<NonNullable<RouteConfig['request']>['body']>;

/** An option of an upload, documented as a string field. */
interface UploadOption {
  description: string;
}

/** Request body of the upload routes, as documented (the handler reads it itself). */
export function uploadBody(options: Record<string, UploadOption>): RequestBody {
  const properties = Object.fromEntries(
    Object.entries(options).map(([name, o]) => [
      name,
      { type: 'string' as const, description: o.description },
    ]),
  );
  return {
    required: true,
    description:
      'The file as the raw body (text/plain), as the `file` field of multipart/form-data, or ' +
      'as the `text` field of a JSON object. Options go in the query string, or as form or ' +
      'JSON fields.',
    content: {
      'text/plain': { schema: { type: 'string' } },
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: ['file'],
          properties: { file: { type: 'string', format: 'binary' }, ...properties },
        },
      },
      'application/json': {
        schema: {
          type: 'object',
          required: ['text'],
          properties: {
            text: { type: 'string', description: 'the file’s content' },
            filename: { type: 'string', description: 'name used in `file:line` errors' },
            ...properties,
          },
        },
      },
    },
  };
}

/** Pairs a pool or campaign left out: their topic or document is not in the collection. */
export const LeftOutSchema = z
  .strictObject({
    topics: z.strictObject({ count: z.number().int(), first: z.array(z.string()) }),
    documents: z.strictObject({ count: z.number().int(), first: z.array(z.string()) }),
    pairs: z.number().int(),
    message: z.string().nullable().openapi({ description: 'null when nothing was left out' }),
  })
  .openapi('LeftOut');

/** `?topic=`: only one topic's rows. */
export const TopicQuery = z.object({
  topic: z.string().min(1).optional().openapi({ description: 'only this topic' }),
});
