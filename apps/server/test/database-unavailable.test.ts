// A database that cannot be reached (here: PostgreSQL on a port nothing listens on) gives
// 503 `unavailable` with Retry-After, never 500; health still answers, saying it is down.
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase } from '@assay/platform/testing';
import { createApp } from '../src/index.js';

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  const url = `postgres://postgres@127.0.0.1:${await closedPort()}/none`;
  database = await openTestDatabase({ databaseUrl: url, migrate: false });
});
afterAll(async () => {
  await database?.close();
});

it('answers 503 unavailable with Retry-After while the database cannot be reached', async () => {
  const logged: string[] = [];
  const app = createApp({ db: database.db, log: (line) => logged.push(line) });
  const response = await app.request('/api/collections', {
    headers: { authorization: 'Bearer assay_some-token' },
  });
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(await response.json()).toEqual({
    error: {
      code: 'unavailable',
      message: 'the database cannot be reached right now; try again in a few seconds',
    },
  });
  // Not an internal error: nothing for the log.
  expect(logged).toEqual([]);
  const health = await app.request('/api/health');
  expect(health.status).toBe(200);
  // Down once the probe has failed (it may still be in flight on the first check).
  for (let i = 0; i < 2400; i++) {
    const body = (await (await app.request('/api/health')).json()) as { database: string };
    if (body.database !== 'busy') {
      expect(body.database).toBe('down');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('health never said down');
});
