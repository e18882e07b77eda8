import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

// Five short documents; topic 1 asks for "wing flutter", topic 2 for "shock".
const DOCS = [
  'd1\twing flutter in wind tunnels',
  'd2\tshock waves and shock layers',
  'd3\tthe flutter of a wing, and wing flutter again',
  'd4\theat transfer in hypersonic flow',
  'd5\tshock',
].join('\n');

forEachDatabase('POST /api/collections/{c}/runs/retrieve', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    api = await setUpApi(t.db);
    expect(
      (await api.call('POST', '/api/collections?name=demo&format=tsv', { ...admin(), body: DOCS }))
        .status,
    ).toBe(201);
    expect(
      (
        await api.call('POST', '/api/collections/demo/topics', {
          ...admin(),
          body: '1\twing flutter\n2\tshock\n',
        })
      ).status,
    ).toBe(201);
  });

  async function entries(run: string, topic: string): Promise<string[]> {
    const r = await api.call(
      'GET',
      `/api/collections/demo/runs/${run}/entries?topic=${topic}`,
      admin(),
    );
    expect(r.status).toBe(200);
    return ((await r.json()) as { docId: string }[]).map((e) => e.docId);
  }

  it('stores a bm25 run, ranked as BM25 ranks, with its parameters recorded', async () => {
    const r = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'bm25', tag: 'bm25' },
    });
    expect(r.status).toBe(201);
    const body = (await r.json()) as {
      name: string;
      entries: number;
      topics: number;
      parameters: Record<string, unknown>;
    };
    // Topic 1 matches d1 and d3; topic 2 matches d2 and d5: four entries over two topics.
    expect(body).toMatchObject({ name: 'bm25', entries: 4, topics: 2 });
    expect(body.parameters).toMatchObject({
      method: 'bm25',
      k1: 0.9,
      b: 0.4,
      k: 1000,
      documents: 5,
    });
    // Analysed lengths 4, 4, 5, 4, 1 (stopwords out): avgdl 3.6. d3 has "wing" and
    // "flutter" twice each, d1 once each: d3 first. For "shock", d2 (tf 2, dl 4) scores
    // 2/(2 + 0.9·(0.6 + 0.4·4/3.6)) = 0.680 of idf, d5 (tf 1, dl 1) 1/(1 + 0.64) = 0.610.
    expect(await entries('bm25', '1')).toEqual(['d3', 'd1']);
    expect(await entries('bm25', '2')).toEqual(['d2', 'd5']);
    const run = (await (
      await api.call('GET', '/api/collections/demo/runs/bm25', admin())
    ).json()) as {
      description: string;
    };
    expect(run.description).toMatch(
      /^retrieved by assay: method=bm25; analyzer=porter\+english-stopwords v1; k1=0.9; b=0.4;/,
    );
    expect(run.description).toMatch(/index=sha256:[0-9a-f]{64}/);
  });

  it('names the topics without results, and stores nothing for them with strict', async () => {
    expect(
      (
        await api.call('POST', '/api/collections/demo/topics', {
          ...admin(),
          body: '3\tzeppelin\n4\tthe of\n',
        })
      ).status,
    ).toBe(201);
    const r = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'bm25', tag: 'some' },
    });
    expect(r.status).toBe(201);
    expect(await r.json()).toMatchObject({
      topics: 2,
      topicsAsked: 4,
      missing: [
        { topic: '3', reason: 'no term of the query occurs in the collection' },
        { topic: '4', reason: 'the query has no term after analysis (empty, or stopwords only)' },
      ],
    });
    const strict = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'bm25', tag: 'strict', strict: true },
    });
    expect(await errorOf(strict)).toMatchObject({
      status: 422,
      message:
        'bm25: 2 of 4 topics have no results (strict: nothing was stored): 3 (no term of the query occurs in the collection), 4 (the query has no term after analysis (empty, or stopwords only))',
    });
    const runs = await api.call('GET', '/api/collections/demo/runs', admin());
    expect(JSON.stringify(await runs.json())).not.toContain('"strict"');
  });

  it('retrieves only some topics, with other parameters, and replaces on request', async () => {
    const json = { method: 'rm3', tag: 'rm3', topics: ['2'], params: { k: 1, fbDocs: 2 } };
    const first = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json,
    });
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({
      entries: 1,
      topics: 1,
      parameters: { 'rm3.fbDocs': 2, k: 1 },
    });
    const again = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json,
    });
    expect(await errorOf(again)).toMatchObject({ status: 409, code: 'conflict' });
    const replaced = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { ...json, replace: true },
    });
    expect(replaced.status).toBe(201);
    expect(await replaced.json()).toMatchObject({ replaced: true });
  });

  it('runs in the background and reports the job until the run is stored', async () => {
    const r = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'qbd', tag: 'qbd', background: true },
    });
    expect(r.status).toBe(202);
    const job = (await r.json()) as { id: number; status: string };
    expect(job.status).toBe('running');
    let state: { status: string; result: { name: string } | null } = {
      status: 'running',
      result: null,
    };
    for (let i = 0; i < 1000 && state.status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = (await (
        await api.call('GET', `/api/collections/demo/runs/retrieve/${job.id}`, admin())
      ).json()) as typeof state;
    }
    expect(state.status).toBe('done');
    expect(state.result).toMatchObject({ name: 'qbd' });
    // The finished job's phase and counts: both topics retrieved for.
    expect((state as unknown as { progress: unknown }).progress).toEqual({
      phase: 'done',
      done: 2,
      total: 2,
    });
    expect((await api.call('GET', '/api/collections/demo/runs/qbd', admin())).status).toBe(200);
    const missing = await api.call(
      'GET',
      `/api/collections/demo/runs/retrieve/${job.id + 1000}`,
      admin(),
    );
    expect(await errorOf(missing)).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('a background job that fails reports phase failed and names the topics without results', async () => {
    expect(
      (
        await api.call('POST', '/api/collections/demo/topics', {
          ...admin(),
          body: '3\tzeppelin\n',
        })
      ).status,
    ).toBe(201);
    const r = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'bm25', tag: 'strict', strict: true, background: true },
    });
    expect(r.status).toBe(202);
    const job = (await r.json()) as { id: number };
    let state: { status: string } = { status: 'running' };
    for (let i = 0; i < 1000 && state.status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = (await (
        await api.call('GET', `/api/collections/demo/runs/retrieve/${job.id}`, admin())
      ).json()) as typeof state;
    }
    expect(state).toMatchObject({
      status: 'failed',
      progress: { phase: 'failed', done: 3, total: 3 },
      result: null,
      error: {
        code: 'invalid_input',
        message:
          'bm25: 1 of 3 topics have no results (strict: nothing was stored): 3 (no term of the query occurs in the collection)',
      },
    });
  });

  it('validates the request at the edge and refuses non-admins', async () => {
    const call = (json: unknown, token = api.admin) =>
      api.call('POST', '/api/collections/demo/runs/retrieve', { token, json });
    expect((await errorOf(await call({ method: 'dense', tag: 'x' }))).status).toBe(400);
    expect((await errorOf(await call({ method: 'bm25', tag: 'has space' }))).status).toBe(400);
    expect((await errorOf(await call({ method: 'bm25', tag: 'x', params: { b: 2 } }))).status).toBe(
      400,
    );
    expect(
      (await errorOf(await call({ method: 'bm25', tag: 'x', params: { nope: 1 } }))).status,
    ).toBe(400);
    expect(await errorOf(await call({ method: 'bm25', tag: 'x', topics: ['9'] }))).toMatchObject({
      status: 422,
      code: 'invalid_input',
    });
    expect((await errorOf(await call({ method: 'bm25', tag: 'x' }, api.annotator))).status).toBe(
      403,
    );
    expect((await api.call('GET', '/api/collections/demo/runs', admin())).status).toBe(200);
    const runs = (await (
      await api.call('GET', '/api/collections/demo/runs', admin())
    ).json()) as unknown[];
    expect(runs).toEqual([]);
  });
});
