import { addUser, issueUserToken, listUserSummaries, revokeUserTokens } from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../router.js';
import { adminOnly, anyUser, readErrors, writeErrors } from '../schemas.js';

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

const userRef = (value: string) => (/^[0-9]{1,15}$/.test(value) ? Number(value) : value);

/** `/api/me`: who the token belongs to (the web app's sign-in check). */
export const me = createRouter().openapi(
  createRoute({
    method: 'get',
    path: '/',
    tags: ['users'],
    summary: 'The user this token belongs to',
    ...anyUser,
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
      summary: 'Every user with their live token count and last use',
      ...adminOnly,
      responses: {
        200: {
          description: 'the users, by name',
          content: { 'application/json': { schema: z.array(UserSummarySchema) } },
        },
        ...writeErrors,
      },
    }),
    async (c) => {
      const list = await listUserSummaries(c.var.db);
      return c.json(
        list.map((u) => ({
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
      request: { params: UserParam },
      responses: {
        201: {
          description: 'the user and the new token',
          content: { 'application/json': { schema: CreatedUserSchema } },
        },
        ...writeErrors,
      },
    }),
    async (c) => c.json(await issueUserToken(c.var.db, userRef(c.req.valid('param').user)), 201),
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
