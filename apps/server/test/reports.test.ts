import { beforeEach, describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { assay, HUMAN, LLM, RUNS, writeReportFiles } from '@assay/test-support/report-fixtures';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

// Hand-computed means. P@1: A 1 1 1, B 0 1 0, C 1 0 0.
// AP: A (1 + 2/3)/2, 1, 1; B (1/2)/2, 1/2, 1/2; C (1 + 1)/2, (1/2)/2, 1/2.
const MEANS: Record<string, { P_1: number; map: number }> = {
  A: { P_1: 1, map: 17 / 18 },
  B: { P_1: 1 / 3, map: 5 / 12 },
  C: { P_1: 1 / 3, map: 7 / 12 },
};

const FILES = writeReportFiles();

interface ReportBody {
  id: number;
  kind: string;
  title: string;
  createdBy: number | null;
  slugs: string[];
  provenance: Record<string, unknown>;
  result: {
    leaderboards: Array<{
      qrels: string;
      comparison: { runs: Array<{ run: string; means: Record<string, number> }> };
    }>;
  };
}

forEachDatabase('report API', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const collection = await api.call('POST', '/api/collections?name=demo&format=tsv', {
      ...admin(),
      body: 'a\tx\n',
    });
    expect(collection.status).toBe(201);
    for (const [name, text] of [
      ['human', HUMAN],
      ['llm', LLM],
    ])
      expect(
        (
          await api.call('POST', `/api/collections/demo/label-sets?name=${name}`, {
            ...admin(),
            body: text!,
          })
        ).status,
      ).toBe(201);
    for (const text of Object.values(RUNS))
      expect(
        (await api.call('POST', '/api/collections/demo/runs', { ...admin(), body: text })).status,
      ).toBe(201);
  });

  async function compare(extra: Record<string, unknown> = {}): Promise<ReportBody> {
    const response = await api.call('POST', '/api/reports/comparisons', {
      ...admin(),
      json: {
        collection: 'demo',
        labelSets: ['human'],
        runs: ['A', 'B', 'C'],
        measures: ['P.1', 'map'],
        ...extra,
      },
    });
    expect(response.status).toBe(201);
    return (await response.json()) as ReportBody;
  }

  describe('creating and reading reports', () => {
    it('stores a comparison with hand-checked means and full provenance', async () => {
      const report = await compare({ title: 'demo board' });
      expect(report.kind).toBe('comparison');
      expect(report.title).toBe('demo board');
      const board = report.result.leaderboards[0]!;
      expect(board.qrels).toBe('human');
      // B and C tie on P@1 and are ordered by name.
      expect(board.comparison.runs.map((r) => r.run)).toEqual(['A', 'B', 'C']);
      for (const row of board.comparison.runs) {
        expect(row.means.P_1).toBeCloseTo(MEANS[row.run]!.P_1, 12);
        expect(row.means.map).toBeCloseTo(MEANS[row.run]!.map, 12);
      }
      expect(report.provenance).toMatchObject({
        assayVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
        createdBy: { name: 'admin' },
        collection: { name: 'demo' },
        labelSets: [{ name: 'human' }],
        runs: [{ name: 'A' }, { name: 'B' }, { name: 'C' }],
        measures: ['P.1', 'map'],
        test: 't',
        correction: 'holm',
        alpha: 0.05,
        seed: 42,
        permutations: 10000,
      });
      const read = await api.call('GET', `/api/reports/${report.id}`, { token: api.admin });
      expect(read.status).toBe(200);
      expect(await read.json()).toEqual(report);
      const list = await api.call('GET', '/api/reports?kind=comparison&collection=demo', {
        token: api.admin,
      });
      const summaries = (await list.json()) as Array<Record<string, unknown>>;
      expect(summaries).toHaveLength(1);
      expect(summaries[0]).toMatchObject({ id: report.id, title: 'demo board', slugs: [] });
      expect(summaries[0]).not.toHaveProperty('result');
    });

    it('refuses agreement over a stray huge grade with a 422 naming the label set and grade', async () => {
      // The exact probe: one label of 2000000000 would make a 0..2e9 confusion matrix. It
      // is no longer stored at all; the widest stored grade still stretches 0..3 too far.
      const probe = await api.call('POST', '/api/collections/demo/label-sets?name=outlier', {
        ...admin(),
        body: '1 0 184 2000000000\n1 0 a 1\n',
      });
      expect(await errorOf(probe)).toMatchObject({ status: 422 });
      const outlier = await api.call('POST', '/api/collections/demo/label-sets?name=outlier', {
        ...admin(),
        body: '1 0 184 1000\n1 0 a 1\n',
      });
      expect(outlier.status).toBe(201);
      const refused = await errorOf(
        await api.call('POST', '/api/reports/agreements', {
          ...admin(),
          json: { collection: 'demo', labelSetA: 'human', labelSetB: 'outlier' },
        }),
      );
      expect(refused).toMatchObject({ status: 422, code: 'invalid_input' });
      expect(refused.message).toContain('label set "outlier"');
      expect(refused.message).toContain('grade 1000');
      expect(refused.message).toContain('1000 grades');
      // A declared scale with clip clamps the stray grade: pairs a (2 vs 1) only.
      const clipped = await api.call('POST', '/api/reports/agreements', {
        ...admin(),
        json: {
          collection: 'demo',
          labelSetA: 'human',
          labelSetB: 'outlier',
          scale: { min: 0, max: 3 },
          clip: true,
        },
      });
      expect(clipped.status).toBe(201);
      const body = (await clipped.json()) as { result: { n: number; onlyA: number } };
      expect(body.result.n).toBe(1);
      expect(body.result.onlyA).toBe(6);
      const wide = await errorOf(
        await api.call('POST', '/api/reports/agreements', {
          ...admin(),
          json: {
            collection: 'demo',
            labelSetA: 'human',
            labelSetB: 'llm',
            scale: { min: 0, max: 100000 },
          },
        }),
      );
      expect(wide).toMatchObject({ status: 422, code: 'invalid_input' });
      expect(wide.message).toContain('0-100000');
    });

    it('stores agreement and evaluation reports', async () => {
      const agreement = await api.call('POST', '/api/reports/agreements', {
        ...admin(),
        json: { collection: 'demo', labelSetA: 'human', labelSetB: 'llm' },
      });
      expect(agreement.status).toBe(201);
      const body = (await agreement.json()) as {
        kind: string;
        title: string;
        result: { n: number; exactAgreement: number };
      };
      expect(body).toMatchObject({ kind: 'agreement', title: 'human vs llm' });
      expect(body.result.n).toBe(7);
      expect(body.result.exactAgreement).toBeCloseTo(3 / 7, 12);
      expect(body.result).toEqual(
        JSON.parse(assay('agree', FILES.human!, FILES.llm!, '--format', 'json')),
      );

      const evaluation = await api.call('POST', '/api/reports/evaluations', {
        ...admin(),
        json: { collection: 'demo', labelSet: 'human', runs: ['C'], measures: ['map'] },
      });
      expect(evaluation.status).toBe(201);
      const evaluated = (await evaluation.json()) as {
        result: { runs: Array<{ mean: Record<string, number> }> };
      };
      expect(evaluated.result.runs[0]!.mean.map).toBeCloseTo(7 / 12, 12);
      // `assay eval -c` on the files prints the same mean.
      expect(assay('eval', '-c', '-m', 'map', FILES.human!, FILES.C!)).toMatch(
        /^map\s+all\s+0\.5833$/m,
      );
      const kinds = (await (await api.call('GET', '/api/reports', admin())).json()) as Array<{
        kind: string;
      }>;
      expect(kinds.map((k) => k.kind)).toEqual(['evaluation', 'agreement']);
    });

    it('answers unknown names with 404 and bad requests with 400 or 422', async () => {
      const call = (json: Record<string, unknown>) =>
        api.call('POST', '/api/reports/comparisons', {
          ...admin(),
          json: {
            collection: 'demo',
            labelSets: ['human'],
            runs: ['A', 'B'],
            measures: ['map'],
            ...json,
          },
        });
      expect(await errorOf(await call({ labelSets: ['ghost'] }))).toEqual({
        status: 404,
        code: 'not_found',
        message: 'no label set "ghost" in collection "demo"',
      });
      expect(await errorOf(await call({ runs: ['A', 'ghost'] }))).toEqual({
        status: 404,
        code: 'not_found',
        message: 'no run "ghost" in collection "demo"',
      });
      expect(await errorOf(await call({ runs: ['A'] }))).toMatchObject({
        status: 400,
        code: 'invalid_input',
      });
      expect(await errorOf(await call({ test: 'z' }))).toMatchObject({ status: 400 });
      expect(await errorOf(await call({ labelSets: ['human', 'llm', 'human'] }))).toMatchObject({
        status: 400,
      });
      expect(await errorOf(await call({ measures: ['nope@3'] }))).toMatchObject({
        status: 422,
        code: 'invalid_input',
      });
      expect(
        await errorOf(
          await api.call('POST', '/api/reports/agreements', {
            ...admin(),
            json: { collection: 'demo', labelSetA: 'human', labelSetB: 'ghost' },
          }),
        ),
      ).toMatchObject({ status: 404, code: 'not_found' });
      expect(await errorOf(await api.call('GET', '/api/reports/999', admin()))).toEqual({
        status: 404,
        code: 'not_found',
        message: 'no report 999',
      });
      expect(await errorOf(await api.call('GET', '/api/reports/x', admin()))).toMatchObject({
        status: 400,
      });
    });
  });

  describe('access', () => {
    it('needs a token for private routes and an admin for writes; public reads need none', async () => {
      const report = await compare();
      await api.call('POST', `/api/reports/${report.id}/publish`, {
        ...admin(),
        json: { slug: 'board' },
      });
      for (const [method, path] of [
        ['GET', '/api/reports'],
        ['GET', `/api/reports/${report.id}`],
        ['POST', '/api/reports/comparisons'],
        ['DELETE', `/api/reports/${report.id}`],
        ['POST', `/api/reports/${report.id}/publish`],
        ['DELETE', '/api/leaderboards/board'],
        ['GET', '/api/public/leaderboards/board/more'],
      ] as const)
        expect((await api.call(method, path)).status, `${method} ${path}`).toBe(401);
      const asAnnotator = (method: string, path: string, json: unknown) =>
        api.call(method, path, { token: api.annotator, json });
      for (const [method, path, json] of [
        ['POST', '/api/reports/comparisons', { collection: 'demo' }],
        ['POST', '/api/reports/agreements', {}],
        ['POST', '/api/reports/evaluations', {}],
        ['POST', `/api/reports/${report.id}/publish`, { slug: 'mine' }],
        ['DELETE', `/api/reports/${report.id}`, undefined],
        ['DELETE', '/api/leaderboards/board', undefined],
      ] as const)
        expect(await errorOf(await asAnnotator(method, path, json)), `${method} ${path}`).toEqual({
          status: 403,
          code: 'forbidden',
          message:
            'annotators reach only their own campaign items, labels and tokens; this needs an admin API token',
        });
      expect((await api.call('GET', '/api/public/leaderboards/board')).status).toBe(200);
      expect((await api.call('GET', '/api/public/leaderboards/board.csv')).status).toBe(200);
      expect((await api.call('HEAD', '/api/public/leaderboards/board')).status).toBe(200);
    });
  });

  describe('publishing', () => {
    it('publishes under a free, well-formed slug and unpublishes', async () => {
      const report = await compare();
      const publish = (slug: string, id = report.id) =>
        api.call('POST', `/api/reports/${id}/publish`, { ...admin(), json: { slug } });
      const published = await publish('demo-2026');
      expect(published.status).toBe(201);
      expect(await published.json()).toMatchObject({
        slug: 'demo-2026',
        reportId: report.id,
        url: '/api/public/leaderboards/demo-2026',
      });
      expect(await errorOf(await publish('demo-2026'))).toEqual({
        status: 409,
        code: 'conflict',
        message: 'the slug "demo-2026" is taken',
      });
      for (const bad of ['Demo', '-x', 'a_b', 'x'.repeat(64), 'a.csv'])
        expect(await errorOf(await publish(bad)), bad).toMatchObject({
          status: 400,
          code: 'invalid_input',
        });
      expect(await errorOf(await publish('other', 999))).toMatchObject({ status: 404 });
      const agreement = (await (
        await api.call('POST', '/api/reports/agreements', {
          ...admin(),
          json: { collection: 'demo', labelSetA: 'human', labelSetB: 'llm' },
        })
      ).json()) as { id: number };
      expect(await errorOf(await publish('agree', agreement.id))).toMatchObject({
        status: 422,
        code: 'invalid_input',
      });
      expect(
        ((await (await api.call('GET', `/api/reports/${report.id}`, admin())).json()) as ReportBody)
          .slugs,
      ).toEqual(['demo-2026']);
      const listed = await api.call('GET', '/api/leaderboards', { token: api.admin });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual([
        {
          slug: 'demo-2026',
          reportId: report.id,
          collectionId: expect.any(Number),
          title: expect.any(String),
          publishedAt: expect.any(String),
          url: '/api/public/leaderboards/demo-2026',
        },
      ]);
      expect((await api.call('GET', '/api/leaderboards')).status).toBe(401);
      // The public index needs no token and shows neither report nor collection ids.
      const index = await api.call('GET', '/api/public/leaderboards');
      expect(index.status).toBe(200);
      expect(await index.json()).toEqual([
        {
          slug: 'demo-2026',
          title: expect.any(String),
          publishedAt: expect.any(String),
          url: '/api/public/leaderboards/demo-2026',
        },
      ]);
      expect(
        await errorOf(await api.call('DELETE', `/api/reports/${report.id}`, admin())),
      ).toMatchObject({ status: 409, code: 'conflict' });
      expect((await api.call('DELETE', '/api/leaderboards/demo-2026', admin())).status).toBe(204);
      expect(await (await api.call('GET', '/api/leaderboards', admin())).json()).toEqual([]);
      expect(await (await api.call('GET', '/api/public/leaderboards')).json()).toEqual([]);
      expect(
        await errorOf(await api.call('DELETE', '/api/leaderboards/demo-2026', admin())),
      ).toMatchObject({ status: 404 });
      expect(
        await errorOf(await api.call('GET', '/api/public/leaderboards/demo-2026')),
      ).toMatchObject({ status: 404, code: 'not_found' });
      expect((await api.call('DELETE', `/api/reports/${report.id}`, admin())).status).toBe(204);
      expect((await api.call('GET', `/api/reports/${report.id}`, admin())).status).toBe(404);
    });

    it('serves the public leaderboard and its downloads as `assay compare` writes them', async () => {
      const report = await compare({ measures: ['map'], title: 'Demo <board>' });
      await api.call('POST', `/api/reports/${report.id}/publish`, {
        ...admin(),
        json: { slug: 'demo' },
      });
      const cliArgs = ['compare', FILES.human!, FILES.A!, FILES.B!, FILES.C!, '-m', 'map'];
      const json = await api.call('GET', '/api/public/leaderboards/demo');
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await json.json()) as {
        slug: string;
        title: string;
        provenance: Record<string, unknown>;
        leaderboard: Record<string, unknown>;
        downloads: Record<string, string>;
      };
      expect(body).toMatchObject({ slug: 'demo', title: 'Demo <board>' });
      expect(body.provenance).toMatchObject({ labelSets: [{ name: 'human' }], measures: ['map'] });
      expect(body.provenance).not.toHaveProperty('createdBy');
      const cliJson = JSON.parse(assay(...cliArgs, '--format', 'json')) as Record<string, unknown>;
      expect(body.leaderboard).toEqual({ ...cliJson, qrels: 'human' });
      expect(body.downloads.csv).toBe('/api/public/leaderboards/demo.csv');

      const download = async (path: string, type: string, filename: string | null) => {
        const response = await api.call('GET', path);
        expect(response.status, path).toBe(200);
        expect(response.headers.get('content-type'), path).toBe(type);
        expect(response.headers.get('content-disposition'), path).toBe(
          filename === null ? null : `attachment; filename="${filename}"`,
        );
        return response.text();
      };
      // One label set: the CSV names no qrels, so past its title section it is the CLI's
      // byte for byte.
      const csv = await download(
        '/api/public/leaderboards/demo.csv',
        'text/csv; charset=utf-8',
        'demo.csv',
      );
      expect(csv).toBe(`title\nDemo <board>\n\n${assay(...cliArgs, '--format', 'csv')}`);
      expect(csv.split('\n')[3]).toBe(
        'run,measure,mean,ci_lower,ci_upper,judged_at_10,rank,better_than,differs_from,topics,topic_handling',
      );
      // 17/18 summed over topics in floating point.
      expect(csv).toMatch(/\nA,map,0\.944444444444444\d,/);
      expect(
        await download(
          '/api/public/leaderboards/demo?format=csv',
          'text/csv; charset=utf-8',
          'demo.csv',
        ),
      ).toBe(csv);
      // LaTeX and HTML name the label set where the CLI names the qrels path.
      const tex = await download(
        '/api/public/leaderboards/demo.tex',
        'application/x-tex; charset=utf-8',
        'demo.tex',
      );
      expect(tex).toBe(
        `% Demo <board>\n${assay(...cliArgs, '--format', 'latex').replace(`qrels ${FILES.human}:`, 'qrels human:')}`,
      );
      // A is best (bold) and significantly better than B, tagged (c): Holm p = 0.0083.
      expect(tex).toContain('(a) & A & \\textbf{0.9444}\\textsuperscript{c} & ');
      expect(
        await download(
          '/api/public/leaderboards/demo?format=latex',
          'application/x-tex; charset=utf-8',
          'demo.tex',
        ),
      ).toBe(tex);
      const jsonFile = await download(
        '/api/public/leaderboards/demo.json',
        'application/json; charset=utf-8',
        'demo.json',
      );
      expect(jsonFile).toBe(
        assay(...cliArgs, '--format', 'json').replace(
          `"qrels": ${JSON.stringify(FILES.human)}`,
          '"qrels": "human"',
        ),
      );
      // The page is shown inline, headed by the report title (escaped), not "assay compare".
      const html = await download(
        '/api/public/leaderboards/demo.html',
        'text/html; charset=utf-8',
        null,
      );
      expect(html).toMatch(/^<!doctype html>/);
      expect(html).toContain('<title>Demo &lt;board&gt;</title>');
      expect(html).toContain('<h1>Demo &lt;board&gt;</h1>');
      expect(html).not.toContain('assay compare');
      expect(
        (await api.call('GET', '/api/public/leaderboards/demo.html')).headers.get(
          'content-security-policy',
        ),
      ).toMatch(/^default-src 'none'/);
      expect(html).not.toMatch(/<script\b/i);
      expect(
        await errorOf(await api.call('GET', '/api/public/leaderboards/demo.csv?format=json')),
      ).toMatchObject({ status: 400 });
      expect(
        await errorOf(await api.call('GET', '/api/public/leaderboards/demo.pdf')),
      ).toMatchObject({ status: 400 });
      expect(await errorOf(await api.call('GET', '/api/public/leaderboards/nope'))).toEqual({
        status: 404,
        code: 'not_found',
        message: 'no leaderboard "nope"',
      });
    });

    it('keeps the report and its leaderboard as computed when runs and labels change', async () => {
      const report = await compare();
      await api.call('POST', `/api/reports/${report.id}/publish`, {
        ...admin(),
        json: { slug: 'frozen' },
      });
      const before = {
        report: await (await api.call('GET', `/api/reports/${report.id}`, admin())).json(),
        json: await (await api.call('GET', '/api/public/leaderboards/frozen')).text(),
        csv: await (await api.call('GET', '/api/public/leaderboards/frozen.csv')).text(),
      };
      expect((await api.call('DELETE', '/api/collections/demo/runs/B', admin())).status).toBe(204);
      expect(
        (
          await api.call('POST', '/api/collections/demo/runs?replace=true', {
            ...admin(),
            body: RUNS.C!.replaceAll(' C\n', ' A\n'),
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await api.call('POST', '/api/collections/demo/label-sets?name=human&replace=true', {
            ...admin(),
            body: LLM,
          })
        ).status,
      ).toBe(201);
      // A new comparison sees the changes; the stored one does not.
      const fresh = await compare({ runs: ['A', 'C'] });
      expect(fresh.result.leaderboards[0]!.comparison.runs[0]!.means.map).not.toBeCloseTo(
        MEANS.A!.map,
        6,
      );
      expect(await (await api.call('GET', `/api/reports/${report.id}`, admin())).json()).toEqual({
        ...(before.report as object),
      });
      expect(await (await api.call('GET', '/api/public/leaderboards/frozen')).text()).toBe(
        before.json,
      );
      expect(await (await api.call('GET', '/api/public/leaderboards/frozen.csv')).text()).toBe(
        before.csv,
      );
    });
  });
});
