import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { declared, setUpApi, type TestApi } from './helpers.js';

// The analyses' results the routes answer field by field (stored reports, a public
// leaderboard, a score set's report, a pool): each answer parses with the schema its route
// declares, and parsing drops nothing, so a field the handler sends but the schema does not
// declare fails as well as a declared field it lacks.

const DOCS_TSV = 'd1\tone\nd2\ttwo\nd3\tthree\nd4\tfour\n';
// Under `human` (d1 for topic 1, d4 for topic 2), AP per topic: a 1 and 1, b 1/2 and 1,
// c 0 and 1/2; MAP a 1, b 0.75, c 0.25. Under `llm` (d2, d4): a 0 and 1, b 1 and 1,
// c 1 and 1/2; MAP a 0.5, b 1, c 0.75.
const RUNS = {
  a: '1 Q0 d1 1 3 a\n2 Q0 d4 1 3 a\n',
  b: '1 Q0 d2 1 3 b\n1 Q0 d1 2 2 b\n2 Q0 d4 1 3 b\n',
  c: '1 Q0 d2 1 3 c\n1 Q0 d3 2 2 c\n2 Q0 d1 1 3 c\n2 Q0 d4 2 2 c\n',
};
const HUMAN = '1 0 d1 1\n2 0 d4 1\n';
const LLM = '1 0 d2 1\n2 0 d4 1\n';

type Method = 'get' | 'post';

forEachDatabase('analysis results answer as their routes declare', (t) => {
  let api: TestApi;

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const admin = { token: api.admin };
    const created = async (r: Promise<Response>) => expect((await r).status).toBe(201);
    await created(
      api.call('POST', '/api/collections?name=demo&format=tsv', { ...admin, body: DOCS_TSV }),
    );
    await created(
      api.call('POST', '/api/collections/demo/topics', { ...admin, body: '1\tq1\n2\tq2\n' }),
    );
    for (const [name, run] of Object.entries(RUNS))
      await created(
        api.call('POST', `/api/collections/demo/runs?name=${name}`, { ...admin, body: run }),
      );
    for (const [name, qrels] of Object.entries({ human: HUMAN, llm: LLM }))
      await created(
        api.call('POST', `/api/collections/demo/label-sets?name=${name}`, {
          ...admin,
          body: qrels,
        }),
      );
  });

  /** Calls a route; its answer must parse with the declared schema and lose nothing. */
  async function check(
    method: Method,
    route: string,
    url: string,
    status: number,
    json?: unknown,
  ): Promise<unknown> {
    const r = await api.call(method.toUpperCase(), url, {
      token: api.admin,
      ...(json === undefined ? {} : { json }),
    });
    const text = await r.text();
    expect(r.status, `${method} ${url}: ${text}`).toBe(status);
    const body = JSON.parse(text) as unknown;
    const parsed = declared(api, method, route, status).safeParse(body);
    expect(parsed.error?.issues ?? [], `${method} ${url}`).toEqual([]);
    expect(parsed.data, `${method} ${url}: undeclared fields`).toEqual(body);
    return body;
  }

  it('stored comparisons and their public leaderboards, one label set or two', async () => {
    const one = (await check('post', '/api/reports/comparisons', '/api/reports/comparisons', 201, {
      collection: 'demo',
      labelSets: ['human'],
      measures: ['map'],
    })) as { id: number };
    const stored = (await check('get', '/api/reports/{id}', `/api/reports/${one.id}`, 200)) as {
      kind: string;
      result: {
        leaderboards: Array<{
          comparison: { runs: Array<{ run: string; means: { map: number } }> };
        }>;
      };
    };
    expect(stored.kind).toBe('comparison');
    expect(stored.result.leaderboards[0]!.comparison.runs.map((r) => [r.run, r.means.map])).toEqual(
      [
        ['a', 1],
        ['b', 0.75],
        ['c', 0.25],
      ],
    );

    const two = (await check('post', '/api/reports/comparisons', '/api/reports/comparisons', 201, {
      collection: 'demo',
      labelSets: ['human', 'llm'],
      measures: ['map'],
    })) as { id: number };
    const both = (await check('get', '/api/reports/{id}', `/api/reports/${two.id}`, 200)) as {
      result: { rankCorrelation: { map: { kendallTauB: number } } };
    };
    // Orders a b c and b c a: a–b and a–c swap, b–c agree: (1 − 2) / 3.
    expect(both.result.rankCorrelation.map.kendallTauB).toBeCloseTo(-1 / 3, 12);

    for (const [report, slug] of [
      [one.id, 'one'],
      [two.id, 'two'],
    ] as const) {
      expect(
        (
          await api.call('POST', `/api/reports/${report}/publish`, {
            token: api.admin,
            json: { slug },
          })
        ).status,
      ).toBe(201);
      const board = (await check(
        'get',
        '/api/public/leaderboards/{slug}',
        `/api/public/leaderboards/${slug}`,
        200,
      )) as { leaderboard: { runs?: unknown[]; leaderboards?: unknown[] } };
      expect(board.leaderboard.runs?.length ?? board.leaderboard.leaderboards?.length).toBe(
        slug === 'one' ? 3 : 2,
      );
    }
  });

  it('stored evaluations', async () => {
    const stored = (await check(
      'post',
      '/api/reports/evaluations',
      '/api/reports/evaluations',
      201,
      {
        collection: 'demo',
        labelSet: 'human',
        runs: ['a', 'c'],
        measures: ['map'],
      },
    )) as { id: number };
    const report = (await check('get', '/api/reports/{id}', `/api/reports/${stored.id}`, 200)) as {
      kind: string;
      result: { runs: Array<{ run: string; mean: { map: number } }> };
    };
    expect(report.kind).toBe('evaluation');
    expect(report.result.runs.map((r) => [r.run, r.mean.map])).toEqual([
      ['a', 1],
      ['c', 0.25],
    ]);
  });

  it('a score set’s report and a pool with what it left out', async () => {
    const answers = ['1', '2']
      .flatMap((topic) =>
        ['s1', 's2'].map((system) => JSON.stringify({ topic, system, query: 'q', answer: 'a' })),
      )
      .join('\n');
    expect(
      (
        await api.call('POST', '/api/response-sets', {
          token: api.admin,
          json: { name: 'rs', responses: answers },
        })
      ).status,
    ).toBe(201);
    // s1 scores 3 and 1 (mean 2), s2 1 and 1 (mean 1).
    const grades = { s1: [3, 1], s2: [1, 1] };
    const scores = Object.entries(grades)
      .flatMap(([system, xs]) =>
        xs.map((x, i) =>
          JSON.stringify({
            topic: String(i + 1),
            system,
            trial: 1,
            scores: { x },
            justification: '',
          }),
        ),
      )
      .join('\n');
    const r = await api.call('POST', '/api/response-sets/rs/score-sets/import', {
      token: api.admin,
      json: { name: 'scores', scores },
    });
    expect(r.status).toBe(201);
    const { id } = (await r.json()) as { id: number };
    const report = (await check(
      'get',
      '/api/score-sets/{id}/report',
      `/api/score-sets/${id}/report`,
      200,
    )) as { systems: Array<{ system: string; n: number; means: { x: number } }> };
    expect(report.systems.map((s) => [s.system, s.n, s.means.x])).toEqual([
      ['s1', 2, 2],
      ['s2', 2, 1],
    ]);

    // Run c's top 2 pools 1/d2 1/d3 2/d1 2/d4; topic 3 is not in the collection.
    const x = await api.call('POST', '/api/collections/demo/runs?name=x', {
      token: api.admin,
      body: '3 Q0 d1 1 3 x\n',
    });
    expect(x.status).toBe(201);
    const pool = (await check(
      'post',
      '/api/collections/{collection}/pools',
      '/api/collections/demo/pools',
      200,
      { runs: ['c', 'x'], depth: 2 },
    )) as { items: unknown[]; leftOut: { topics: { count: number }; pairs: number } };
    expect(pool.items).toHaveLength(4);
    expect(pool.leftOut).toMatchObject({ topics: { count: 1 }, pairs: 1 });
  });
});
