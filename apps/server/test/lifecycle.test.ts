import { beforeEach, describe, expect, it } from 'vitest';
import { countRows, forEachDatabase } from '@assay/platform/testing';
import { HUMAN, RUNS } from '@assay/test-support/report-fixtures';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

forEachDatabase('lifecycle', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    api = await setUpApi(t.db);
  });

  describe('deleting a collection', () => {
    beforeEach(async () => {
      expect(
        (
          await api.call('POST', '/api/collections?name=demo&format=tsv', {
            ...admin(),
            body: 'a\tx\n',
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await api.call('POST', '/api/collections/demo/label-sets?name=human', {
            ...admin(),
            body: HUMAN,
          })
        ).status,
      ).toBe(201);
      for (const text of Object.values(RUNS))
        expect(
          (await api.call('POST', '/api/collections/demo/runs', { ...admin(), body: text })).status,
        ).toBe(201);
    });

    async function publishedComparison(slug: string): Promise<void> {
      const report = await api.call('POST', '/api/reports/comparisons', {
        ...admin(),
        json: { collection: 'demo', labelSets: ['human'], runs: ['A', 'B'], measures: ['P.1'] },
      });
      expect(report.status).toBe(201);
      const { id } = (await report.json()) as { id: number };
      expect(
        (await api.call('POST', `/api/reports/${id}/publish`, { ...admin(), json: { slug } }))
          .status,
      ).toBe(201);
    }

    it('says what went: runs, label sets, reports and no leaderboards', async () => {
      const response = await api.call('DELETE', '/api/collections/demo', admin());
      expect(response.status).toBe(200);
      // Three runs (A, B, C) and one label set were imported above, no report.
      expect(await response.json()).toEqual({
        id: expect.any(Number),
        name: 'demo',
        runs: 3,
        labelSets: 1,
        reports: 0,
        leaderboards: [],
      });
      expect(await countRows(t.db, 'runs')).toBe(0);
    });

    it('refuses while leaderboards are published, naming them; force removes them too', async () => {
      await publishedComparison('demo-board');
      await publishedComparison('another-board');
      const refused = await errorOf(await api.call('DELETE', '/api/collections/demo', admin()));
      expect(refused).toEqual({
        status: 409,
        code: 'conflict',
        message:
          'collection "demo" has published leaderboards (another-board, demo-board); unpublish them first, or delete with force to remove them too',
      });
      // Nothing went: the leaderboard is still served.
      expect((await api.call('GET', '/api/public/leaderboards/demo-board')).status).toBe(200);
      expect(await countRows(t.db, 'runs')).toBe(3);

      const forced = await api.call('DELETE', '/api/collections/demo?force=true', admin());
      expect(forced.status).toBe(200);
      expect(await forced.json()).toMatchObject({
        name: 'demo',
        runs: 3,
        labelSets: 1,
        reports: 2,
        leaderboards: ['another-board', 'demo-board'],
      });
      expect((await api.call('GET', '/api/public/leaderboards/demo-board')).status).toBe(404);
      expect(await countRows(t.db, 'publications')).toBe(0);
      expect(await countRows(t.db, 'reports')).toBe(0);
    });

    it('is admin only', async () => {
      expect(
        (await api.call('DELETE', '/api/collections/demo', { token: api.annotator })).status,
      ).toBe(403);
    });
  });

  describe('judge jobs over documents without text', () => {
    it('refuses the job (422), counting the blank documents and naming the first', async () => {
      // Document b is empty and c only white space; a has text.
      expect(
        (
          await api.call('POST', '/api/collections?name=docs&format=jsonl', {
            ...admin(),
            body: '{"id":"a","text":"apples"}\n{"id":"b","text":""}\n{"id":"c","text":" \\t "}\n',
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await api.call('POST', '/api/collections/docs/topics', {
            ...admin(),
            body: '1\tfruit\n2\tcolour\n',
          })
        ).status,
      ).toBe(201);
      const items = ['a', 'b', 'c'].flatMap((docId) =>
        ['1', '2'].map((topicId) => ({ topicId, docId })),
      );
      const refused = await errorOf(
        await api.call('POST', '/api/collections/docs/judge-jobs', {
          ...admin(),
          json: { labelSet: 'llm', judge: 'graded-0-3', settings: { model: 'm' }, items },
        }),
      );
      expect(refused).toEqual({
        status: 422,
        code: 'invalid_input',
        message:
          '4 of 6 items have a document with empty text (1/b, 2/b, 1/c, 2/c); give those documents text or leave them out',
      });
      expect(await countRows(t.db, 'judge_jobs')).toBe(0);
      expect(await countRows(t.db, 'label_sets')).toBe(0);
      const fine = await api.call('POST', '/api/collections/docs/judge-jobs', {
        ...admin(),
        json: {
          labelSet: 'llm',
          judge: 'graded-0-3',
          settings: { model: 'm' },
          items: items.filter((i) => i.docId === 'a'),
        },
      });
      expect(fine.status).toBe(201);
    });
  });
});
