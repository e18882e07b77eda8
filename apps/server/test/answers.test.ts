import type { AssayConfig } from '@assay/platform';
import { afterEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { errorOf, setUpApi } from './helpers.js';

// Two systems, two topics; the grade each answer should get is written in it.
const RESPONSES = [
  { topic: 'q1', system: 'a', query: 'first request', answer: 'A1 <script>x</script> [4]' },
  { topic: 'q1', system: 'b', query: 'first request', answer: 'B1 [2]' },
  { topic: 'q2', system: 'a', query: 'second request', answer: 'A2 [5]' },
  { topic: 'q2', system: 'b', query: 'second request', answer: 'B2 [3]' },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

let llm: TestServer | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

function config(baseUrl?: string): AssayConfig {
  return {
    dataDir: '/nonexistent',
    port: 0,
    ...(baseUrl ? { openaiBaseUrl: baseUrl, openaiApiKey: 'k' } : {}),
  } as AssayConfig;
}

forEachDatabase('answers API', (t) => {
  it('imports responses, scores them comparatively, and serves the grades and the report', async () => {
    llm = await startOpenAITestServer((body) => {
      const user = (body.messages as Array<{ content: string }>)[1]!.content;
      const out: Record<string, unknown> = {};
      for (const m of user.matchAll(/\[([A-Z])\]\n[^\n]*\[(\d)\]/g)) {
        const v = Number(m[2]);
        out[m[1]!] = {
          informativeness: v,
          completeness: v,
          novelty: v,
          actionability: v,
          justification: `${m[1]} is ${v}`,
        };
      }
      return { reply: JSON.stringify(out) };
    });
    const api = await setUpApi(t.db, { config: config(llm.baseURL) });
    const admin = { token: api.admin };

    const bad = await api.call('POST', '/api/response-sets', {
      ...admin,
      json: { name: 'rs', responses: `${RESPONSES}\n{"topic":"q3","system":"a"}`, file: 'r.jsonl' },
    });
    expect(await errorOf(bad)).toMatchObject({
      status: 422,
      code: 'invalid_input',
      message: 'r.jsonl:5: "answer" must be a non-empty string',
    });
    const forbidden = await api.call('POST', '/api/response-sets', {
      token: api.annotator,
      json: { name: 'rs', responses: RESPONSES },
    });
    expect(forbidden.status).toBe(403);

    const created = await api.call('POST', '/api/response-sets', {
      ...admin,
      json: { name: 'rs', responses: RESPONSES },
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: 'rs', responses: 4, topics: 2, systems: 2 });

    const scored = await api.call('POST', '/api/response-sets/rs/score-sets', {
      ...admin,
      json: { name: 'cmp', judge: 'answer-quality', mode: 'comparative', model: 'm', seed: 3 },
    });
    expect(scored.status).toBe(201);
    const set = (await scored.json()) as {
      id: number;
      scored: number;
      failed: number;
      settings: { orders: unknown };
    };
    expect(set).toMatchObject({ scored: 4, failed: 0, mode: 'comparative' });
    expect(llm.requests).toHaveLength(2);

    // A topic's answers side by side with each criterion's score and justification.
    const answers = (await (
      await api.call('GET', '/api/response-sets/rs?topic=q1', { token: api.admin })
    ).json()) as {
      answers: Array<{ system: string; answer: string }>;
      scoreSets: Array<{ name: string }>;
    };
    expect(answers.answers.map((a) => a.system)).toEqual(['a', 'b']);
    expect(answers.answers[0]!.answer).toBe('A1 <script>x</script> [4]');
    expect(answers.scoreSets.map((s) => s.name)).toEqual(['cmp']);
    const rows = (await (
      await api.call('GET', `/api/score-sets/${set.id}?topic=q1`, { token: api.admin })
    ).json()) as {
      rows: Array<{
        system: string;
        scores: Record<string, number>;
        justification: string;
        label: string;
      }>;
    };
    expect(rows.rows.map((r) => [r.system, r.scores.novelty])).toEqual([
      ['a', 4],
      ['b', 2],
    ]);
    for (const r of rows.rows) expect(r.justification).toBe(`${r.label} is ${r.scores.novelty}`);

    const report = (await (
      await api.call('GET', `/api/score-sets/${set.id}/report?correction=none`, admin)
    ).json()) as {
      systems: Array<{
        system: string;
        n: number;
        means: Record<string, number>;
        winRate: Record<string, number>;
      }>;
      tests: Array<{ a: string; b: string; statistic: number }>;
    };
    // a: (4 + 5) / 2, b: (2 + 3) / 2; a wins both topics; d = [2, 2] has no spread.
    expect(
      report.systems.map((s) => [s.system, s.n, s.means.completeness, s.winRate.completeness]),
    ).toEqual([
      ['a', 2, 4.5, 1],
      ['b', 2, 2.5, 0],
    ]);
    const html = await api.call('GET', `/api/score-sets/${set.id}/report?format=html`, admin);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await html.text()).toContain('Win rates (normalised)');
    const csv = await api.call('GET', `/api/score-sets/${set.id}/report?format=csv`, admin);
    expect((await csv.text()).split('\n')[0]).toBe(
      'system,criterion,n,mean,ci_low,ci_high,win_rate,win_rate_normalised',
    );

    // Scoring the same answers again costs nothing: every call comes from the store.
    const again = await api.call('POST', '/api/response-sets/rs/score-sets', {
      ...admin,
      json: {
        name: 'cmp-again',
        judge: 'answer-quality',
        mode: 'comparative',
        model: 'm',
        seed: 3,
      },
    });
    expect(again.status).toBe(201);
    expect(llm.requests).toHaveLength(2);

    const imported = await api.call('POST', '/api/response-sets/rs/score-sets/import', {
      ...admin,
      json: {
        name: 'by-cli',
        scores: '{"topic":"q1","system":"a","trial":1,"scores":{"x":1},"justification":""}',
      },
    });
    expect(imported.status).toBe(201);
    expect(await imported.json()).toMatchObject({ mode: 'imported', criteria: ['x'], scored: 1 });

    // People scored the same answers on the same rubric (imported); agreement with the judge.
    const people = await api.call('POST', '/api/response-sets/rs/score-sets/import', {
      ...admin,
      json: {
        name: 'people',
        scores: [
          ['q1', 'a', 4],
          ['q1', 'b', 2],
          ['q2', 'a', 3],
          ['q2', 'b', 3],
        ]
          .map(([topic, system, v]) =>
            JSON.stringify({ topic, system, trial: 1, scores: { novelty: v }, justification: '' }),
          )
          .join('\n'),
      },
    });
    const peopleSet = (await people.json()) as { id: number };
    const agreement = (await (
      await api.call('GET', `/api/score-sets/${set.id}/agreement/${peopleSet.id}`, admin)
    ).json()) as Array<{ criterion: string; n: number; exact: number }>;
    // Judge novelty: a 4, 5; b 2, 3. People: a 4, 3; b 2, 3 → 3 of 4 the same.
    expect(agreement).toHaveLength(1);
    expect(agreement[0]).toMatchObject({ criterion: 'novelty', n: 4, exact: 0.75 });

    expect((await api.call('DELETE', '/api/response-sets/rs', admin)).status).toBe(204);
    expect((await api.call('GET', `/api/score-sets/${set.id}`, admin)).status).toBe(404);
  });

  it("reports criteria in the set's order and writes system names as text in CSV", async () => {
    const api = await setUpApi(t.db, { config: config() });
    const admin = { token: api.admin };
    const systems = ['=HYPERLINK("http://x")', '@SUM(A1)'];
    const responses = ['q1', 'q2']
      .flatMap((topic) => systems.map((system) => ({ topic, system, query: 'q', answer: 'a' })))
      .map((r) => JSON.stringify(r))
      .join('\n');
    expect(
      (await api.call('POST', '/api/response-sets', { ...admin, json: { name: 'rs', responses } }))
        .status,
    ).toBe(201);
    // The file lists informativeness first; jsonb would put the shorter key (novelty) first.
    const scores = ['q1', 'q2']
      .flatMap((topic, t) =>
        systems.map((system, s) =>
          JSON.stringify({
            topic,
            system,
            trial: 1,
            scores: { informativeness: s + t, novelty: 2 * s },
            justification: '',
          }),
        ),
      )
      .join('\n');
    const imported = await api.call('POST', '/api/response-sets/rs/score-sets/import', {
      ...admin,
      json: { name: 'people', scores },
    });
    expect(imported.status).toBe(201);
    const { id } = (await imported.json()) as { id: number };
    const report = (await (
      await api.call('GET', `/api/score-sets/${id}/report?correction=none`, admin)
    ).json()) as { systems: Array<{ means: Record<string, number> }> };
    expect(Object.keys(report.systems[0]!.means)).toEqual(['informativeness', 'novelty']);
    const csv = (
      await (await api.call('GET', `/api/score-sets/${id}/report?format=csv`, admin)).text()
    ).split('\n');
    expect(csv.slice(1, 5).map((line) => line.split(',').slice(0, 2).join(','))).toEqual([
      `"'=HYPERLINK(""http://x"")",informativeness`,
      `"'=HYPERLINK(""http://x"")",novelty`,
      "'@SUM(A1),informativeness",
      "'@SUM(A1),novelty",
    ]);
  });

  it('refuses to score without a model endpoint', async () => {
    const api = await setUpApi(t.db, { config: config() });
    const admin = { token: api.admin };
    await api.call('POST', '/api/response-sets', {
      ...admin,
      json: { name: 'rs', responses: RESPONSES },
    });
    const none = await api.call('POST', '/api/response-sets/rs/score-sets', {
      ...admin,
      json: { name: 's', judge: 'answer-quality', model: 'm' },
    });
    expect(await errorOf(none)).toMatchObject({ status: 409, code: 'conflict' });
  });

  it('refuses a relevance judge and invalid settings before any call', async () => {
    const api = await setUpApi(t.db, { config: config('http://127.0.0.1:9/v1') });
    const admin = { token: api.admin };
    await api.call('POST', '/api/response-sets', {
      ...admin,
      json: { name: 'rs', responses: RESPONSES },
    });
    const relevance = await api.call('POST', '/api/response-sets/rs/score-sets', {
      ...admin,
      json: { name: 's', judge: 'graded-0-3', model: 'm' },
    });
    expect(await errorOf(relevance)).toMatchObject({
      status: 422,
      message: 'judge graded-0-3 grades relevance, not answers',
    });
    const invalid = await api.call('POST', '/api/response-sets/rs/score-sets', {
      ...admin,
      json: { name: 's', judge: 'answer-quality', trials: 0 },
    });
    expect(await errorOf(invalid)).toMatchObject({ status: 400, code: 'invalid_input' });
    const missing = await api.call('GET', '/api/response-sets/nope', admin);
    expect(await errorOf(missing)).toMatchObject({ status: 404, code: 'not_found' });
  });
});
