import { afterEach, beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import type { AssayConfig } from '@assay/platform';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { faultyAnswer } from '@assay/test-support/schema-answers';
import { methodNeeds, MODEL_METHODS, parseMethodSettings } from '@assay/methods';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

// Five short documents; topic 1 asks for "wing flutter", topic 2 for "shock".
const DOCS = [
  'd1\twing flutter in wind tunnels',
  'd2\tshock waves and shock layers',
  'd3\tthe flutter of a wing, and wing flutter again',
  'd4\theat transfer in hypersonic flow',
  'd5\tshock',
].join('\n');

function userMessage(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

forEachDatabase('POST /api/collections/{c}/runs/retrieve with models', (t) => {
  let api: TestApi;
  let llm: TestServer;
  let config: AssayConfig;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    // The pseudo-document of "wing flutter" says "shock", that of "shock" says "heat".
    llm = await startOpenAITestServer((body) => {
      const user = userMessage(body);
      if (user.includes('Query: wing flutter')) return { reply: 'shock' };
      if (user.includes('Query: shock')) return { reply: 'heat' };
      return { status: 400, message: 'unexpected prompt' };
    });
    config = { dataDir: '/nonexistent', port: 0, openaiBaseUrl: llm.baseURL };
    api = await setUpApi(t.db, { config });
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
  afterEach(() => llm.close());

  async function entries(run: string, topic: string): Promise<string[]> {
    const r = await api.call(
      'GET',
      `/api/collections/demo/runs/${run}/entries?topic=${topic}`,
      admin(),
    );
    expect(r.status).toBe(200);
    return ((await r.json()) as { docId: string }[]).map((e) => e.docId);
  }

  it('stores a query2doc run with its trace; the same retrieval again sends nothing', async () => {
    const r = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'query2doc', tag: 'q2d', model: 'm' },
    });
    expect(r.status).toBe(201);
    const body = (await r.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      name: 'q2d',
      topics: 2,
      failures: [],
      unfinished: [],
      spend: { calls: 2, failedCalls: 0 },
    });
    expect(body.parameters).toMatchObject({
      method: 'query2doc',
      model: 'm',
      'query2doc.aggregation': 'sparse',
      'query2doc.query-repeats': 5,
    });
    expect(llm.requests).toHaveLength(2);
    // Topic 1's query is "wing flutter" five times and "shock": d3 and d1 (wing, flutter,
    // weighted five times) before d2 and d5 (shock once). Topic 2's is "shock" five times
    // and "heat": d2 (tf 2), d5 (tf 1, BM25 0.61 of idf against d2's 0.68), then d4 for
    // "heat" (idf ln 4 · 0.52 = 0.71, below d5's 5 · 0.61 · ln 2.4 = 2.67).
    expect(await entries('q2d', '1')).toEqual(['d3', 'd1', 'd2', 'd5']);
    expect(await entries('q2d', '2')).toEqual(['d2', 'd5', 'd4']);

    const trace = await api.call('GET', '/api/collections/demo/runs/q2d/trace?topic=1', admin());
    expect(trace.status).toBe(200);
    expect(await trace.json()).toEqual([
      {
        topic: '1',
        method: 'query2doc',
        step: 'pseudo-document',
        prompt: 'query2doc',
        text: 'shock',
        cached: false,
      },
      {
        topic: '1',
        method: 'query2doc',
        step: 'query',
        text: 'wing flutter wing flutter wing flutter wing flutter wing flutter shock',
      },
    ]);
    // Paged: one entry a page, the cursor leads to the next.
    const first = await api.call(
      'GET',
      '/api/collections/demo/runs/q2d/trace?topic=1&limit=1',
      admin(),
    );
    const next = first.headers.get('x-next-cursor');
    expect(next).not.toBeNull();
    const second = await api.call(
      'GET',
      `/api/collections/demo/runs/q2d/trace?topic=1&limit=1&after=${next}`,
      admin(),
    );
    expect(((await second.json()) as { step: string }[])[0]!.step).toBe('query');
    // Topic 1 has two entries: the second page is its last, without a cursor.
    expect(second.headers.get('x-next-cursor')).toBeNull();

    const again = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'query2doc', tag: 'q2d', model: 'm', replace: true },
    });
    expect(again.status).toBe(201);
    expect(await again.json()).toMatchObject({ replaced: true, spend: { calls: 0 } });
    expect(llm.requests).toHaveLength(2);
    expect(await entries('q2d', '1')).toEqual(['d3', 'd1', 'd2', 'd5']);
  });

  it('runs in the background as a job with the trace count and spend in its result', async () => {
    const r = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'query2doc', tag: 'bg', model: 'm', background: true },
    });
    expect(r.status).toBe(202);
    const job = (await r.json()) as { id: number };
    let state: { status: string; result: Record<string, unknown> | null } = {
      status: 'running',
      result: null,
    };
    for (let i = 0; i < 200 && state.status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      state = (await (
        await api.call('GET', `/api/collections/demo/runs/retrieve/${job.id}`, admin())
      ).json()) as typeof state;
    }
    expect(state.status).toBe('done');
    expect(state.result).toMatchObject({ name: 'bg', topics: 2, traceEntries: 4 });
    // The finished job's phase and counts: both topics retrieved for.
    expect((state as unknown as { progress: unknown }).progress).toEqual({
      phase: 'done',
      done: 2,
      total: 2,
    });
  });

  it('keeps a topic whose answers stay unusable out of the run and lists it', async () => {
    await llm.close();
    llm = await startOpenAITestServer((body) =>
      userMessage(body).includes('Query: shock') ? { reply: '   ' } : { reply: 'shock' },
    );
    config.openaiBaseUrl = llm.baseURL;
    const r = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'query2doc', tag: 'partial', model: 'm' },
    });
    expect(r.status).toBe(201);
    const body = (await r.json()) as { topics: number; failures: { topic: string }[] };
    expect(body.topics).toBe(1);
    expect(body.failures).toEqual([
      {
        topic: '2',
        reason: 'query2doc: unusable answer after 3 attempts: empty answer',
      },
    ]);
    expect(await entries('partial', '2')).toEqual([]);
  });

  it('refuses a model method without its model, or without an endpoint', async () => {
    const noModel = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'amd', tag: 'x' },
    });
    expect(await errorOf(noModel)).toMatchObject({
      status: 422,
      code: 'invalid_input',
      message: 'amd needs a chat model ("model")',
    });
    const noEmbeddings = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'dense', tag: 'x' },
    });
    expect((await errorOf(noEmbeddings)).message).toBe(
      'dense needs an embeddings model ("embeddingModel")',
    );
    const bm25WithModel = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'bm25', tag: 'x', model: 'm' },
    });
    expect((await errorOf(bm25WithModel)).code).toBe('invalid_input');
    const unknownSetting = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'amd', tag: 'x', model: 'm', settings: { colour: 'red' } },
    });
    expect((await errorOf(unknownSetting)).status).toBe(400);
    const otherMethods = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'amd', tag: 'x', model: 'm', settings: { rounds: 3 } },
    });
    expect(await errorOf(otherMethods)).toMatchObject({
      status: 422,
      message: '"settings.rounds" applies to grill only, not amd',
    });
    const aqdA = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'gr-aqd-a', tag: 'x', model: 'm' },
    });
    expect((await errorOf(aqdA)).message).toBe(
      'gr-aqd-a reranks the interleaved list against the answer: give "settings.reranker" (cross-encoder or rankgpt); without a reranker it would be gr-aqd',
    );
    const unpriced = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'amd', tag: 'x', model: 'm', budgetUsd: 1 },
    });
    expect((await errorOf(unpriced)).message).toMatch(
      /^"budgetUsd" needs the price of m: add it to .*prices\.json/,
    );
    const lexicalParams = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'llmforum', tag: 'x', model: 'm', params: { fbDepth: 3 } },
    });
    expect((await errorOf(lexicalParams)).message).toBe(
      '"params.fbDepth" applies to the lexical methods; methods with models take their settings in "settings"',
    );

    delete config.openaiBaseUrl;
    const noEndpoint = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: { method: 'query2doc', tag: 'x', model: 'm' },
    });
    expect((await errorOf(noEndpoint)).message).toMatch(/no chat endpoint is configured/);
    expect(llm.requests).toHaveLength(0);
  });
});

forEachDatabase('every method with models over the API, against a faulty endpoint', (t) => {
  let api: TestApi;
  let llm: TestServer;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    llm = await startOpenAITestServer(faultyAnswer);
    api = await setUpApi(t.db, {
      config: { dataDir: '/nonexistent', port: 0, openaiBaseUrl: llm.baseURL },
    });
    await api.call('POST', '/api/collections?name=demo&format=tsv', { ...admin(), body: DOCS });
    const topics = [
      {
        id: '1',
        text: 'wing flutter',
        previous_turns: ['I study aircraft structures', 'What makes wings vibrate?'],
        user_background: ['I am an engineering student'],
      },
      { id: '2', text: 'shock' },
    ];
    expect(
      (
        await api.call('POST', '/api/collections/demo/topics', {
          ...admin(),
          body: topics.map((x) => JSON.stringify(x)).join('\n'),
        })
      ).status,
    ).toBe(201);
  });
  afterEach(() => llm.close());

  it.each(MODEL_METHODS.map((m) => [m]))(
    '%s: stores a run of both topics; the same retrieval again sends nothing',
    async (method) => {
      const json: Record<string, unknown> = { method, tag: `${method}-run`, params: { k: 5 } };
      // rerank and gr-aqd-a need a reranker: RankGPT, over the same faulty chat endpoint.
      const settings = method === 'rerank' || method === 'gr-aqd-a' ? { reranker: 'rankgpt' } : {};
      if (Object.keys(settings).length) json.settings = settings;
      const needs = methodNeeds(method, parseMethodSettings(method, settings));
      if (needs.chat) json.model = 'm';
      // llmforum embeds when it can: the paper's dense method.
      if (needs.embeddings !== 'none') json.embeddingModel = 'e';
      const r = await api.call('POST', '/api/collections/demo/runs/retrieve', { ...admin(), json });
      expect(r.status).toBe(201);
      expect(await r.json()).toMatchObject({ topics: 2, failures: [], unfinished: [] });
      const sent = llm.requests.length;
      const again = await api.call('POST', '/api/collections/demo/runs/retrieve', {
        ...admin(),
        json: { ...json, replace: true },
      });
      expect(again.status).toBe(201);
      expect(await again.json()).toMatchObject({ topics: 2, spend: { calls: 0 } });
      expect(llm.requests.length).toBe(sent);
    },
    240_000,
  );
});
