import { checkDatabaseHealth } from '@assay/platform';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../router.js';
import { publicRoute } from '../core/schemas.js';

/** `/api/health`: liveness, public (load balancers and `npm start` scripts poll it). */
export const health = createRouter().openapi(
  createRoute({
    method: 'get',
    path: '/',
    tags: ['system'],
    summary: 'Liveness check (no token needed); says whether the database answers',
    ...publicRoute,
    responses: {
      200: {
        description:
          'the server is up; `database` is ok, busy (a long statement such as a large import holds it) or down, and `lastDatabaseRoundTrip` when it last answered',
        content: {
          'application/json': {
            schema: z.object({
              status: z.literal('ok'),
              database: z.enum(['ok', 'busy', 'down']),
              lastDatabaseRoundTrip: z.string().nullable(),
            }),
          },
        },
      },
    },
  }),
  async (c) => {
    // Never waits behind a long import: a busy database is reported, not queued behind.
    const db = await checkDatabaseHealth(c.var.db);
    return c.json(
      { status: 'ok' as const, database: db.state, lastDatabaseRoundTrip: db.lastRoundTrip },
      200,
    );
  },
);
