import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { declared, setUpApi, type TestApi } from './helpers.js';

// Every campaign route, called on a real campaign: its answer must parse with the schema the
// route declares (the OpenAPI document's and the typed client's), and the schemas are strict,
// so a field the handler sends but the route does not declare fails too.

const DOCS_TSV = 'd1\tone\nd2\ttwo\nd3\tthree\nd4\tfour\n';
// Depth 2 pools 1/d1 1/d2 2/d4 2/d1.
const RUN_A = '1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n1 Q0 d3 3 1 a\n2 Q0 d4 1 2 a\n2 Q0 d1 2 1 a\n';
const GPT = '1 0 d1 0\n1 0 d2 3\n2 0 d4 2\n2 0 d1 1\n';

type Method = 'get' | 'post' | 'put' | 'delete';

/** The campaign routes the app declares, as `method path`. */
function campaignRoutes(api: TestApi): string[] {
  return api.app.openAPIRegistry.definitions
    .flatMap((d) => (d.type === 'route' ? [`${d.route.method} ${d.route.path}`] : []))
    .filter((r) => /^\w+ \/api\/(campaigns|collections\/\{collection\}\/campaigns)\b/.test(r))
    .sort();
}

forEachDatabase('campaign routes answer as they declare', (t) => {
  let api: TestApi;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const admin = { token: api.admin };
    const created = async (r: Promise<Response>) => expect((await r).status).toBe(201);
    await created(
      api.call('POST', '/api/collections?name=demo&format=tsv', { ...admin, body: DOCS_TSV }),
    );
    await created(
      api.call('POST', '/api/collections/demo/topics', {
        ...admin,
        body: '1\tfirst q\n2\tsecond q\n',
      }),
    );
    await created(api.call('POST', '/api/collections/demo/runs?name=a', { ...admin, body: RUN_A }));
    await created(
      api.call('POST', '/api/collections/demo/label-sets?name=gpt', { ...admin, body: GPT }),
    );
    for (const name of ['ada', 'bob']) {
      const r = await api.call('POST', '/api/users', {
        ...admin,
        json: { name, role: 'annotator' },
      });
      expect(r.status).toBe(201);
      const user = (await r.json()) as { id: number; token: string };
      tokens[name] = user.token;
      ids[name] = user.id;
    }
  });

  it('every campaign route’s answer parses with its declared, strict schema', async () => {
    const checked = new Set<string>();
    /** Calls a route and parses its answer with the schema it declares for `status`. */
    async function check(
      method: Method,
      route: string,
      url: string,
      status: number,
      options: { token?: string; json?: unknown } = {},
    ): Promise<unknown> {
      const r = await api.call(method.toUpperCase(), url, { token: api.admin, ...options });
      const text = await r.text();
      expect(r.status, `${method} ${url}: ${text}`).toBe(status);
      const parsed = declared(api, method, route, status).safeParse(JSON.parse(text));
      expect(parsed.error?.issues ?? [], `${method} ${url}`).toEqual([]);
      checked.add(`${method} ${route}`);
      return JSON.parse(text);
    }
    const ada = { token: tokens.ada! };
    const bob = { token: tokens.bob! };

    const campaign = (await check(
      'post',
      '/api/collections/{collection}/campaigns',
      '/api/collections/demo/campaigns',
      201,
      {
        json: {
          name: 'c1',
          pool: { runs: ['a'], depth: 2 },
          judge: 'graded-0-3',
          annotators: ['ada', 'bob'],
          overlap: 2,
          compareWith: ['gpt'],
          blind: false,
        },
      },
    )) as { id: number; items: number };
    expect(campaign.items).toBe(4);
    const id = campaign.id;
    const at = (path: string) => `/api/campaigns/${id}${path}`;

    await check(
      'get',
      '/api/collections/{collection}/campaigns',
      '/api/collections/demo/campaigns',
      200,
    );
    await check('get', '/api/campaigns', '/api/campaigns', 200, ada);
    await check('get', '/api/campaigns/{id}', at(''), 200);
    const first = (await check('get', '/api/campaigns/{id}/next', at('/next'), 200, ada)) as {
      item: { id: number };
      reference?: unknown[];
    };
    // Not blind and compared with gpt: the item comes with gpt's grade.
    expect(first.reference).toEqual([{ labelSet: 'gpt', grade: 0 }]);
    const ahead = (await check(
      'get',
      '/api/campaigns/{id}/next-items',
      at('/next-items?count=4'),
      200,
      ada,
    )) as { items: Array<{ item: { id: number } }> };
    const items = ahead.items.map((i) => i.item.id);
    expect(items).toHaveLength(4);

    // Ada grades three items; bob grades the first two, disagreeing on the second.
    const label = (token: { token: string }, item: number, grade: number) =>
      check('post', '/api/campaigns/{id}/labels', at('/labels'), 201, {
        ...token,
        json: { item, grade, seconds: 2 },
      });
    await label(ada, items[0]!, 0);
    await label(ada, items[1]!, 3);
    await label(ada, items[2]!, 1);
    await label(bob, items[0]!, 0);
    await label(bob, items[1]!, 1);
    await check(
      'post',
      '/api/campaigns/{id}/labels/{item}/undo',
      at(`/labels/${items[2]}/undo`),
      200,
      ada,
    );
    await check('post', '/api/campaigns/{id}/skip', at('/skip'), 200, {
      ...ada,
      json: { item: items[3] },
    });
    const withGrade = (await check(
      'get',
      '/api/campaigns/{id}/items/{item}',
      at(`/items/${items[1]}`),
      200,
      ada,
    )) as { grade: number | null };
    expect(withGrade.grade).toBe(3);
    await check(
      'put',
      '/api/campaigns/{id}/items/{item}/note',
      at(`/items/${items[1]}/note`),
      200,
      { ...ada, json: { flag: 'unsure', note: 'hard call' } },
    );
    await check(
      'get',
      '/api/campaigns/{id}/items/{item}/note',
      at(`/items/${items[1]}/note`),
      200,
      ada,
    );
    const history = (await check(
      'get',
      '/api/campaigns/{id}/history',
      at('/history'),
      200,
      ada,
    )) as unknown[];
    expect(history).toHaveLength(2);
    const notes = (await check('get', '/api/campaigns/{id}/notes', at('/notes'), 200)) as unknown[];
    expect(notes).toHaveLength(1);

    // Ada and bob share two items: the pairwise report is there, with its intervals.
    const agreement = (await check(
      'get',
      '/api/campaigns/{id}/agreement',
      at('/agreement'),
      200,
    )) as { annotators: { pairwise: Array<{ n: number; report: unknown }> } };
    expect(agreement.annotators.pairwise[0]).toMatchObject({ n: 2 });
    expect(agreement.annotators.pairwise[0]!.report).not.toBeNull();
    const disagreements = (await check(
      'get',
      '/api/campaigns/{id}/disagreements',
      at('/disagreements?labelSets=1'),
      200,
    )) as Array<{ item: number }>;
    expect(disagreements.map((d) => d.item)).toEqual([items[1]]);
    await check(
      'get',
      '/api/campaigns/{id}/adjudication/{item}',
      at(`/adjudication/${items[1]}?labelSets=1`),
      200,
    );
    await check(
      'post',
      '/api/campaigns/{id}/items/{item}/adjudicate',
      at(`/items/${items[1]}/adjudicate`),
      200,
      { json: { grade: 2 } },
    );

    await check('post', '/api/campaigns/{id}/close', at('/close'), 200);
    await check('post', '/api/campaigns/{id}/reopen', at('/reopen'), 200);
    await check('post', '/api/campaigns/{id}/annotators', at('/annotators'), 200, {
      json: { annotators: ['ann'] },
    });
    await check(
      'delete',
      '/api/campaigns/{id}/annotators/{user}',
      at(`/annotators/${ids.bob}`),
      200,
    );
    await check('get', '/api/campaigns/{id}/deletion', at('/deletion'), 200);
    await check('delete', '/api/campaigns/{id}', at(''), 200);

    // `/next` when nothing is left is a 204 without a body, so it is not parsed; every other
    // campaign route was called above.
    expect([...checked].sort()).toEqual(campaignRoutes(api));
  });

  it('a field the route does not declare fails its schema', async () => {
    const schema = declared(api, 'get', '/api/campaigns/{id}/deletion', 200);
    const deletion = {
      id: 1,
      name: 'c1',
      items: 4,
      labels: 0,
      labelSet: { id: 2, name: 'c1' },
      usedBy: [],
      message: 'deletes 4 items',
    };
    expect(schema.safeParse(deletion).success).toBe(true);
    expect(schema.safeParse({ ...deletion, extra: 1 }).success).toBe(false);
    expect(schema.safeParse({ ...deletion, labelSet: { id: 2, name: 'c1', x: 0 } }).success).toBe(
      false,
    );
  });
});
