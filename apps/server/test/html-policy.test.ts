import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { HUMAN, LLM, RUNS } from '@assay/test-support/report-fixtures';
import { setUpApi, type TestApi } from './helpers.js';

// Every HTML page the server sends carries a Content-Security-Policy that forbids framing
// (no page of assay can be overlaid on another site to trick a click) and lets it show as
// designed: the report pages their inline style and nothing else.

const webDir = mkdtempSync(join(tmpdir(), 'assay-web-'));
writeFileSync(join(webDir, 'index.html'), '<html><body><script>boot()</script></body></html>');

const RESPONSES = ['a', 'b']
  .flatMap((system) =>
    ['q1', 'q2'].map((topic) => ({ topic, system, answer: `${system} on ${topic}` })),
  )
  .map((r) => JSON.stringify(r))
  .join('\n');

const SCORES = [
  ['q1', 'a', 4],
  ['q1', 'b', 2],
  ['q2', 'a', 5],
  ['q2', 'b', 3],
]
  .map(([topic, system, v]) =>
    JSON.stringify({ topic, system, trial: 1, scores: { x: v }, justification: '' }),
  )
  .join('\n');

/** Directive name → its value, of a policy. */
function directives(policy: string | null): Map<string, string> {
  expect(policy).not.toBeNull();
  return new Map(
    policy!
      .split(';')
      .map((d) => d.trim())
      .filter((d) => d !== '')
      .map((d) => [d.split(/\s+/)[0]!, d.slice(d.split(/\s+/)[0]!.length).trim()]),
  );
}

forEachDatabase('the policy of HTML pages', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    api = await setUpApi(t.db, { webDir });
  });

  it('forbids framing on every HTML response, and lets report pages keep their style', async () => {
    // A published leaderboard and a score set, to have every kind of page to ask for.
    const collection = await api.call('POST', '/api/collections?name=demo&format=tsv', {
      ...admin(),
      body: '',
    });
    expect(collection.status).toBe(201);
    expect(
      (
        await api.call('POST', '/api/collections/demo/label-sets?name=human', {
          ...admin(),
          body: HUMAN,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api.call('POST', '/api/collections/demo/label-sets?name=llm', {
          ...admin(),
          body: LLM,
        })
      ).status,
    ).toBe(201);
    for (const text of Object.values(RUNS))
      expect(
        (await api.call('POST', '/api/collections/demo/runs', { ...admin(), body: text })).status,
      ).toBe(201);
    const report = await api.call('POST', '/api/reports/comparisons', {
      ...admin(),
      json: { collection: 'demo', labelSets: ['human'], runs: ['A', 'B'], measures: ['P.1'] },
    });
    const { id } = (await report.json()) as { id: number };
    expect(
      (
        await api.call('POST', `/api/reports/${id}/publish`, {
          ...admin(),
          json: { slug: 'board' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api.call('POST', '/api/response-sets', {
          ...admin(),
          json: { name: 'rs', responses: RESPONSES },
        })
      ).status,
    ).toBe(201);
    const imported = await api.call('POST', '/api/response-sets/rs/score-sets/import', {
      ...admin(),
      json: { name: 'people', scores: SCORES },
    });
    const scoreSet = (await imported.json()) as { id: number };

    // Which API routes answer HTML, by the OpenAPI document: each is asked for below.
    const spec = (await (await api.call('GET', '/api/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>>;
    };
    const htmlRoutes = Object.entries(spec.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) =>
          Object.values(op.responses ?? {}).some((r) => r.content && 'text/html' in r.content),
        )
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    // An assessment set's HTML leaderboard is checked where a scored set is made
    // (apps/server/test/rag.test.ts).
    expect(htmlRoutes.sort()).toEqual([
      'GET /api/assessment-sets/{id}/scores',
      'GET /api/public/leaderboards/{slug}',
      'GET /api/score-sets/{id}/report',
      'POST /api/judge-reports',
    ]);

    const pages: Array<[string, string | undefined, 'app' | 'report']> = [
      ['/', undefined, 'app'],
      ['/admin/collections/demo', undefined, 'app'],
      ['/api/public/leaderboards/board.html', undefined, 'report'],
      ['/api/public/leaderboards/board?format=html', undefined, 'report'],
      [`/api/score-sets/${scoreSet.id}/report?format=html`, api.admin, 'report'],
      ['/api/judge-reports?format=html', api.admin, 'report'],
    ];
    const judgeReport = { collection: 'demo', human: 'human', judges: ['llm'], samples: 0 };
    for (const [path, token, kind] of pages) {
      const response = path.startsWith('/api/judge-reports')
        ? await api.call('POST', path, { token, json: judgeReport })
        : await api.call('GET', path, token === undefined ? {} : { token });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await response.text(), path).toMatch(/<(html|!doctype html)/i);
      const policy = directives(response.headers.get('content-security-policy'));
      expect(policy.get('frame-ancestors'), path).toBe("'none'");
      expect(policy.get('object-src') ?? policy.get('default-src'), path).toBe("'none'");
      if (kind === 'report') {
        // Nothing loads and no script runs; the page's own style and inline SVG do.
        expect(policy.get('default-src'), path).toBe("'none'");
        expect(policy.has('script-src'), path).toBe(false);
        expect(policy.get('style-src'), path).toBe("'unsafe-inline'");
        expect(policy.get('base-uri'), path).toBe("'none'");
        expect(policy.get('form-action'), path).toBe("'none'");
      }
    }
    // Everything else (data, errors) is never a page to render, nor to frame.
    for (const path of ['/api/public/leaderboards/board', '/api/nope', '/api/collections']) {
      const policy = directives(
        (await api.call('GET', path)).headers.get('content-security-policy'),
      );
      expect(policy.get('default-src'), path).toBe("'none'");
      expect(policy.get('frame-ancestors'), path).toBe("'none'");
    }
  });
});
