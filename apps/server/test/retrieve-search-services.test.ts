import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import type { AssayConfig } from '@assay/platform';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { setUpApi, type TestApi } from './helpers.js';

const DOCS = ['d1\twing flutter', 'd2\tshock waves', 'd3\theat transfer'].join('\n');

/**
 * Elasticsearch's `_search` test double: `POST /{index}/_search` with a match query answers
 * `{hits: {hits: [{_id, _score, _source}]}}` as Elasticsearch documents it; it records the
 * bodies it received.
 */
async function startElasticsearchDouble(): Promise<{
  url: string;
  bodies: Array<{ path: string; body: unknown }>;
  close: () => Promise<void>;
}> {
  const bodies: Array<{ path: string; body: unknown }> = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', body: JSON.parse(text) as unknown });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          took: 1,
          timed_out: false,
          hits: {
            total: { value: 1, relation: 'eq' },
            max_score: 2.5,
            hits: [{ _index: 'p', _id: 'e9', _score: 2.5, _source: { contents: 'remote' } }],
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

forEachDatabase('POST /api/collections/{c}/runs/retrieve: search services, first stages', (t) => {
  let api: TestApi;
  let llm: TestServer;
  const admin = () => ({ token: (api as TestApi).admin });

  beforeEach(async () => {
    // The chat model writes "shock" as every pseudo-document; the cross-encoder scores by text.
    const scores: Record<string, number> = { 'heat transfer': 0.9, 'wing flutter': 0.4 };
    llm = await startOpenAITestServer((body, _n, path) =>
      path.endsWith('/rerank')
        ? {
            json: {
              results: (body.documents as string[]).map((d, index) => ({
                index,
                relevance_score: scores[d] ?? 0,
              })),
            },
          }
        : { reply: 'shock' },
    );
    const config: AssayConfig = { dataDir: '/nonexistent', port: 0, openaiBaseUrl: llm.baseURL };
    api = await setUpApi(t.db, { config });
    const collection = await api.call('POST', '/api/collections?name=demo&format=tsv', {
      ...admin(),
      body: DOCS,
    });
    expect(collection.status).toBe(201);
    const topics = await api.call('POST', '/api/collections/demo/topics', {
      ...admin(),
      body: '1\twing\n2\tshock\n',
    });
    expect(topics.status).toBe(201);
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

  it('settings.firstStage: rerank takes its candidates from a stored run; a topic it lacks is named', async () => {
    // Topic 1's first stage: d1 above d3 (d3 has no term of "wing"); no list for topic 2.
    const imported = await api.call('POST', '/api/collections/demo/runs?name=first', {
      ...admin(),
      body: '1 Q0 d1 1 2 x\n1 Q0 d3 2 1 x\n',
    });
    expect(imported.status).toBe(201);
    const r = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: {
        method: 'rerank',
        tag: 'fs',
        rerankerModel: 'ce',
        settings: { reranker: 'cross-encoder', firstStage: 'first' },
      },
    });
    expect(r.status).toBe(201);
    const body = (await r.json()) as Record<string, unknown>;
    expect(body.missing).toEqual([{ topic: '2', reason: 'not in the first-stage run "first"' }]);
    expect(body.parameters).toMatchObject({ 'rerank.first-stage': 'first' });
    // The cross-encoder put d3 ("heat transfer", 0.9) above d1 ("wing flutter", 0.4).
    expect(await entries('fs', '1')).toEqual(['d3', 'd1']);

    const strict = await api.call('POST', '/api/collections/demo/runs/retrieve', {
      ...admin(),
      json: {
        method: 'rerank',
        tag: 'fs2',
        rerankerModel: 'ce',
        strict: true,
        settings: { reranker: 'cross-encoder', firstStage: 'first' },
      },
    });
    expect(strict.status).toBe(422);
  });

  it('settings.search: query2doc searches an Elasticsearch _search endpoint', async () => {
    const es = await startElasticsearchDouble();
    try {
      const r = await api.call('POST', '/api/collections/demo/runs/retrieve', {
        ...admin(),
        json: {
          method: 'query2doc',
          tag: 'q2d-es',
          model: 'm',
          settings: { search: es.url, searchApi: 'elasticsearch', searchIndex: 'p' },
        },
      });
      expect(r.status).toBe(201);
      expect(await entries('q2d-es', '1')).toEqual(['e9']);
      // Query2doc's sparse query: the topic five times, then the pseudo-document.
      expect(es.bodies).toContainEqual({
        path: '/p/_search',
        body: { size: 1000, query: { match: { contents: 'wing wing wing wing wing shock' } } },
      });
      expect(es.bodies).toHaveLength(2);
    } finally {
      await es.close();
    }
  });
});
