import { startJudgeWorker } from '@assay/platform';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

/** Every page of a list, following `Link: <…>; rel="next"` from `path`. */
async function walk<T>(
  api: TestApi,
  path: string,
  token: string | undefined,
): Promise<{ pages: T[][]; cursors: string[] }> {
  const pages: T[][] = [];
  const cursors: string[] = [];
  let next: string | null = path;
  while (next !== null) {
    const response = await api.call('GET', next, token === undefined ? {} : { token });
    expect(response.status, next).toBe(200);
    const body = (await response.json()) as T[];
    expect(Array.isArray(body)).toBe(true);
    pages.push(body);
    const cursor = response.headers.get('x-next-cursor');
    const link = response.headers.get('link');
    if (cursor === null) {
      expect(link).toBeNull();
      next = null;
    } else {
      cursors.push(cursor);
      const match = /^<([^>]+)>; rel="next"$/.exec(link ?? '');
      expect(match, `Link of ${next}`).not.toBeNull();
      const url = new URL(match![1]!, 'http://assay.test');
      expect(url.searchParams.get('after')).toBe(cursor);
      next = `${url.pathname}${url.search}`;
    }
    expect(pages.length).toBeLessThan(100);
  }
  return { pages, cursors };
}

/** The page sizes of a walk: every page but the last full, the last one not empty unless alone. */
function sizes(pages: unknown[][]): number[] {
  return pages.map((p) => p.length);
}

forEachDatabase('paged list endpoints', (t) => {
  let api: TestApi;
  beforeEach(async () => {
    api = await setUpApi(t.db);
  });

  const admin = () => ({ token: api.admin });

  async function post(path: string, options: { body?: string | FormData; json?: unknown }) {
    const response = await api.call('POST', path, { ...admin(), ...options });
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(201);
    return response;
  }

  async function collection(name: string) {
    await post(`/api/collections?name=${name}&format=tsv`, { body: 'd1\tone\nd2\ttwo\n' });
  }

  describe('collections', () => {
    it('walks every collection once, by name, two at a time', async () => {
      // Created out of order: the listing sorts by name.
      for (const name of ['echo', 'alpha', 'delta', 'bravo', 'charlie']) await collection(name);
      const { pages } = await walk<{ name: string }>(api, '/api/collections?limit=2', api.admin);
      expect(pages.map((p) => p.map((c) => c.name))).toEqual([
        ['alpha', 'bravo'],
        ['charlie', 'delta'],
        ['echo'],
      ]);
    });

    it('fits a small list on the default page, without a cursor', async () => {
      await collection('only');
      const response = await api.call('GET', '/api/collections', admin());
      expect(response.status).toBe(200);
      expect(((await response.json()) as Array<{ name: string }>).map((c) => c.name)).toEqual([
        'only',
      ]);
      expect(response.headers.get('x-next-cursor')).toBeNull();
      expect(response.headers.get('link')).toBeNull();
    });

    it('ends without a cursor when the last page is exactly full', async () => {
      for (const name of ['aa', 'bb', 'cc', 'dd']) await collection(name);
      const { pages } = await walk<{ name: string }>(api, '/api/collections?limit=2', api.admin);
      expect(sizes(pages)).toEqual([2, 2]);
    });

    it('refuses a limit outside 1..1000 and a cursor it did not make', async () => {
      await collection('one');
      for (const query of ['limit=0', 'limit=1001', 'limit=two', 'limit=1.5'])
        expect(
          await errorOf(await api.call('GET', `/api/collections?${query}`, admin())),
          query,
        ).toMatchObject({ status: 400, code: 'invalid_input' });
      expect((await api.call('GET', '/api/collections?limit=1000', admin())).status).toBe(200);
      const garbage = [
        'not a cursor',
        Buffer.from('{"a":1}').toString('base64url'),
        Buffer.from('["alpha"]').toString('base64url'),
        Buffer.from('["alpha","1"]').toString('base64url'),
        Buffer.from('[1,2]').toString('base64url'),
      ];
      // A cursor that does not decode to this list's key is unprocessable, as with run entries.
      for (const after of garbage) {
        const error = await errorOf(
          await api.call('GET', `/api/collections?after=${encodeURIComponent(after)}`, admin()),
        );
        expect(error, after).toMatchObject({ status: 422, code: 'invalid_input' });
      }
      // One longer than any cursor fails the query's validation.
      expect(
        await errorOf(await api.call('GET', `/api/collections?after=${'x'.repeat(4097)}`, admin())),
      ).toMatchObject({ status: 400, code: 'invalid_input' });
      expect(
        await errorOf(await api.call('GET', '/api/collections?after=bm9wZQ', admin())),
      ).toMatchObject({ message: expect.stringContaining('cursor') });
    });
  });

  describe('the lists of one collection', () => {
    beforeEach(async () => {
      await collection('demo');
    });

    it('walks topics in qid byte order', async () => {
      await post('/api/collections/demo/topics', {
        body: ['3', '20', '1', '10', '2'].map((q) => `${q}\tquery ${q}\n`).join(''),
      });
      const { pages } = await walk<{ topicId: string }>(
        api,
        '/api/collections/demo/topics?limit=2',
        api.admin,
      );
      // Byte order: "1" < "10" < "2" < "20" < "3".
      expect(pages.map((p) => p.map((x) => x.topicId))).toEqual([['1', '10'], ['2', '20'], ['3']]);
      expect(
        await errorOf(await api.call('GET', '/api/collections/demo/topics?limit=10001', admin())),
      ).toMatchObject({ status: 400 });
      expect(
        (await api.call('GET', '/api/collections/demo/topics?limit=10000', admin())).status,
      ).toBe(200);
    });

    it('walks runs by name', async () => {
      for (const tag of ['run-c', 'run-a', 'run-e', 'run-b', 'run-d'])
        await post('/api/collections/demo/runs', { body: `1 Q0 d1 1 2.0 ${tag}\n` });
      const { pages } = await walk<{ name: string }>(
        api,
        '/api/collections/demo/runs?limit=2',
        api.admin,
      );
      expect(pages.map((p) => p.map((r) => r.name))).toEqual([
        ['run-a', 'run-b'],
        ['run-c', 'run-d'],
        ['run-e'],
      ]);
    });

    it('walks label sets by name and a set’s labels by topic then docno', async () => {
      const qrels = [
        '2 0 d1 1',
        '10 0 d2 0',
        '1 0 d3 2',
        '1 0 d10 1',
        '1 0 d1 0',
        '2 0 d0 1',
        '10 0 d1 1',
      ].join('\n');
      for (const name of ['zeta', 'eta', 'theta']) {
        const form = new FormData();
        form.set('file', new File([`${qrels}\n`], 'qrels.txt'));
        form.set('name', name);
        await post('/api/collections/demo/label-sets', { body: form });
      }
      const sets = await walk<{ name: string }>(
        api,
        '/api/collections/demo/label-sets?limit=2',
        api.admin,
      );
      expect(sets.pages.map((p) => p.map((s) => s.name))).toEqual([['eta', 'theta'], ['zeta']]);

      const labels = await walk<{ topicId: string; docId: string; grade: number }>(
        api,
        '/api/collections/demo/label-sets/eta/labels?limit=3',
        api.admin,
      );
      expect(sizes(labels.pages)).toEqual([3, 3, 1]);
      // Topics and docnos in byte order: "1" < "10" < "2"; "d1" < "d10" < "d3".
      expect(labels.pages.flat().map((l) => `${l.topicId} ${l.docId} ${l.grade}`)).toEqual([
        '1 d1 0',
        '1 d10 1',
        '1 d3 2',
        '10 d1 1',
        '10 d2 0',
        '2 d0 1',
        '2 d1 1',
      ]);
      // The topic filter pages too, and a cursor of the whole list is no topic's key.
      const one = await walk<{ docId: string }>(
        api,
        '/api/collections/demo/label-sets/eta/labels?topic=1&limit=2',
        api.admin,
      );
      expect(one.pages.map((p) => p.map((l) => l.docId))).toEqual([['d1', 'd10'], ['d3']]);
      // A cursor of another list (collections: name and id) is refused here.
      const foreign = Buffer.from('["eta",1]').toString('base64url');
      expect(
        await errorOf(
          await api.call(
            'GET',
            `/api/collections/demo/label-sets/eta/labels?after=${foreign}`,
            admin(),
          ),
        ),
      ).toMatchObject({ status: 422, code: 'invalid_input' });
    });
  });

  describe('judge jobs, their failures and campaigns', () => {
    let llm: TestServer | undefined;
    afterEach(async () => {
      await llm?.close();
      llm = undefined;
    });

    beforeEach(async () => {
      for (const name of ['demo', 'other']) {
        await post(`/api/collections?name=${name}&format=tsv`, {
          body: 'd1\tpassage 1\nd2\tpassage 2\nd3\tpassage 3\n',
        });
        await post(`/api/collections/${name}/topics`, { body: '1\tfirst\n2\tsecond\n10\tthird\n' });
      }
    });

    async function job(collectionName: string, labelSet: string, items: string[]) {
      const response = await post(`/api/collections/${collectionName}/judge-jobs`, {
        json: {
          labelSet,
          judge: 'graded-0-3',
          settings: { model: 'm' },
          items: items.map((item) => {
            const [topicId, docId] = item.split('/');
            return { topicId, docId };
          }),
        },
      });
      return ((await response.json()) as { id: number }).id;
    }

    it('walks a collection’s judge jobs oldest first, without other collections’ jobs', async () => {
      const ids: number[] = [];
      for (const name of ['j1', 'j2', 'j3', 'j4', 'j5']) {
        ids.push(await job('demo', name, ['1/d1']));
        // Interleaved with the other collection's jobs, which its list does not show.
        await job('other', `o-${name}`, ['1/d1']);
      }
      const { pages } = await walk<{ id: number; labelSet: { name: string } }>(
        api,
        '/api/collections/demo/judge-jobs?limit=2',
        api.admin,
      );
      expect(pages.map((p) => p.map((j) => j.labelSet.name))).toEqual([
        ['j1', 'j2'],
        ['j3', 'j4'],
        ['j5'],
      ]);
      expect(pages.flat().map((j) => j.id)).toEqual(ids);
    });

    it('walks a job’s failures in priority order', async () => {
      // Items in this order get positions 0..4, the failures' order.
      const items = ['2/d3', '1/d2', '10/d1', '1/d1', '2/d1'];
      const id = await job('demo', 'llm', items);
      llm = await startOpenAITestServer(() => ({ status: 403, message: 'not allowed' }));
      const done = await startJudgeWorker(t.db, {
        config: { dataDir: '.', port: 0, openaiBaseUrl: llm.baseURL },
        concurrency: 1,
      });
      expect(done).toMatchObject({ labelled: 0, failed: 5 });
      const { pages } = await walk<{ topicId: string; docId: string; error: string }>(
        api,
        `/api/judge-jobs/${id}/failures?limit=2`,
        api.admin,
      );
      expect(sizes(pages)).toEqual([2, 2, 1]);
      expect(pages.flat().map((f) => `${f.topicId}/${f.docId}`)).toEqual(items);
      expect(pages.flat().every((f) => f.error.includes('not allowed'))).toBe(true);
      expect(
        await errorOf(await api.call('GET', `/api/judge-jobs/${id}/failures?limit=10001`, admin())),
      ).toMatchObject({ status: 400 });
      expect(
        await errorOf(await api.call('GET', '/api/judge-jobs/999999/failures?limit=2', admin())),
      ).toMatchObject({ status: 404 });
    });

    it('walks campaigns newest first, for admins and for their annotator', async () => {
      const ids: number[] = [];
      for (const name of ['c1', 'c2', 'c3']) {
        const response = await post('/api/collections/demo/campaigns', {
          json: {
            name,
            annotators: ['ann'],
            judge: 'graded-0-3',
            items: [{ topic: '1', docno: 'd1' }],
          },
        });
        ids.push(((await response.json()) as { id: number }).id);
      }
      const newestFirst = [...ids].reverse();
      const admins = await walk<{ id: number }>(
        api,
        '/api/collections/demo/campaigns?limit=2',
        api.admin,
      );
      expect(admins.pages.map((p) => p.map((c) => c.id))).toEqual([
        newestFirst.slice(0, 2),
        newestFirst.slice(2),
      ]);
      const mine = await walk<{ id: number }>(api, '/api/campaigns?limit=1', api.annotator);
      expect(mine.pages.map((p) => p.map((c) => c.id))).toEqual(newestFirst.map((id) => [id]));
    });
  });

  describe('lists outside collections', () => {
    it('walks response sets newest first', async () => {
      const ids: number[] = [];
      for (const name of ['r1', 'r2', 'r3', 'r4']) {
        const response = await post('/api/response-sets', {
          json: {
            name,
            responses: JSON.stringify({ topic: 'q1', system: 'a', query: 'q', answer: 'yes' }),
          },
        });
        ids.push(((await response.json()) as { id: number }).id);
      }
      const { pages } = await walk<{ id: number; name: string }>(
        api,
        '/api/response-sets?limit=3',
        api.admin,
      );
      expect(pages.map((p) => p.map((r) => r.name))).toEqual([['r4', 'r3', 'r2'], ['r1']]);
      expect(pages.flat().map((r) => r.id)).toEqual([...ids].reverse());
    });

    it('walks users by name', async () => {
      for (const name of ['mallory', 'carol', 'bob', 'dave'])
        await post('/api/users', { json: { name, role: 'annotator' } });
      const all = (await (
        await api.call('GET', '/api/users?limit=1000', admin())
      ).json()) as Array<{
        name: string;
      }>;
      // The two users of the test setup plus four; names are lower-case ASCII here, so their
      // order is the same under any collation.
      const names = all.map((u) => u.name);
      expect(names).toHaveLength(6);
      expect([...names].sort()).toEqual(names);
      const { pages } = await walk<{ name: string }>(api, '/api/users?limit=4', api.admin);
      expect(sizes(pages)).toEqual([4, 2]);
      expect(pages.flat().map((u) => u.name)).toEqual(names);
      expect(new Set(pages.flat().map((u) => u.name)).size).toBe(6);
    });

    it('walks reports newest first, and leaderboards by slug (admin and public index)', async () => {
      await collection('demo');
      await post('/api/collections/demo/topics', { body: '1\tq\n2\tr\n' });
      const form = new FormData();
      form.set('file', new File(['1 0 d1 1\n2 0 d2 1\n'], 'qrels.txt'));
      form.set('name', 'human');
      await post('/api/collections/demo/label-sets', { body: form });
      await post('/api/collections/demo/runs', { body: '1 Q0 d1 1 2.0 A\n2 Q0 d1 1 2.0 A\n' });
      await post('/api/collections/demo/runs', { body: '1 Q0 d2 1 2.0 B\n2 Q0 d2 1 2.0 B\n' });
      const ids: number[] = [];
      for (const slug of ['gamma', 'alpha', 'beta']) {
        const report = (await (
          await post('/api/reports/comparisons', {
            json: {
              collection: 'demo',
              labelSets: ['human'],
              runs: ['A', 'B'],
              measures: ['map'],
            },
          })
        ).json()) as { id: number };
        ids.push(report.id);
        await post(`/api/reports/${report.id}/publish`, { json: { slug } });
      }
      const reports = await walk<{ id: number }>(api, '/api/reports?limit=2', api.admin);
      expect(reports.pages.map((p) => p.map((r) => r.id))).toEqual([[ids[2], ids[1]], [ids[0]]]);
      // Filters stay on the next page's address.
      const filtered = await walk<{ id: number }>(
        api,
        '/api/reports?collection=demo&kind=comparison&limit=1',
        api.admin,
      );
      expect(filtered.pages.map((p) => p.map((r) => r.id))).toEqual([[ids[2]], [ids[1]], [ids[0]]]);

      const boards = await walk<{ slug: string }>(api, '/api/leaderboards?limit=2', api.admin);
      expect(boards.pages.map((p) => p.map((b) => b.slug))).toEqual([['alpha', 'beta'], ['gamma']]);
      const open = await walk<{ slug: string }>(api, '/api/public/leaderboards?limit=2', undefined);
      expect(open.pages.map((p) => p.map((b) => b.slug))).toEqual([['alpha', 'beta'], ['gamma']]);
      expect(
        await errorOf(await api.call('GET', '/api/public/leaderboards?after=%7B%7D')),
      ).toMatchObject({ status: 422, code: 'invalid_input' });
      expect(
        await errorOf(await api.call('GET', '/api/public/leaderboards?limit=1001')),
      ).toMatchObject({ status: 400, code: 'invalid_input' });
    });
  });
});
