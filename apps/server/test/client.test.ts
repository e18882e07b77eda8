import { hc } from 'hono/client';
import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import type { AssayApp } from '../src/index.js';
import { setUpApi, type TestApi } from './helpers.js';

forEachDatabase('typed client', (t) => {
  let api: TestApi;
  beforeEach(async () => {
    api = await setUpApi(t.db);
  });

  it('calls the API through hono’s typed client', async () => {
    const client = hc<AssayApp>('http://assay.test', {
      fetch: (input: string | URL | Request, init?: RequestInit) =>
        api.app.fetch(new Request(input, init)),
      headers: { authorization: `Bearer ${api.admin}` },
    });
    const created = await api.call('POST', '/api/collections?name=demo&format=tsv', {
      token: api.admin,
      body: 'd1\tone\n',
    });
    expect(created.status).toBe(201);
    const list = await client.api.collections.$get({ query: {} });
    expect(list.status).toBe(200);
    if (list.status !== 200) return;
    const collections = await list.json();
    // Typed: documentCount is a number on the client side too.
    const total: number = collections.reduce((n, c) => n + c.documentCount, 0);
    expect(total).toBe(1);
    const one = await client.api.collections[':collection'].$get({
      param: { collection: 'demo' },
    });
    expect(one.status).toBe(200);
    const evaluation = await client.api.evaluations.$post({
      json: { collection: 'demo', labelSet: 'none', runs: ['x'], measures: ['map'] },
    });
    expect(evaluation.status).toBe(404);
  });
});
