import {
  addUser,
  issueUserToken,
  listUserSummariesPage,
  SMALL_PAGE,
  listUserTokens,
  revokeUserToken,
  revokeUserTokens,
  rotateUserToken,
  type ApiToken,
  type IssuedToken,
} from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { linkNextPage, pageOptions, pageQuery, pageResponse } from '../core/paging.js';
import { createRouter } from '../router.js';
import { adminOnly, annotatorRoute, readErrors, writeErrors } from '../core/schemas.js';

const UserParam = z.object({
  user: z
    .string()
    .min(1)
    .openapi({ param: { name: 'user', in: 'path' }, description: 'user id or name' }),
});

const NewUser = z
  .object({
    name: z.string().trim().min(1).max(200),
    role: z.enum(['annotator', 'admin']),
  })
  .openapi('NewUser');

const CreatedUserSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    role: z.enum(['annotator', 'admin']),
    token: z.string().openapi({ description: 'the API token, shown only in this response' }),
  })
  .openapi('CreatedUser');

const UserSummarySchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    role: z.enum(['annotator', 'admin']),
    createdAt: z.string(),
    activeTokens: z.number().int(),
    lastUsedAt: z.string().nullable(),
  })
  .openapi('User');

const TokenParams = UserParam.extend({
  tokenId: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'a token id is a number')
    .openapi({ param: { name: 'tokenId', in: 'path' }, description: 'token id' }),
});

const IssueOptions = z.object({
  label: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'what the token is for (default "issued")' }),
});

const TokenSchema = z
  .object({
    id: z.number().int(),
    label: z.string().nullable(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .openapi('ApiToken');

const IssuedTokenSchema = CreatedUserSchema.extend({ tokenInfo: TokenSchema }).openapi(
  'IssuedToken',
);

/** A token's record as the API shows it: never the secret. */
function presentToken(t: ApiToken) {
  return {
    id: t.id,
    label: t.label,
    createdAt: t.createdAt.toISOString(),
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
  };
}

function presentIssued(issued: IssuedToken) {
  return {
    id: issued.id,
    name: issued.name,
    role: issued.role,
    token: issued.token,
    tokenInfo: presentToken(issued.apiToken),
  };
}

const userRef = (value: string) => (/^[0-9]{1,15}$/.test(value) ? Number(value) : value);

/** `/api/me`: who the token belongs to (the web app's sign-in check). */
export const me = createRouter().openapi(
  createRoute({
    method: 'get',
    path: '/',
    tags: ['users'],
    summary: 'The user this token belongs to',
    ...annotatorRoute,
    responses: {
      200: {
        description: 'the user',
        content: {
          'application/json': {
            schema: z.object({
              id: z.number().int(),
              name: z.string(),
              role: z.enum(['annotator', 'admin']),
            }),
          },
        },
      },
      ...readErrors,
    },
  }),
  (c) => {
    const user = c.get('user');
    return c.json({ id: user.id, name: user.name, role: user.role }, 200);
  },
);

/** `/api/users`: people who administer or annotate, and their tokens (admin only). */
export const users = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['users'],
      summary: 'Every user with their live token count and last use (cursor paging)',
      ...adminOnly,
      request: { query: z.object(pageQuery(SMALL_PAGE)) },
      responses: {
        200: pageResponse('a page of users, by name (then id)', UserSummarySchema),
        ...writeErrors,
      },
    }),
    async (c) => {
      const page = await listUserSummariesPage(c.var.db, pageOptions(c.req.valid('query')));
      linkNextPage(c, page.next);
      return c.json(
        page.items.map((u) => ({
          id: u.id,
          name: u.name,
          role: u.role,
          createdAt: u.createdAt.toISOString(),
          activeTokens: u.activeTokens,
          lastUsedAt: u.lastUsedAt?.toISOString() ?? null,
        })),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['users'],
      summary: 'Create a user; the response holds their API token, shown once',
      ...adminOnly,
      request: { body: { required: true, content: { 'application/json': { schema: NewUser } } } },
      responses: {
        201: {
          description: 'the user and their token',
          content: { 'application/json': { schema: CreatedUserSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => c.json(await addUser(c.var.db, c.req.valid('json')), 201),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{user}/tokens',
      tags: ['users'],
      summary: 'Issue a new API token for a user (a new invite), shown once',
      ...adminOnly,
      request: { params: UserParam, query: IssueOptions },
      responses: {
        201: {
          description: 'the user and the new token',
          content: { 'application/json': { schema: IssuedTokenSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const issued = await issueUserToken(c.var.db, userRef(c.req.valid('param').user), {
        ...(c.req.valid('query').label === undefined ? {} : { label: c.req.valid('query').label }),
      });
      return c.json(presentIssued(issued), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{user}/tokens',
      tags: ['users'],
      summary: 'A user’s tokens (ids, labels, times; never the secrets), newest first',
      description: 'An admin sees anyone’s tokens; other users only their own.',
      ...annotatorRoute,
      request: { params: UserParam },
      responses: {
        200: {
          description: 'the tokens, revoked ones included',
          content: { 'application/json': { schema: z.array(TokenSchema) } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const { tokens } = await listUserTokens(
        c.var.db,
        userRef(c.req.valid('param').user),
        c.get('user'),
      );
      return c.json(tokens.map(presentToken), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{user}/tokens/{tokenId}',
      tags: ['users'],
      summary: 'Revoke one token of a user; it stops working at once',
      description:
        'An admin may revoke anyone’s token; other users only their own. The last token ' +
        'of the last admin is kept (409).',
      ...annotatorRoute,
      request: { params: TokenParams },
      responses: {
        200: {
          description: 'the revoked token',
          content: { 'application/json': { schema: TokenSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const { user, tokenId } = c.req.valid('param');
      const { token } = await revokeUserToken(
        c.var.db,
        userRef(user),
        Number(tokenId),
        c.get('user'),
      );
      return c.json(presentToken(token), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{user}/tokens/{tokenId}/rotate',
      tags: ['users'],
      summary: 'Replace one token by a new one with the same label, shown once',
      description: 'An admin may rotate anyone’s token; other users only their own.',
      ...annotatorRoute,
      request: { params: TokenParams },
      responses: {
        201: {
          description: 'the user and the new token (the old one no longer works)',
          content: { 'application/json': { schema: IssuedTokenSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const { user, tokenId } = c.req.valid('param');
      const issued = await rotateUserToken(c.var.db, userRef(user), Number(tokenId), c.get('user'));
      return c.json(presentIssued(issued), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{user}/revoke',
      tags: ['users'],
      summary: 'Revoke every token of a user',
      ...adminOnly,
      request: { params: UserParam },
      responses: {
        200: {
          description: 'how many tokens were revoked',
          content: {
            'application/json': {
              schema: z.object({
                id: z.number().int(),
                name: z.string(),
                revoked: z.number().int(),
              }),
            },
          },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const { user, revoked } = await revokeUserTokens(
        c.var.db,
        userRef(c.req.valid('param').user),
      );
      return c.json({ id: user.id, name: user.name, revoked }, 200);
    },
  );
