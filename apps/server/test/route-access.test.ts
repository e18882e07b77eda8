import { beforeEach, describe, expect, it } from 'vitest';
import { countRows, forEachDatabase } from '@assay/platform/testing';
import { RouteAccess } from '../src/access/route-access.js';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

/** An operation of the OpenAPI document, with what says who may call it. */
interface Operation {
  'x-access'?: unknown;
  security?: unknown[];
  description?: string;
  responses: Record<string, unknown>;
}

const FORBIDDEN = {
  status: 403,
  code: 'forbidden',
  message:
    'annotators reach only their own campaign items, labels and tokens; this needs an admin API token',
};

// Every table a request could write: none may change when an annotator is refused.
const TABLES = [
  'collections',
  'documents',
  'topics',
  'runs',
  'run_entries',
  'label_sets',
  'labels',
  'label_revisions',
  'reports',
  'publications',
  'judge_jobs',
  'judge_tasks',
  'campaigns',
  'campaign_items',
  'campaign_assignments',
  'item_notes',
  'users',
  'api_tokens',
  'response_sets',
  'score_sets',
  'hand_scores',
  'nugget_banks',
  'rubric_sets',
  'rag_assessment_sets',
  'rag_assessments',
] as const;

forEachDatabase('who may call a route', (t) => {
  let api: TestApi;
  let doc: { paths: Record<string, Record<string, Operation>> };
  /** Every documented operation, as `METHOD /path`. */
  let operations: Array<{ name: string; method: string; path: string; op: Operation }>;

  beforeEach(async () => {
    api = await setUpApi(t.db, { webDir: null });
    doc = (await (await api.call('GET', '/api/openapi.json')).json()) as typeof doc;
    operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        op,
      })),
    );
  });

  /** A path with its parameters filled in: the demo collection, its run and label set, else 1. */
  const concrete = (path: string) =>
    path
      .replace('{collection}', 'demo')
      .replace('{run}', 'sysA')
      .replace('{labelSet}', 'human')
      .replace('{user}', 'ann')
      .replace(/\{[^}]+\}/g, '1');

  async function seed() {
    const admin = { token: api.admin };
    for (const [path, body] of [
      ['/api/collections?name=demo&format=tsv', 'd1\tone\nd2\ttwo\n'],
      ['/api/collections/demo/topics', '1\tfirst query\n'],
      ['/api/collections/demo/runs', '1 Q0 d1 1 2.0 sysA\n1 Q0 d2 2 1.0 sysA\n'],
      ['/api/collections/demo/label-sets?name=human', '1 0 d1 2\n1 0 d2 0\n'],
    ] as const)
      expect((await api.call('POST', path, { ...admin, body })).status, path).toBe(201);
  }

  async function counts() {
    const result: Record<string, number> = {};
    for (const table of TABLES) result[table] = await countRows(t.db, table);
    return result;
  }

  it('has every route of the app declare who may call it, once, in the document', async () => {
    const declared = new Set(operations.map((o) => o.name));
    // The router's own list, not the document's: a route added without `createRoute` (so
    // without a declaration) shows up here.
    const served = new Set(
      api.app.routes
        .filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/'))
        .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, '{$1}')}`),
    );
    expect([...served].filter((r) => !declared.has(r))).toEqual(['GET /api/openapi.json']);
    expect([...declared].filter((r) => !served.has(r))).toEqual([]);
    expect(operations.length).toBe(123);
    for (const { name, op } of operations)
      expect(['public', 'annotator', 'admin'], name).toContain(op['x-access']);
  });

  it('opens to annotators exactly the routes their campaigns, RAG labelling and tokens need', () => {
    const reach = (access: string) =>
      operations.filter((o) => o.op['x-access'] === access).map((o) => o.name);
    expect(reach('public')).toEqual([
      'GET /api/health',
      'GET /api/public/leaderboards',
      'GET /api/public/leaderboards/{slug}',
    ]);
    expect(reach('annotator').sort()).toEqual([
      'DELETE /api/users/{user}/tokens/{tokenId}',
      'GET /api/assessment-sets',
      'GET /api/assessment-sets/{id}/answer',
      'GET /api/assessment-sets/{id}/answers',
      'GET /api/campaigns',
      'GET /api/campaigns/{id}/history',
      'GET /api/campaigns/{id}/items/{item}',
      'GET /api/campaigns/{id}/items/{item}/note',
      'GET /api/campaigns/{id}/next',
      'GET /api/campaigns/{id}/next-items',
      'GET /api/me',
      'GET /api/users/{user}/tokens',
      'POST /api/assessment-sets/{id}/labels',
      'POST /api/assessment-sets/{id}/undo',
      'POST /api/campaigns/{id}/labels',
      'POST /api/campaigns/{id}/labels/{item}/undo',
      'POST /api/campaigns/{id}/skip',
      'POST /api/users/{user}/tokens/{tokenId}/rotate',
      'PUT /api/campaigns/{id}/items/{item}/note',
    ]);
    expect(reach('admin').length).toBe(123 - 3 - 19);
  });

  it('documents each access: the bearer scheme but on public routes, "Admin only." and 403 on admin ones', () => {
    for (const { name, op } of operations) {
      const access = op['x-access'];
      expect(op.security, name).toEqual(access === 'public' ? [] : [{ bearerAuth: [] }]);
      expect(op.description?.startsWith('Admin only.') ?? false, name).toBe(access === 'admin');
      expect(op.description?.match(/Admin only\./g)?.length ?? 0, name).toBe(
        access === 'admin' ? 1 : 0,
      );
      if (access === 'admin') expect(Object.keys(op.responses), name).toContain('403');
      if (access !== 'public') expect(Object.keys(op.responses), name).toContain('401');
    }
    // A route that said nothing of admins before its access was declared.
    expect(doc.paths['/api/collections']!.get!.description).toBe('Admin only.');
  });

  it('answers an annotator 403 on every admin route before reading anything, and changes nothing', async () => {
    await seed();
    const before = await counts();
    let refused = 0;
    for (const { name, method, path, op } of operations) {
      if (op['x-access'] !== 'admin') continue;
      const url = concrete(path);
      const body = method === 'GET' ? {} : { json: { name: 'x', annotators: ['ann'] } };
      const asAnnotator = await api.call(method, url, { token: api.annotator, ...body });
      expect(await errorOf(asAnnotator), name).toEqual(FORBIDDEN);
      // The same read from an admin gets past the role check (to its own answer).
      if (method === 'GET') {
        const asAdmin = await api.call(method, url, { token: api.admin });
        expect(asAdmin.status, `${name} as admin`).not.toBe(403);
      }
      refused++;
      if (method === 'GET') {
        const head = await api.app.request(url, {
          method: 'HEAD',
          headers: { authorization: `Bearer ${api.annotator}` },
        });
        expect(head.status, `HEAD ${path}`).toBe(403);
      }
    }
    expect(refused).toBe(101);
    // Admins only read above: a change here is an annotator's request that got through.
    expect(await counts()).toEqual(before);
  });

  it('lets annotators reach their routes, and nobody reach a route but a public one without a token', async () => {
    await seed();
    for (const { name, method, path, op } of operations) {
      const url = concrete(path);
      const body = method === 'GET' ? {} : { body: 'x' };
      const anonymous = await api.call(method, url, body);
      if (op['x-access'] === 'public') expect(anonymous.status, name).not.toBe(401);
      else expect((await errorOf(anonymous)).status, name).toBe(401);
      if (op['x-access'] !== 'annotator') continue;
      // Their use-cases answer (an unknown campaign, a bad body): never the role check.
      const asAnnotator = await api.call(method, url, { token: api.annotator, ...body });
      expect(asAnnotator.status, name).toBeLessThan(500);
      if (asAnnotator.status === 403)
        expect((await errorOf(asAnnotator)).message, name).not.toBe(FORBIDDEN.message);
    }
    // Their own tokens, their campaigns and who they are answer 200.
    for (const url of ['/api/me', '/api/campaigns', '/api/users/ann/tokens'])
      expect((await api.call('GET', url, { token: api.annotator })).status, url).toBe(200);
  });
});

describe('RouteAccess', () => {
  const route = (method: string, path: string, access?: string, description?: string) => ({
    type: 'route' as const,
    route: {
      method: method as 'get',
      path,
      responses: {} as Record<string, never>,
      ...(description === undefined ? {} : { description }),
      ...(access === undefined ? {} : { 'x-access': access }),
    },
  });
  const forbidden = { description: 'not an admin' };

  it('matches a request as the router does: a parameter is one segment, HEAD is GET, the rest admin', () => {
    const routes = new RouteAccess();
    routes.learn(
      [
        route('get', '/api/campaigns/{id}/next', 'annotator'),
        route('get', '/api/campaigns/{id}', 'admin'),
        route('get', '/api/health', 'public'),
      ],
      forbidden,
    );
    expect(routes.of('GET', '/api/campaigns/7/next')).toBe('annotator');
    expect(routes.of('HEAD', '/api/campaigns/7/next')).toBe('annotator');
    expect(routes.of('POST', '/api/campaigns/7/next')).toBe('admin');
    expect(routes.of('GET', '/api/campaigns//next')).toBe('admin');
    expect(routes.of('GET', '/api/campaigns/7/next/')).toBe('admin');
    expect(routes.of('GET', '/api/campaigns/7')).toBe('admin');
    expect(routes.of('GET', '/api/health')).toBe('public');
    expect(routes.of('GET', '/api/health/')).toBe('admin');
    expect(routes.of('GET', '/api/nothing')).toBe('admin');
  });

  it('refuses a route without a declaration, and two routes one request reaches with different access', () => {
    expect(() => new RouteAccess().learn([route('get', '/api/x')], forbidden)).toThrow(
      'GET /api/x declares no access',
    );
    expect(() => new RouteAccess().learn([route('get', '/api/x', 'everyone')], forbidden)).toThrow(
      'GET /api/x declares no access',
    );
    expect(() =>
      new RouteAccess().learn(
        [route('get', '/api/runs/{run}', 'admin'), route('get', '/api/runs/mine', 'annotator')],
        forbidden,
      ),
    ).toThrow(
      'GET /api/runs/{run} (admin) and GET /api/runs/mine (annotator) match the same requests',
    );
    // The same access, or another method, is no clash.
    const routes = new RouteAccess();
    routes.learn(
      [
        route('get', '/api/runs/{run}', 'admin'),
        route('get', '/api/runs/retrieve', 'admin'),
        route('post', '/api/runs/{run}', 'annotator'),
      ],
      forbidden,
    );
    expect(routes.of('POST', '/api/runs/a')).toBe('annotator');
  });

  it('leads an admin route’s description with "Admin only." (once) and lists the 403', () => {
    const definitions = [
      route('get', '/a', 'admin'),
      route('get', '/b', 'admin', 'Lists b.'),
      route('get', '/c', 'admin', 'Admin only. Deletes c.'),
      route('get', '/d', 'annotator', 'Reads d.'),
    ];
    new RouteAccess().learn(definitions, forbidden);
    expect(definitions.map((d) => d.route.description)).toEqual([
      'Admin only.',
      'Admin only. Lists b.',
      'Admin only. Deletes c.',
      'Reads d.',
    ]);
    expect(definitions.map((d) => d.route.responses[403])).toEqual([
      forbidden,
      forbidden,
      forbidden,
      undefined,
    ]);
  });
});
