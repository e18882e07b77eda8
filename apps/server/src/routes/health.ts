import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../router.js';

/** `/api/health`: liveness, public (load balancers and `npm start` scripts poll it). */
export const health = createRouter().openapi(
  createRoute({
    method: 'get',
    path: '/',
    tags: ['system'],
    summary: 'Liveness check (no token needed)',
    security: [],
    responses: {
      200: {
        description: 'the server is up',
        content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } },
      },
    },
  }),
  (c) => c.json({ status: 'ok' as const }, 200),
);
