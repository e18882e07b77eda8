import { addUser, revokeUserTokens, type AssayDb } from '@assay/platform';
import { beforeEach, describe, expect, it } from 'vitest';
import { countRows, forEachDatabase } from '@assay/platform/testing';
import { createApp } from '../src/index.js';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

type Table =
  'collections' | 'documents' | 'topics' | 'runs' | 'run_entries' | 'label_sets' | 'labels';

async function counts(db: AssayDb['db']): Promise<Record<Table, number>> {
  const tables: Table[] = [
    'collections',
    'documents',
    'topics',
    'runs',
    'run_entries',
    'label_sets',
    'labels',
  ];
  const result = {} as Record<Table, number>;
  for (const table of tables) {
    result[table] = await countRows(db, table);
  }
  return result;
}

const DOCS_TSV = 'd1\tone\nd2\ttwo\nd3\tthree\nd4\tfour\nd5\tfive\n';
// Topic 1: d1 grade 2, d3 grade 1, d2 judged non-relevant. Topic 2: d2 and d5 grade 1.
const QRELS = '1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n2 0 d2 1\n2 0 d5 1\n';
// Rankings (trec_eval orders by score): topic 1 d3 d2 d1 d4; topic 2 d5 d1.
const RUN_A =
  '1 Q0 d3 1 4.0 sysA\n1 Q0 d2 2 3.0 sysA\n1 Q0 d1 3 2.0 sysA\n1 Q0 d4 4 1.0 sysA\n' +
  '2 Q0 d5 1 2.0 sysA\n2 Q0 d1 2 1.0 sysA\n';
// Only topic 1: d1 first.
const RUN_B = '1 Q0 d1 1 2.0 sysB\n1 Q0 d3 2 1.0 sysB\n';

forEachDatabase('assay API', (t) => {
  let api: TestApi;

  beforeEach(async () => {
    api = await setUpApi(t.db);
  });

  /** Creates collection `demo` (five documents, two topics), qrels `human` and run sysA. */
  async function seed() {
    const admin = { token: api.admin };
    expect(
      (
        await api.call('POST', '/api/collections?name=demo&format=tsv', {
          ...admin,
          body: DOCS_TSV,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api.call('POST', '/api/collections/demo/topics', {
          ...admin,
          body: '1\tfirst query\n2\tsecond query\n',
        })
      ).status,
    ).toBe(201);
    const form = new FormData();
    form.set('file', new File([QRELS], 'qrels.txt'));
    form.set('name', 'human');
    expect(
      (await api.call('POST', '/api/collections/demo/label-sets', { ...admin, body: form })).status,
    ).toBe(201);
    expect(
      (await api.call('POST', '/api/collections/demo/runs', { ...admin, body: RUN_A })).status,
    ).toBe(201);
  }

  describe('public endpoints', () => {
    it('answers /api/health without a token', async () => {
      // A check waits 25 ms for the database's round trip, then says "busy"; on a loaded
      // machine a round trip can take longer, so the test asks until it has been answered.
      let body: { status?: string; database?: string } = {};
      for (let attempt = 0; attempt < 50 && body.database !== 'ok'; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        const response = await api.call('GET', '/api/health');
        expect(response.status).toBe(200);
        body = (await response.json()) as typeof body;
        expect(body.status).toBe('ok');
        expect(['ok', 'busy']).toContain(body.database);
      }
      expect(body.database).toBe('ok');
    });

    it('serves an OpenAPI 3.1 document describing every route and the bearer scheme', async () => {
      const response = await api.call('GET', '/api/openapi.json');
      expect(response.status).toBe(200);
      const doc = (await response.json()) as {
        openapi: string;
        paths: Record<string, Record<string, { security?: unknown[] }>>;
        components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
      };
      expect(doc.openapi).toBe('3.1.0');
      const routes = Object.entries(doc.paths)
        .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
        .sort();
      expect(routes).toEqual(
        [
          'GET /api/health',
          'GET /api/collections',
          'POST /api/collections',
          'GET /api/collections/{collection}',
          'DELETE /api/collections/{collection}',
          'GET /api/collections/{collection}/index',
          'POST /api/collections/{collection}/index',
          'GET /api/collections/{collection}/documents',
          'POST /api/collections/{collection}/documents',
          'GET /api/collections/{collection}/documents/{docId}',
          'GET /api/collections/{collection}/topics',
          'POST /api/collections/{collection}/topics',
          'GET /api/collections/{collection}/topics/{topicId}',
          'GET /api/collections/{collection}/runs',
          'POST /api/collections/{collection}/runs',
          'POST /api/collections/{collection}/runs/retrieve',
          'GET /api/collections/{collection}/runs/retrieve/{job}',
          'GET /api/collections/{collection}/runs/{run}',
          'GET /api/collections/{collection}/runs/{run}/entries',
          'GET /api/collections/{collection}/runs/{run}/trace',
          'DELETE /api/collections/{collection}/runs/{run}',
          'GET /api/collections/{collection}/label-sets',
          'POST /api/collections/{collection}/label-sets',
          'POST /api/collections/{collection}/label-sets/consensus',
          'GET /api/collections/{collection}/label-sets/{labelSet}',
          'GET /api/collections/{collection}/label-sets/{labelSet}/labels',
          'GET /api/collections/{collection}/label-sets/{labelSet}/qrels',
          'DELETE /api/collections/{collection}/label-sets/{labelSet}',
          'POST /api/collections/{collection}/pools',
          'GET /api/collections/{collection}/judge-jobs',
          'POST /api/collections/{collection}/judge-jobs',
          'GET /api/judges',
          'GET /api/judge-jobs/{id}',
          'POST /api/judge-jobs/{id}/start',
          'POST /api/judge-jobs/{id}/stop',
          'GET /api/judge-jobs/{id}/failures',
          'POST /api/judge-jobs/{id}/retry-failed',
          'POST /api/evaluations',
          'POST /api/ppi',
          'POST /api/judge-reports',
          'GET /api/reports',
          'POST /api/reports/comparisons',
          'POST /api/reports/agreements',
          'POST /api/reports/evaluations',
          'GET /api/reports/{id}',
          'DELETE /api/reports/{id}',
          'POST /api/reports/{id}/publish',
          'GET /api/leaderboards',
          'DELETE /api/leaderboards/{slug}',
          'GET /api/public/leaderboards',
          'GET /api/public/leaderboards/{slug}',
          'GET /api/response-sets',
          'POST /api/response-sets',
          'GET /api/response-sets/{responseSet}',
          'DELETE /api/response-sets/{responseSet}',
          'POST /api/response-sets/{responseSet}/score-sets',
          'POST /api/response-sets/{responseSet}/score-sets/import',
          'GET /api/response-sets/{responseSet}/hand-scores',
          'PUT /api/response-sets/{responseSet}/hand-scores',
          'GET /api/score-sets/{id}',
          'GET /api/score-sets/{id}/report',
          'GET /api/score-sets/{id}/position-swap/{other}',
          'GET /api/score-sets/{id}/agreement/{other}',
          'DELETE /api/score-sets/{id}',
          'GET /api/me',
          'GET /api/users',
          'POST /api/users',
          'POST /api/users/{user}/tokens',
          'GET /api/users/{user}/tokens',
          'DELETE /api/users/{user}/tokens/{tokenId}',
          'POST /api/users/{user}/tokens/{tokenId}/rotate',
          'POST /api/users/{user}/revoke',
          'GET /api/collections/{collection}/campaigns',
          'POST /api/collections/{collection}/campaigns',
          'GET /api/campaigns',
          'GET /api/campaigns/{id}',
          'GET /api/campaigns/{id}/agreement',
          'GET /api/campaigns/{id}/next',
          'GET /api/campaigns/{id}/next-items',
          'GET /api/campaigns/{id}/items/{item}',
          'POST /api/campaigns/{id}/labels',
          'POST /api/campaigns/{id}/labels/{item}/undo',
          'POST /api/campaigns/{id}/skip',
          'GET /api/campaigns/{id}/history',
          'GET /api/campaigns/{id}/items/{item}/note',
          'PUT /api/campaigns/{id}/items/{item}/note',
          'GET /api/campaigns/{id}/notes',
          'GET /api/campaigns/{id}/disagreements',
          'POST /api/campaigns/{id}/items/{item}/adjudicate',
          'GET /api/campaigns/{id}/adjudication/{item}',
          'POST /api/campaigns/{id}/close',
          'POST /api/campaigns/{id}/reopen',
          'POST /api/campaigns/{id}/annotators',
          'DELETE /api/campaigns/{id}/annotators/{user}',
          'GET /api/campaigns/{id}/deletion',
          'DELETE /api/campaigns/{id}',
          'GET /api/collections/{collection}/nugget-banks',
          'POST /api/collections/{collection}/nugget-banks',
          'POST /api/collections/{collection}/nugget-banks/create',
          'GET /api/collections/{collection}/nugget-banks/{bank}',
          'GET /api/collections/{collection}/nugget-banks/{bank}/export',
          'POST /api/collections/{collection}/nugget-banks/{bank}/edits',
          'DELETE /api/collections/{collection}/nugget-banks/{bank}',
          'GET /api/collections/{collection}/rubric-sets',
          'POST /api/collections/{collection}/rubric-sets',
          'GET /api/collections/{collection}/rubric-sets/{rubricSet}',
          'GET /api/collections/{collection}/assessment-sets',
          'POST /api/collections/{collection}/assessment-sets',
          'POST /api/collections/{collection}/assessment-sets/llm',
          'POST /api/collections/{collection}/assessment-sets/import',
          'GET /api/assessment-sets/{id}',
          'DELETE /api/assessment-sets/{id}',
          'GET /api/assessment-sets/{id}/answers',
          'GET /api/assessment-sets/{id}/answer',
          'POST /api/assessment-sets/{id}/labels',
          'POST /api/assessment-sets/{id}/undo',
          'GET /api/assessment-sets/{id}/agreement/{other}',
          'GET /api/assessment-sets/{id}/scores',
          'POST /api/assessment-sets/{id}/reports',
          'GET /api/assessment-sets/{id}/export',
          'GET /api/assessment-sets',
          'POST /api/assessment-sets/{id}/annotators',
          'DELETE /api/assessment-sets/{id}/annotators/{user}',
        ].sort(),
      );
      expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ scheme: 'bearer' });
      expect(doc.paths['/api/health']!.get!.security).toEqual([]);
      expect(doc.paths['/api/collections']!.get!.security).toEqual([{ bearerAuth: [] }]);
      expect(Object.keys(doc.components.schemas)).toEqual(
        expect.arrayContaining(['Collection', 'Run', 'LabelSet', 'Error', 'EvaluationResult']),
      );
    });

    it('documents the fields of stored comparisons, leaderboards, answer reports and pools', async () => {
      interface Schema {
        $ref?: string;
        properties?: Record<string, Schema>;
        required?: string[];
        items?: Schema;
        oneOf?: Schema[];
        anyOf?: Schema[];
        allOf?: Schema[];
      }
      const doc = (await (await api.call('GET', '/api/openapi.json')).json()) as {
        paths: Record<
          string,
          Record<
            string,
            { responses: Record<string, { content: Record<string, { schema: Schema }> }> }
          >
        >;
        components: { schemas: Record<string, Schema> };
      };
      // A schema with its references followed (a nullable one is `anyOf` it and null; an
      // extended or described one is `allOf` its parts).
      const open = (s: Schema): Schema => {
        if (s.$ref)
          return open(doc.components.schemas[s.$ref.replace('#/components/schemas/', '')]!);
        if (s.anyOf && !s.properties) return open(s.anyOf.find((a) => a.$ref || a.properties)!);
        if (!s.allOf) return s;
        const parts = s.allOf.map(open);
        return {
          properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})) as Record<
            string,
            Schema
          >,
          required: parts.flatMap((p) => p.required ?? []),
        };
      };
      const answer = (path: string, method: string, status: string) =>
        open(doc.paths[path]![method]!.responses[status]!.content['application/json']!.schema);
      const fields = (s: Schema) => Object.keys(open(s).properties ?? {}).sort();
      const field = (s: Schema, name: string) => open(open(s).properties![name]!);

      // A stored report: a comparison's result is its leaderboards field by field.
      const report = answer('/api/reports/{id}', 'get', '200');
      const comparisonReport = report.oneOf!.find((r) =>
        JSON.stringify(open(r).properties!.kind).includes('"comparison"'),
      )!;
      const result = field(comparisonReport, 'result');
      expect(fields(result)).toEqual([
        'leaderboards',
        'rankCorrelation',
        'rankCorrelationSettings',
      ]);
      const comparison = field(field(result, 'leaderboards').items!, 'comparison');
      expect(fields(comparison)).toEqual(
        expect.arrayContaining(['measures', 'runs', 'pairs', 'topics', 'test', 'perTopic']),
      );
      const row = open(field(comparison, 'runs').items!);
      expect(fields(row)).toEqual([
        'betterThan',
        'ci',
        'differsFrom',
        'judgedAt10',
        'means',
        'run',
      ]);
      // Older reports have no intervals: `ci` may be absent.
      expect([...row.required!].sort()).toEqual(['betterThan', 'differsFrom', 'means', 'run']);
      expect(fields(open(field(comparison, 'pairs').items!))).toEqual([
        'a',
        'b',
        'meanDiff',
        'measure',
        'p',
        'pAdjusted',
        'significant',
        'statistic',
      ]);

      // A public leaderboard: what `assay compare --format json` writes.
      const board = field(answer('/api/public/leaderboards/{slug}', 'get', '200'), 'leaderboard');
      expect(fields(board)).toEqual(
        expect.arrayContaining(['measures', 'qrels', 'runs', 'pairs', 'leaderboards']),
      );
      expect(fields(open(field(board, 'runs').items!))).toEqual(fields(row));

      // The answer-quality report of a score set.
      const answers = answer('/api/score-sets/{id}/report', 'get', '200');
      expect(fields(answers)).toEqual(['systems', 'tests']);
      expect(fields(field(answers, 'systems').items!)).toEqual([
        'ci',
        'means',
        'n',
        'system',
        'winRate',
        'winRateNormalised',
      ]);

      // A pool names the pairs it left out.
      const pool = answer('/api/collections/{collection}/pools', 'post', '200');
      expect(fields(pool)).toContain('leftOut');
      expect(fields(field(pool, 'leftOut'))).toEqual(['documents', 'message', 'pairs', 'topics']);
    });
  });

  describe('authentication and roles', () => {
    it('refuses a missing, malformed, unknown or revoked token with 401', async () => {
      expect(await errorOf(await api.call('GET', '/api/collections'))).toEqual({
        status: 401,
        code: 'unauthorized',
        message: 'an API token is required (Authorization: Bearer <token>)',
      });
      const malformed = await api.app.request('/api/collections', {
        headers: { authorization: `Token ${api.admin}` },
      });
      expect(await errorOf(malformed)).toMatchObject({ status: 401, code: 'unauthorized' });
      expect(
        await errorOf(await api.call('GET', '/api/collections', { token: 'assay_not-a-token' })),
      ).toMatchObject({ status: 401, code: 'unauthorized' });
      const created = await addUser(t.db, { name: 'gone', role: 'admin' });
      expect((await api.call('GET', '/api/collections', { token: created.token })).status).toBe(
        200,
      );
      await revokeUserTokens(t.db, 'gone');
      expect(
        await errorOf(await api.call('GET', '/api/collections', { token: created.token })),
      ).toMatchObject({ status: 401, code: 'unauthorized' });
      // Unknown routes are not revealed to strangers, and are JSON 404s to users.
      expect((await api.call('GET', '/api/nothing-here')).status).toBe(401);
      expect(
        await errorOf(await api.call('GET', '/api/nothing-here', { token: api.admin })),
      ).toMatchObject({ status: 404, code: 'not_found' });
      // Annotators reach only their campaigns: anything else is forbidden, known or not.
      expect(
        await errorOf(await api.call('GET', '/api/nothing-here', { token: api.annotator })),
      ).toMatchObject({ status: 403, code: 'forbidden' });
      expect(api.logged).toEqual([]);
    });

    it('needs a token on every documented route but the public ones, and an admin to change data', async () => {
      await seed();
      await api.call('POST', '/api/collections/demo/runs', { token: api.admin, body: RUN_B });
      await api.call('POST', '/api/collections/demo/label-sets?name=second', {
        token: api.admin,
        body: QRELS,
      });
      const report = (await (
        await api.call('POST', '/api/reports/comparisons', {
          token: api.admin,
          json: {
            collection: 'demo',
            labelSets: ['human'],
            runs: ['sysA', 'sysB'],
            measures: ['map'],
          },
        })
      ).json()) as { id: number };
      await api.call('POST', `/api/reports/${report.id}/publish`, {
        token: api.admin,
        json: { slug: 'demo' },
      });
      const job = (await (
        await api.call('POST', '/api/collections/demo/judge-jobs', {
          token: api.admin,
          json: {
            labelSet: 'llm',
            judge: 'graded-0-3',
            settings: { model: 'm' },
            pool: { runs: ['sysA'], depth: 1 },
          },
        })
      ).json()) as { id: number };
      await api.call('POST', '/api/response-sets', {
        token: api.admin,
        json: { name: 'rs', responses: '{"topic":"1","system":"s","query":"q","answer":"a"}' },
      });
      const scoreSet = (await (
        await api.call('POST', '/api/response-sets/rs/score-sets/import', {
          token: api.admin,
          json: {
            name: 'scores',
            scores: '{"topic":"1","system":"s","trial":1,"scores":{"x":3},"justification":""}',
          },
        })
      ).json()) as { id: number };
      await api.call('POST', '/api/collections/demo/nugget-banks', {
        token: api.admin,
        json: {
          name: 'nist',
          nuggets: '{"qid":"1","nuggets":[{"text":"a","importance":"vital"}]}',
        },
      });
      await api.call('POST', '/api/collections/demo/rubric-sets', {
        token: api.admin,
        json: { name: 'rubric', rubrics: '{"qid":"1","rubrics":[{"criterion":"a","weight":2}]}' },
      });
      const assessmentSet = (await (
        await api.call('POST', '/api/collections/demo/assessment-sets', {
          token: api.admin,
          json: { kind: 'nuggets', name: 'p', responseSet: 'rs', bank: 'nist', mode: 'blind' },
        })
      ).json()) as { id: number };
      const retrieval = (await (
        await api.call('POST', '/api/collections/demo/runs/retrieve', {
          token: api.admin,
          json: { method: 'bm25', tag: 'bm25', background: true },
        })
      ).json()) as { id: number };
      const retrievalUrl = `/api/collections/demo/runs/retrieve/${retrieval.id}`;
      while (
        (
          (await (await api.call('GET', retrievalUrl, { token: api.admin })).json()) as {
            status: string;
          }
        ).status === 'running'
      )
        await new Promise((resolve) => setTimeout(resolve, 10));
      const campaign = (await (
        await api.call('POST', '/api/collections/demo/campaigns', {
          token: api.admin,
          json: {
            name: 'camp',
            judge: 'graded-0-3',
            annotators: ['ann'],
            items: [{ topic: '1', docno: 'd1' }],
          },
        })
      ).json()) as { id: number };
      const campaignItem = (
        (await (
          await api.call('GET', `/api/campaigns/${campaign.id}/next`, { token: api.annotator })
        ).json()) as { item: { id: number } }
      ).item.id;
      const before = await counts(t.db);
      const doc = (await (await api.call('GET', '/api/openapi.json')).json()) as {
        paths: Record<string, Record<string, { security?: unknown[]; 'x-access'?: string }>>;
      };
      const concrete = (path: string) =>
        path
          .replace('{collection}', 'demo')
          .replace('{run}', 'sysA')
          .replace('{labelSet}', 'human')
          .replace('{docId}', 'd1')
          .replace('{topicId}', '1')
          .replace('{responseSet}', 'rs')
          .replace('{bank}', 'nist')
          .replace('{rubricSet}', 'rubric')
          .replace(
            '{other}',
            String(path.startsWith('/api/assessment-sets/') ? assessmentSet.id : scoreSet.id),
          )
          .replace(
            '{id}',
            String(
              path.startsWith('/api/judge-jobs/')
                ? job.id
                : path.startsWith('/api/score-sets/')
                  ? scoreSet.id
                  : path.startsWith('/api/assessment-sets/')
                    ? assessmentSet.id
                    : path.startsWith('/api/campaigns/')
                      ? campaign.id
                      : report.id,
            ),
          )
          .replace('{job}', String(retrieval.id))
          .replace('{slug}', 'demo')
          .replace('{item}', String(campaignItem))
          .replace('{user}', 'ann')
          .replace(/\/hand-scores$/, '/hand-scores?judge=answer-quality');
      let checked = 0;
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const url = concrete(path);
          if (operation.security?.length === 0) {
            expect((await api.call(method.toUpperCase(), url)).status, `${method} ${path}`).toBe(
              200,
            );
            continue;
          }
          const body = method === 'get' ? {} : { body: 'x' };
          const anonymous = await api.call(method.toUpperCase(), url, body);
          expect(anonymous.status, `${method} ${path} without a token`).toBe(401);
          // Routes annotators may call have their own role tests (campaigns.test.ts,
          // rag.test.ts, tokens.test.ts); every other route, reading or writing, is
          // forbidden to them, labels above all.
          if (operation['x-access'] === 'annotator') continue;
          const asAnnotator = await api.call(method.toUpperCase(), url, {
            token: api.annotator,
            ...body,
          });
          expect(await errorOf(asAnnotator), `${method} ${path} as annotator`).toEqual({
            status: 403,
            code: 'forbidden',
            message:
              'annotators reach only their own campaign items, labels and tokens; this needs an admin API token',
          });
          // Admins read every one of them.
          if (method === 'get')
            expect(
              (await api.call('GET', url, { token: api.admin })).status,
              `${method} ${path} as admin`,
            ).toBe(200);
          checked++;
        }
      }
      expect(checked).toBe(101);
      expect(await counts(t.db)).toEqual(before);
    });
  });

  describe('collections', () => {
    it('creates collections from JSON, multipart and raw uploads, lists, gets and deletes them', async () => {
      const admin = { token: api.admin };
      const fromJson = await api.call('POST', '/api/collections', {
        ...admin,
        json: {
          name: 'json-docs',
          format: 'jsonl',
          description: 'from JSON',
          text: '{"id":"a","text":"alpha"}\n{"id":"b","title":"B","text":"beta"}\n',
        },
      });
      expect(fromJson.status).toBe(201);
      expect(await fromJson.json()).toMatchObject({
        name: 'json-docs',
        description: 'from JSON',
        documentCount: 2,
        topicCount: 0,
      });
      const form = new FormData();
      form.set('file', new File(['x1\tfirst\nx2\tsecond\nx3\tthird\n'], 'docs.tsv'));
      form.set('name', 'form-docs');
      form.set('format', 'tsv');
      expect((await api.call('POST', '/api/collections', { ...admin, body: form })).status).toBe(
        201,
      );
      expect(
        (
          await api.call('POST', '/api/collections?name=raw-docs&format=tsv', {
            ...admin,
            body: 'r1\tonly\n',
            type: 'application/octet-stream',
          })
        ).status,
      ).toBe(201);

      const list = (await (
        await api.call('GET', '/api/collections', { token: api.admin })
      ).json()) as Array<{ id: number; name: string; documentCount: number; topicCount: number }>;
      expect(list.map((c) => [c.name, c.documentCount, c.topicCount])).toEqual([
        ['form-docs', 3, 0],
        ['json-docs', 2, 0],
        ['raw-docs', 1, 0],
      ]);
      const byId = await api.call('GET', `/api/collections/${list[0]!.id}`, {
        token: api.admin,
      });
      expect(await byId.json()).toMatchObject({ name: 'form-docs', documentCount: 3 });
      expect(
        await errorOf(await api.call('GET', '/api/collections/nope', { token: api.admin })),
      ).toEqual({ status: 404, code: 'not_found', message: 'no collection "nope"' });

      const again = await api.call('POST', '/api/collections?name=raw-docs&format=tsv', {
        ...admin,
        body: 'r9\tother\n',
      });
      expect(await errorOf(again)).toMatchObject({ status: 409, code: 'conflict' });
      expect((await counts(t.db)).documents).toBe(6);

      expect((await api.call('DELETE', '/api/collections/json-docs', admin)).status).toBe(200);
      expect((await api.call('GET', '/api/collections/json-docs', admin)).status).toBe(404);
      expect((await counts(t.db)).documents).toBe(4);
    });

    it("reads a document file's format from its name, else its first line, when none is given", async () => {
      const admin = { token: api.admin };
      const form = new FormData();
      form.set(
        'file',
        new File(
          ['.I 1\n.T\nwing flutter\n.W\nflutter of a wing .\n.I 2\n.W\nshock\n'],
          'cran.all.1400',
        ),
      );
      form.set('name', 'cran');
      const cran = await api.call('POST', '/api/collections', { ...admin, body: form });
      expect(cran.status).toBe(201);
      expect(await cran.json()).toMatchObject({ name: 'cran', documentCount: 2 });
      const doc = await api.call('GET', '/api/collections/cran/documents/1', admin);
      expect(await doc.json()).toMatchObject({
        title: 'wing flutter',
        text: 'flutter of a wing .',
      });
      // A raw body has no name worth reading: its tab-separated first line says TSV.
      const raw = await api.call('POST', '/api/collections?name=raw', {
        ...admin,
        body: 'r1\tfirst\nr2\tsecond\n',
      });
      expect(await raw.json()).toMatchObject({ name: 'raw', documentCount: 2 });
      const untold = await api.call('POST', '/api/collections?name=untold', {
        ...admin,
        body: 'just words\n',
      });
      expect(await errorOf(untold)).toEqual({
        status: 422,
        code: 'invalid_input',
        message:
          'cannot tell the format of documents; give format jsonl, tsv or cranfield (or name it .jsonl, .tsv or cran.all*)',
      });
      expect((await counts(t.db)).collections).toBe(2);
    });

    it('rejects a malformed collection with file:line and keeps nothing', async () => {
      const before = await counts(t.db);
      const form = new FormData();
      form.set('file', new File(['{"id":"a","text":"t"}\n{"id":"a","text":"u"}\n'], 'docs.jsonl'));
      form.set('name', 'broken');
      const response = await api.call('POST', '/api/collections', { token: api.admin, body: form });
      expect(await errorOf(response)).toEqual({
        status: 422,
        code: 'invalid_input',
        message: 'docs.jsonl:2: duplicate document id "a" (first at line 1)',
      });
      expect(await counts(t.db)).toEqual(before);
    });

    it('validates options with 400 naming the field', async () => {
      const admin = { token: api.admin };
      const noName = await api.call('POST', '/api/collections?format=tsv', {
        ...admin,
        body: 'd\tx\n',
      });
      expect(await errorOf(noName)).toMatchObject({ status: 400, code: 'invalid_input' });
      expect((await errorOf(noName)).message).toMatch(/^name: /);
      const badFormat = await api.call('POST', '/api/collections?name=x&format=csv', {
        ...admin,
        body: 'd\tx\n',
      });
      expect((await errorOf(badFormat)).message).toMatch(/^format: /);
      const typo = await api.call('POST', '/api/collections?name=x&fromat=tsv', {
        ...admin,
        body: 'd\tx\n',
      });
      expect(await errorOf(typo)).toMatchObject({ status: 400, code: 'invalid_input' });
      expect((await errorOf(typo)).message).toMatch(/fromat/);
      const notJson = await api.call('POST', '/api/collections', {
        ...admin,
        body: '{"name":',
        type: 'application/json',
      });
      expect(await errorOf(notJson)).toEqual({
        status: 400,
        code: 'invalid_input',
        message: 'the body is not valid JSON',
      });
      const xml = await api.call('POST', '/api/collections?name=x', {
        ...admin,
        body: '<docs/>',
        type: 'application/xml',
      });
      expect(await errorOf(xml)).toMatchObject({ status: 415, code: 'unsupported_media_type' });
      expect((await counts(t.db)).collections).toBe(0);
    });
  });

  describe('documents and topics', () => {
    it('pages through documents by docno and gets one', async () => {
      await seed();
      const read = { token: api.admin };
      const first = (await (
        await api.call('GET', '/api/collections/demo/documents?limit=2', read)
      ).json()) as { documents: Array<{ docId: string }>; next: string | null };
      expect(first.documents.map((d) => d.docId)).toEqual(['d1', 'd2']);
      expect(first.next).toBe('d2');
      const rest = (await (
        await api.call('GET', '/api/collections/demo/documents?limit=3&after=d2', read)
      ).json()) as { documents: Array<{ docId: string }>; next: string | null };
      expect(rest.documents.map((d) => d.docId)).toEqual(['d3', 'd4', 'd5']);
      const end = (await (
        await api.call('GET', '/api/collections/demo/documents?after=d5', read)
      ).json()) as { documents: unknown[]; next: string | null };
      expect(end).toEqual({ documents: [], next: null });
      expect(
        await (await api.call('GET', '/api/collections/demo/documents/d3', read)).json(),
      ).toEqual({ docId: 'd3', title: null, text: 'three', metadata: {} });
      expect(
        await errorOf(await api.call('GET', '/api/collections/demo/documents/zz', read)),
      ).toEqual({
        status: 404,
        code: 'not_found',
        message: 'no document "zz" in collection "demo"',
      });
      expect(
        await errorOf(await api.call('GET', '/api/collections/demo/documents?limit=0', read)),
      ).toMatchObject({ status: 400, code: 'invalid_input' });
    });

    it('adds documents to a collection that exists; a docno it holds fails the whole file', async () => {
      const admin = { token: api.admin };
      expect(
        (await api.call('POST', '/api/collections?name=bare', { ...admin, body: '' })).status,
      ).toBe(201);
      const added = await api.call('POST', '/api/collections/bare/documents?format=tsv', {
        ...admin,
        body: 'p1\tfirst\np2\tsecond\n',
      });
      expect(added.status).toBe(201);
      expect(await added.json()).toEqual({ documents: 2, total: 2 });
      const before = await counts(t.db);
      const clash = await api.call('POST', '/api/collections/bare/documents?filename=more.tsv', {
        ...admin,
        body: 'p3\tthird\np1\tagain\n',
      });
      expect(await errorOf(clash)).toEqual({
        status: 409,
        code: 'conflict',
        message: '1 document(s) of more.tsv are already in collection "bare" ("p1")',
      });
      expect(await counts(t.db)).toEqual(before);
      // Admin only, as every write into a collection.
      expect(
        (
          await api.call('POST', '/api/collections/bare/documents?format=tsv', {
            token: api.annotator,
            body: 'p9\tx\n',
          })
        ).status,
      ).toBe(403);
    });

    it('imports, lists and gets topics; a bad topic file changes nothing', async () => {
      await seed();
      const read = { token: api.admin };
      const topics = (await (
        await api.call('GET', '/api/collections/demo/topics', read)
      ).json()) as Array<{ topicId: string; query: string }>;
      expect(topics.map((x) => [x.topicId, x.query])).toEqual([
        ['1', 'first query'],
        ['2', 'second query'],
      ]);
      expect(
        await (await api.call('GET', '/api/collections/demo/topics/2', read)).json(),
      ).toMatchObject({ topicId: '2', query: 'second query' });
      expect((await api.call('GET', '/api/collections/demo/topics/9', read)).status).toBe(404);
      const added = await api.call('POST', '/api/collections/demo/topics?format=tsv', {
        token: api.admin,
        body: '3\tthird query\n',
      });
      expect(added.status).toBe(201);
      expect(await added.json()).toEqual({ topics: 1 });

      const before = await counts(t.db);
      const bad = await api.call('POST', '/api/collections/demo/topics?format=tsv&filename=t.tsv', {
        token: api.admin,
        body: '4\tfourth\n4\tfourth again\n',
      });
      expect(await errorOf(bad)).toMatchObject({ status: 422, code: 'invalid_input' });
      expect((await errorOf(bad)).message).toMatch(/^t\.tsv:2: /);
      expect(await counts(t.db)).toEqual(before);
    });
  });

  describe('runs', () => {
    it('imports a run, lists, gets and deletes it, with counts and entries', async () => {
      await seed();
      const read = { token: api.admin };
      const list = (await (
        await api.call('GET', '/api/collections/demo/runs', read)
      ).json()) as Array<{
        id: number;
        name: string;
        tag: string;
        entryCount: number;
        topicCount: number;
      }>;
      expect(list).toEqual([
        expect.objectContaining({ name: 'sysA', tag: 'sysA', entryCount: 6, topicCount: 2 }),
      ]);
      const byName = await (await api.call('GET', '/api/collections/demo/runs/sysA', read)).json();
      const byId = await (
        await api.call('GET', `/api/collections/demo/runs/${list[0]!.id}`, read)
      ).json();
      expect(byId).toEqual(byName);
      expect(byName).toMatchObject({ entryCount: 6, topicCount: 2 });
      expect(
        await (
          await api.call('GET', '/api/collections/demo/runs/sysA/entries?topic=2', read)
        ).json(),
      ).toEqual([
        { topicId: '2', docId: 'd5', rank: 1, score: 2 },
        { topicId: '2', docId: 'd1', rank: 2, score: 1 },
      ]);

      const named = await api.call('POST', '/api/collections/demo/runs?name=other', {
        token: api.admin,
        body: RUN_B,
      });
      expect(await named.json()).toMatchObject({ name: 'other', tag: 'sysB', entryCount: 2 });
      expect(
        (await api.call('DELETE', '/api/collections/demo/runs/other', { token: api.admin })).status,
      ).toBe(204);
      expect(
        await errorOf(await api.call('GET', '/api/collections/demo/runs/other', read)),
      ).toEqual({ status: 404, code: 'not_found', message: 'no run "other" in collection "demo"' });
      expect((await counts(t.db)).run_entries).toBe(6);
    });

    it('pages through run entries with a cursor, in the order of the whole list', async () => {
      // Ties are kept in order: topic 10 sorts before 9 (byte order), equal ranks by score
      // descending, equal rank and score by docno.
      const run =
        '9 Q0 z 1 5 tie\n9 Q0 b 1 5 tie\n9 Q0 a 1 6 tie\n10 Q0 q 2 1 tie\n10 Q0 p 1 1 tie\n';
      await api.call('POST', '/api/collections?name=paged&format=tsv', {
        token: api.admin,
        body: 'a\tx\n',
      });
      expect(
        (await api.call('POST', '/api/collections/paged/runs', { token: api.admin, body: run }))
          .status,
      ).toBe(201);
      const expected = ['10/p', '10/q', '9/a', '9/b', '9/z'];
      const seen: string[] = [];
      let path = '/api/collections/paged/runs/tie/entries?limit=2';
      for (let pages = 1; ; pages++) {
        const r = await api.call('GET', path, { token: api.admin });
        expect(r.status).toBe(200);
        const body = (await r.json()) as Array<{ topicId: string; docId: string }>;
        seen.push(...body.map((e) => `${e.topicId}/${e.docId}`));
        const next = r.headers.get('x-next-cursor');
        if (next === null) {
          expect(pages).toBe(3);
          break;
        }
        expect(r.headers.get('link')).toContain('rel="next"');
        path = `/api/collections/paged/runs/tie/entries?limit=2&after=${next}`;
      }
      expect(seen).toEqual(expected);
      // Without limit one page holds up to 1000; more than 10000 or a made-up cursor is refused.
      const all = await api.call('GET', '/api/collections/paged/runs/tie/entries', {
        token: api.admin,
      });
      expect(((await all.json()) as unknown[]).length).toBe(5);
      expect(all.headers.get('x-next-cursor')).toBeNull();
      expect(
        (
          await errorOf(
            await api.call('GET', '/api/collections/paged/runs/tie/entries?limit=10001', {
              token: api.admin,
            }),
          )
        ).status,
      ).toBe(400);
      expect(
        await errorOf(
          await api.call('GET', '/api/collections/paged/runs/tie/entries?after=bm90IGEgY3Vyc29y', {
            token: api.admin,
          }),
        ),
      ).toMatchObject({ status: 422, code: 'invalid_input' });
    });

    it('refuses a second run of the same name unless replace=true', async () => {
      await seed();
      const before = await counts(t.db);
      const again = await api.call('POST', '/api/collections/demo/runs', {
        token: api.admin,
        body: '1 Q0 d1 1 1.0 sysA\n',
      });
      expect(await errorOf(again)).toMatchObject({ status: 409, code: 'conflict' });
      // The API names its own parameter, not the CLI's --replace.
      expect((await errorOf(again)).message).toBe(
        'run "sysA" already exists in collection "demo"; add ?replace=true to overwrite it',
      );
      expect(await counts(t.db)).toEqual(before);
      const replaced = await api.call('POST', '/api/collections/demo/runs?replace=true', {
        token: api.admin,
        body: '1 Q0 d1 1 1.0 sysA\n',
      });
      expect(replaced.status).toBe(201);
      expect(await replaced.json()).toMatchObject({ name: 'sysA', entryCount: 1, topicCount: 1 });
      expect((await counts(t.db)).runs).toBe(1);
    });

    it('rejects a malformed run with file:line and keeps nothing of it', async () => {
      await seed();
      const before = await counts(t.db);
      const lines = [];
      for (let i = 1; i <= 5000; i++) lines.push(`1 Q0 d${i} ${i} ${1 / i} big`);
      lines.push('2 Q0 d1 1 oops big');
      const bad = await api.call('POST', '/api/collections/demo/runs?filename=big.run', {
        token: api.admin,
        body: `${lines.join('\n')}\n`,
      });
      expect(await errorOf(bad)).toEqual({
        status: 422,
        code: 'invalid_input',
        message: 'big.run:5001: score "oops" is not a finite number',
      });
      const form = new FormData();
      form.set('file', new File(['1 Q0 d1 1 1.0 x\n1 Q0 d2\n'], 'short.run'));
      const short = await api.call('POST', '/api/collections/demo/runs', {
        token: api.admin,
        body: form,
      });
      expect(await errorOf(short)).toMatchObject({ status: 422, code: 'invalid_input' });
      expect((await errorOf(short)).message).toMatch(/^short\.run:2: /);
      expect(await counts(t.db)).toEqual(before);
      expect(
        (await api.call('POST', '/api/collections/nope/runs', { token: api.admin, body: RUN_B }))
          .status,
      ).toBe(404);
    });
  });

  describe('label sets', () => {
    it('imports qrels as a label set, lists, gets, shows labels and deletes it', async () => {
      await seed();
      const read = { token: api.admin };
      const sets = (await (
        await api.call('GET', '/api/collections/demo/label-sets', read)
      ).json()) as Array<{ id: number; name: string }>;
      expect(sets).toEqual([
        expect.objectContaining({
          name: 'human',
          kind: 'human_qrels',
          scaleMin: 0,
          scaleMax: 2,
          labelCount: 5,
          topicCount: 2,
        }),
      ]);
      expect(
        await (
          await api.call('GET', `/api/collections/demo/label-sets/${sets[0]!.id}`, read)
        ).json(),
      ).toMatchObject({ name: 'human', labelCount: 5 });
      const labels = (await (
        await api.call('GET', '/api/collections/demo/label-sets/human/labels?topic=1', read)
      ).json()) as Array<{ docId: string; grade: number }>;
      expect(labels.map((l) => [l.docId, l.grade])).toEqual([
        ['d1', 2],
        ['d2', 0],
        ['d3', 1],
      ]);

      const json = await api.call('POST', '/api/collections/demo/label-sets', {
        token: api.admin,
        json: { name: 'graded', text: '1 0 d1 3\n', scaleMin: 0, scaleMax: 3 },
      });
      expect(await json.json()).toMatchObject({ name: 'graded', scaleMin: 0, scaleMax: 3 });
      expect(
        (await api.call('DELETE', '/api/collections/demo/label-sets/graded', { token: api.admin }))
          .status,
      ).toBe(204);
      expect((await api.call('GET', '/api/collections/demo/label-sets/graded', read)).status).toBe(
        404,
      );
    });

    it('refuses bad or duplicate qrels, keeping the database as it was', async () => {
      await seed();
      const before = await counts(t.db);
      const form = new FormData();
      form.set('file', new File(['1 0 d1 1\n1 0 d2\n'], 'q.txt'));
      form.set('name', 'broken');
      const bad = await api.call('POST', '/api/collections/demo/label-sets', {
        token: api.admin,
        body: form,
      });
      expect(await errorOf(bad)).toMatchObject({ status: 422, code: 'invalid_input' });
      expect((await errorOf(bad)).message).toMatch(/^q\.txt:2: /);
      const duplicate = await api.call('POST', '/api/collections/demo/label-sets?name=human', {
        token: api.admin,
        body: '1 0 d1 0\n',
      });
      expect(await errorOf(duplicate)).toMatchObject({ status: 409, code: 'conflict' });
      const halfScale = await api.call(
        'POST',
        '/api/collections/demo/label-sets?name=x&scaleMin=0',
        {
          token: api.admin,
          body: '1 0 d1 0\n',
        },
      );
      expect(await errorOf(halfScale)).toMatchObject({ status: 400, code: 'invalid_input' });
      expect(await counts(t.db)).toEqual(before);
      const replaced = await api.call(
        'POST',
        '/api/collections/demo/label-sets?name=human&replace=true',
        { token: api.admin, body: '1 0 d1 0\n' },
      );
      expect(await replaced.json()).toMatchObject({ name: 'human', labelCount: 1 });
    });
  });

  describe('evaluations', () => {
    it('computes trec_eval measures per topic and on average', async () => {
      await seed();
      await api.call('POST', '/api/collections/demo/runs', { token: api.admin, body: RUN_B });
      const body = {
        collection: 'demo',
        labelSet: 'human',
        runs: ['sysA', 'sysB'],
        measures: ['map', 'P.2', 'recip_rank', 'ndcg_cut.3'],
      };
      // An evaluation reads a label set: annotators may not.
      const annotator = await api.call('POST', '/api/evaluations', {
        token: api.annotator,
        json: body,
      });
      expect(await errorOf(annotator)).toMatchObject({ status: 403, code: 'forbidden' });
      const response = await api.call('POST', '/api/evaluations', { token: api.admin, json: body });
      expect(response.status).toBe(200);
      const result = (await response.json()) as {
        labelSet: string;
        runs: Array<{
          run: string;
          perQuery: Record<string, Record<string, number>>;
          mean: Record<string, number>;
        }>;
      };
      expect(result.labelSet).toBe('human');
      const [a, b] = result.runs;
      // sysA, topic 1: d3 (grade 1) d2 (0) d1 (2) d4 (unjudged); two relevant.
      //   AP = (1/1 + 2/3) / 2; P@2 = 1/2; RR = 1;
      //   nDCG@3 = (1 + 2/log2 4) / (2 + 1/log2 3).
      // sysA, topic 2: d5 (1) d1 (unjudged here); two relevant (d2, d5).
      //   AP = (1/1) / 2; P@2 = 1/2; RR = 1; nDCG@3 = 1 / (1 + 1/log2 3).
      const ndcg1 = 2 / (2 + 1 / Math.log2(3));
      const ndcg2 = 1 / (1 + 1 / Math.log2(3));
      expect(a!.run).toBe('sysA');
      expect(a!.perQuery['1']!.map).toBeCloseTo(5 / 6, 4);
      expect(a!.perQuery['2']!.map).toBeCloseTo(0.5, 4);
      expect(a!.perQuery['1']!.ndcg_cut_3).toBeCloseTo(ndcg1, 4);
      expect(a!.perQuery['2']!.ndcg_cut_3).toBeCloseTo(ndcg2, 4);
      expect(a!.mean.map).toBeCloseTo((5 / 6 + 0.5) / 2, 4);
      expect(a!.mean.P_2).toBeCloseTo(0.5, 4);
      expect(a!.mean.recip_rank).toBeCloseTo(1, 4);
      expect(a!.mean.ndcg_cut_3).toBeCloseTo((ndcg1 + ndcg2) / 2, 4);
      // sysB retrieves only topic 1: d1 (2) d3 (1): AP 1, P@2 1; topic 2 counts as 0 (-c).
      expect(b!.run).toBe('sysB');
      expect(b!.mean.map).toBeCloseTo(0.5, 4);
      expect(b!.mean.P_2).toBeCloseTo(0.5, 4);
    });

    it('validates the request', async () => {
      await seed();
      const read = { token: api.admin };
      const missing = await api.call('POST', '/api/evaluations', {
        ...read,
        json: { collection: 'demo' },
      });
      expect(await errorOf(missing)).toMatchObject({ status: 400, code: 'invalid_input' });
      const measure = await api.call('POST', '/api/evaluations', {
        ...read,
        json: { collection: 'demo', labelSet: 'human', runs: ['sysA'], measures: ['nope@3'] },
      });
      expect(await errorOf(measure)).toMatchObject({ status: 422, code: 'invalid_input' });
      const run = await api.call('POST', '/api/evaluations', {
        ...read,
        json: { collection: 'demo', labelSet: 'human', runs: ['ghost'], measures: ['map'] },
      });
      expect(await errorOf(run)).toMatchObject({ status: 404, code: 'not_found' });
    });
  });

  describe('limits and failures', () => {
    it('answers 413 to an upload over the limit, with or without Content-Length', async () => {
      const small = { app: createApp({ db: t.db, maxBodyBytes: 100 }), admin: api.admin };
      const body = `${'d1\t'.padEnd(500, 'x')}\n`;
      const declared = await small.app.request('/api/collections?name=big&format=tsv', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${small.admin}`,
          'content-type': 'text/plain',
          'content-length': String(body.length),
        },
        body,
      });
      expect(await errorOf(declared)).toMatchObject({ status: 413, code: 'payload_too_large' });
      const streamed = await small.app.request('/api/collections?name=big&format=tsv', {
        method: 'POST',
        headers: { authorization: `Bearer ${small.admin}`, 'content-type': 'text/plain' },
        body: new Blob([body]).stream(),
        duplex: 'half',
      } as RequestInit);
      expect(await errorOf(streamed)).toMatchObject({ status: 413, code: 'payload_too_large' });
      expect((await counts(t.db)).collections).toBe(0);
    });

    it('hides internal errors behind a generic message and logs them without the token', async () => {
      const logged: string[] = [];
      const broken = new Proxy(
        {},
        {
          get() {
            throw new Error('the database went away');
          },
        },
      ) as AssayDb['db'];
      const app = createApp({ db: broken, log: (line) => logged.push(line) });
      const response = await app.request('/api/collections', {
        headers: { authorization: `Bearer ${api.admin}` },
      });
      expect(await errorOf(response)).toEqual({
        status: 500,
        code: 'internal',
        message: 'internal server error',
      });
      expect(logged.join('\n')).toMatch(/the database went away/);
      expect(logged.join('\n')).not.toContain(api.admin);
    });
  });
});
