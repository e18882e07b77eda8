import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ALPHA_BETA_GAMMA_DOCS, describeOnEngines, retrieveArgumentsOnly } from './cli-fixtures.js';

/** A request a search-service test double received. */
interface Received {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

/**
 * A search-service test double: a small HTTP server answering every request with
 * `answer(request)` as JSON (status 200), recording what it received. The Anserini and
 * Elasticsearch doubles below answer as their documented APIs do.
 */
async function startSearchDouble(
  answer: (r: Received) => unknown,
): Promise<{ url: string; requests: Received[]; close: () => Promise<void> }> {
  const requests: Received[] = [];
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => resolve(text));
    });
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://double');
    const text = await read(req);
    const r: Received = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: text ? (JSON.parse(text) as unknown) : undefined,
    };
    requests.push(r);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer(r)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let double: Awaited<ReturnType<typeof startSearchDouble>> | undefined;
afterEach(async () => {
  await double?.close();
  double = undefined;
});

/**
 * Anserini's REST API test double: `GET /api/v1.0/indexes/{index}/search?query=…&hits=k`
 * answers `{query: {qid, text}, candidates: [{docid, score, doc}]}`, `doc` the stored
 * JSON document (x1) or the raw stored text (x2).
 */
const anserini = (r: Received) => ({
  query: { qid: '', text: r.query.query },
  candidates: [
    { docid: 'x1', score: 12.5, doc: { id: 'x1', contents: 'remote one' } },
    { docid: 'x2', score: 9, doc: 'remote two' },
  ].slice(0, Number(r.query.hits)),
});

/**
 * Elasticsearch's `_search` test double: `POST /{index}/_search` with a match query answers
 * `{took, timed_out, hits: {total, max_score, hits: [{_index, _id, _score, _source}]}}`.
 */
const elasticsearch = () => ({
  took: 1,
  timed_out: false,
  hits: {
    total: { value: 2, relation: 'eq' },
    max_score: 3.25,
    hits: [
      {
        _index: 'passages',
        _id: 'e1',
        _score: 3.25,
        _source: { body: 'elastic one', title: 'E1' },
      },
      { _index: 'passages', _id: 'e2', _score: 1.5, _source: { body: 'elastic two' } },
    ],
  },
});

describe('assay retrieve --search, --first-stage: arguments', () => {
  it.each([
    [
      ['--method', 'gr-qr', '--model', 'm', '--search', 'ftp://x'],
      "--search needs an http(s) URL, not 'ftp://x'",
    ],
    [
      ['--method', 'gr-qr', '--model', 'm', '--search', 'http://x'],
      '--search needs --search-api (anserini or elasticsearch)',
    ],
    [
      ['--method', 'gr-qr', '--model', 'm', '--search', 'http://x', '--search-api', 'anserini'],
      '--search needs --search-index',
    ],
    [
      ['--method', 'gr-qr', '--model', 'm', '--search-api', 'anserini'],
      '--search-api needs --search',
    ],
    [
      [
        '--method',
        'gr-qr',
        '--model',
        'm',
        '--search',
        'http://x',
        '--search-api',
        'anserini',
        '--search-index',
        'i',
        '--search-field',
        'f',
      ],
      '--search-field applies to --search-api elasticsearch',
    ],
    [['--method', 'bm25', '--search', 'http://x'], '--search applies to'],
    [
      ['--method', 'amd', '--model', 'm', '--first-stage', 'r.run'],
      '--first-stage applies to hybrid, grill and rerank only, not amd',
    ],
  ])('%j', async (extra, message) => {
    const result = await retrieveArgumentsOnly(extra);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });
});

describeOnEngines(
  'assay retrieve with a search service and a first stage',
  {
    prefix: 'assay-search-cli-',
    files: {
      'docs.jsonl': ALPHA_BETA_GAMMA_DOCS,
      'topics.tsv': '1\tbeta\n2\tgamma\n',
    },
    timeout: 120_000,
  },
  (ws) => {
    const retrieve = ws.retrieve([]);
    const grQr = ['--method', 'gr-qr', '--model', 'm', '--first-stage-k', '7'];
    const entries = (file: string) =>
      ws.runEntries(file).map((l) => l.split(/\s+/).slice(0, 5).join(' '));

    it('gr-qr searches its rewrites with Anserini REST; the reranker reads the texts of its hits', async () => {
      double = await startSearchDouble(anserini);
      // The chat model rewrites every request as "alpha question"; the cross-encoder scores
      // the service's texts (x2 above x1).
      const scores: Record<string, number> = { 'remote one': 0.2, 'remote two': 0.9 };
      const models = await ws.double.start((body, _n, path) =>
        path.endsWith('/rerank')
          ? {
              json: {
                results: (body.documents as string[]).map((d, index) => ({
                  index,
                  relevance_score: scores[d],
                })),
              },
            }
          : {
              reply: (body.messages as Array<{ content: string }>)[1]!.content.includes(
                'User question: beta',
              )
                ? 'alpha question'
                : 'gamma question',
            },
      );
      const result = await retrieve(
        'anserini.run',
        ...grQr,
        '--reranker',
        'cross-encoder',
        '--reranker-model',
        'ce',
        '--search',
        `${double.url}/`,
        '--search-api',
        'anserini',
        '--search-index',
        'msmarco-v1-passage',
      );
      expect(result.stderr).toContain('results for 2 of 2 topics');
      expect(result.code).toBe(0);
      // One search per topic (the topics run at once: in either order).
      expect(double.requests.sort((a, b) => a.query.query!.localeCompare(b.query.query!))).toEqual([
        {
          method: 'GET',
          path: '/api/v1.0/indexes/msmarco-v1-passage/search',
          query: { query: 'alpha question', hits: '7' },
          body: undefined,
        },
        {
          method: 'GET',
          path: '/api/v1.0/indexes/msmarco-v1-passage/search',
          query: { query: 'gamma question', hits: '7' },
          body: undefined,
        },
      ]);
      // The texts the reranker got are the service's (x1's parsed `contents`, x2's raw text).
      const reranked = models.requests.filter((r) => r.path.endsWith('/rerank'));
      expect(reranked.map((r) => r.body.documents)).toEqual([
        ['remote one', 'remote two'],
        ['remote one', 'remote two'],
      ]);
      expect(entries('anserini.run')).toEqual([
        '1 Q0 x2 1 0.9',
        '1 Q0 x1 2 0.2',
        '2 Q0 x2 1 0.9',
        '2 Q0 x1 2 0.2',
      ]);
      expect(ws.runWithoutTrace('anserini.run')).toContain(`# gr.search: ${double.url}/\n`);
      expect(ws.runWithoutTrace('anserini.run')).toContain('# gr.search-api: anserini\n');
      expect(ws.runWithoutTrace('anserini.run')).toContain(
        '# gr.search-index: msmarco-v1-passage\n',
      );
    });

    it('gr-qr searches with an Elasticsearch _search match query on --search-field', async () => {
      double = await startSearchDouble(elasticsearch);
      await ws.double.start(() => ({ reply: 'alpha question' }));
      const result = await retrieve(
        'es.run',
        ...grQr,
        '--search',
        double.url,
        '--search-api',
        'elasticsearch',
        '--search-index',
        'passages',
        '--search-field',
        'body',
      );
      expect(result.code).toBe(0);
      expect(double.requests[0]).toEqual({
        method: 'POST',
        path: '/passages/_search',
        query: {},
        body: { size: 7, query: { match: { body: 'alpha question' } } },
      });
      expect(double.requests).toHaveLength(2);
      expect(entries('es.run')).toEqual([
        '1 Q0 e1 1 3.25',
        '1 Q0 e2 2 1.5',
        '2 Q0 e1 1 3.25',
        '2 Q0 e2 2 1.5',
      ]);
    });

    it('an unreachable service is named with its URL; a malformed answer is a clear error', async () => {
      await ws.double.start(() => ({ reply: 'alpha question' }));
      // A port that was just free: nothing listens there any more.
      const gone = await startSearchDouble(anserini);
      await gone.close();
      const unreachable = await retrieve(
        'gone.run',
        ...grQr,
        '--search',
        gone.url,
        '--search-api',
        'anserini',
        '--search-index',
        'idx',
      );
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toContain(
        `the Anserini search service at ${gone.url}/api/v1.0/indexes/idx/search?query=alpha%20question&hits=7 is unreachable`,
      );

      double = await startSearchDouble(() => ({ hits: [] }));
      const malformed = await retrieve(
        'bad.run',
        ...grQr,
        '--search',
        double.url,
        '--search-api',
        'anserini',
        '--search-index',
        'idx',
      );
      expect(malformed.code).toBe(1);
      expect(malformed.stderr).toContain(
        `the Anserini search service at ${double.url}/api/v1.0/indexes/idx/search answered malformed results: no "candidates" list`,
      );
      const es = await startSearchDouble(() => ({ hits: { hits: [{ _id: 'e1' }] } }));
      try {
        const noScore = await retrieve(
          'bad-es.run',
          ...grQr,
          '--search',
          es.url,
          '--search-api',
          'elasticsearch',
          '--search-index',
          'p',
        );
        expect(noScore.code).toBe(1);
        expect(noScore.stderr).toContain(
          `the Elasticsearch search service at ${es.url}/p/_search answered malformed results: hit 1 lacks a string "_id" or a number "_score"`,
        );
      } finally {
        await es.close();
      }
    });

    it('--first-stage: rerank takes its candidates from the run; a topic it lacks is named (exit 4 with --strict); documents without text are named', async () => {
      // Topic 1's candidates from the run: d3 (which BM25 of "beta" would not find) above d1.
      writeFileSync(ws.path('first.run'), '1 Q0 d1 2 4 bm25\n1 Q0 d3 1 5 bm25\n');
      const scores: Record<string, number> = { gamma: 0.1, 'alpha beta': 0.7 };
      const models = await ws.double.start((body) => ({
        json: {
          results: (body.documents as string[]).map((d, index) => ({
            index,
            relevance_score: scores[d],
          })),
        },
      }));
      const rerank = [
        '--method',
        'rerank',
        '--reranker',
        'cross-encoder',
        '--reranker-model',
        'ce',
        '--first-stage',
        ws.path('first.run'),
      ];
      const result = await retrieve('fs.run', ...rerank);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`results for 1 of 2 topics (rerank)`);
      expect(result.stderr).toContain(
        `  no results for 1 topic: 2 (not in the first-stage run ${ws.path('first.run')})\n`,
      );
      // The reranker got the run's documents in its order (score desc): d3, then d1.
      expect(models.requests.map((r) => r.body.documents)).toEqual([['gamma', 'alpha beta']]);
      expect(entries('fs.run')).toEqual(['1 Q0 d1 1 0.7', '1 Q0 d3 2 0.1']);
      expect(ws.runWithoutTrace('fs.run')).toContain(
        `# rerank.first-stage: ${ws.path('first.run')}\n`,
      );

      const strict = await retrieve('fs-strict.run', ...rerank, '--strict');
      expect(strict.code).toBe(4);

      writeFileSync(
        ws.path('unknown.run'),
        '1 Q0 d1 1 4 bm25\n1 Q0 zz 2 3 bm25\n2 Q0 yy 1 1 bm25\n',
      );
      const missing = await retrieve(
        'unknown-out.run',
        ...rerank.slice(0, -1),
        ws.path('unknown.run'),
      );
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        `rerank: 2 documents of the first-stage run ${ws.path('unknown.run')} have no text in the documents given: zz, yy`,
      );
    });

    it('--first-stage: grill starts from the run, its gap queries go to the search service; documents without text are named', async () => {
      // Topic 1's candidates from the run: d3 ("gamma"), which BM25 of "beta" does not find;
      // topic 2 is not in the run.
      writeFileSync(ws.path('grill-first.run'), '1 Q0 d3 1 5 bm25\n');
      double = await startSearchDouble(anserini);
      // The OpenAI-compatible test double: the rewrite "beta", every document judged
      // relevant, one gap with the query "remote".
      const models = await ws.double.start((body) => {
        const user = (body.messages as Array<{ content: string }>)[1]!.content;
        if (user.includes("The user's current request:"))
          return { reply: JSON.stringify({ query: 'beta' }) };
        if (user.startsWith('Query: ')) return { reply: JSON.stringify({ relevant: 1 }) };
        if (user.startsWith('The information need:'))
          return { reply: JSON.stringify({ gaps: [{ gap: 'more', queries: ['remote'] }] }) };
        return { status: 400, message: 'unexpected prompt' };
      });
      const grill = [
        '--method',
        'grill',
        '--model',
        'm',
        '--search',
        double.url,
        '--search-api',
        'anserini',
        '--search-index',
        'idx',
        '--first-stage',
      ];
      const result = await retrieve('grill-fs.run', ...grill, ws.path('grill-first.run'));
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        `  no results for 1 topic: 2 (not in the first-stage run ${ws.path('grill-first.run')})\n`,
      );
      // d3 (the run) seeds query-by-document, which finds only d3 ("gamma") again; the gap
      // query "remote" goes to the service: x1, x2. RRF (k 60) of [d3], [d3], [x1 x2]:
      // d3 = 2/61 = 0.032787, x1 = 1/61 = 0.016393, x2 = 1/62 = 0.016129.
      expect(
        entries('grill-fs.run').map((l) => {
          const [topic, q0, docno, rank, score] = l.split(' ');
          return [topic, q0, docno, rank, Number(score).toFixed(6)].join(' ');
        }),
      ).toEqual(['1 Q0 d3 1 0.032787', '1 Q0 x1 2 0.016393', '1 Q0 x2 3 0.016129']);
      expect(double.requests.map((r) => r.query)).toEqual([{ query: 'remote', hits: '20' }]);
      // Topic 1 only: the rewrite, 3 judgments (d3, x1, x2), the gap analysis.
      expect(models.requests).toHaveLength(5);
      expect(ws.runWithoutTrace('grill-fs.run')).toContain(
        `# grill.first-stage: ${ws.path('grill-first.run')}\n`,
      );
      expect(ws.trace('grill-fs.run.trace.jsonl').find((t) => t.step === 'first-stage')).toEqual({
        topic: '1',
        method: 'grill',
        stage: 'candidates',
        step: 'first-stage',
        text: ws.path('grill-first.run'),
      });

      writeFileSync(ws.path('grill-unknown.run'), '1 Q0 d3 1 5 bm25\n1 Q0 zz 2 4 bm25\n');
      const missing = await retrieve('grill-unknown.out', ...grill, ws.path('grill-unknown.run'));
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        `grill: 1 document of the first-stage run ${ws.path('grill-unknown.run')} has no text in the documents given: zz`,
      );
      expect(models.requests).toHaveLength(5);
    });
  },
);
