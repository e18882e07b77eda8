import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

// Six topics, runs A and B of four documents each (the example of apps/cli/test/ppi.test.ts):
// LLM labels on every topic, people's labels on topics 1-3.
function labels(counts: Record<string, number[]>): string {
  const lines: string[] = [];
  Object.entries(counts).forEach(([run, ks]) =>
    ks.forEach((k, t) => {
      for (let i = 1; i <= 4; i++) lines.push(`${t + 1} 0 ${run}${i} ${i <= k ? 1 : 0}`);
    }),
  );
  return `${lines.join('\n')}\n`;
}
const run = (tag: string) =>
  `${[1, 2, 3, 4, 5, 6].flatMap((t) => [1, 2, 3, 4].map((i) => `${t} Q0 ${tag}${i} ${i} ${10 - i} ${tag}`)).join('\n')}\n`;

forEachDatabase('estimates API', (t) => {
  let api: TestApi;

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const admin = { token: api.admin };
    expect(
      (await api.call('POST', '/api/collections?name=c&format=tsv', { ...admin, body: 'A1\tx\n' }))
        .status,
    ).toBe(201);
    for (const [name, text] of [
      ['llm', labels({ A: [4, 3, 2, 4, 1, 2], B: [2, 2, 1, 3, 1, 0] })],
      ['people', labels({ A: [3, 3, 1], B: [2, 1, 1] })],
      ['other', labels({ A: [4, 2, 2, 4, 0, 2], B: [2, 2, 0, 3, 1, 1] })],
    ])
      expect(
        (
          await api.call('POST', `/api/collections/c/label-sets?name=${name}`, {
            ...admin,
            body: text!,
          })
        ).status,
      ).toBe(201);
    for (const tag of ['A', 'B'])
      expect(
        (await api.call('POST', '/api/collections/c/runs', { ...admin, body: run(tag) })).status,
      ).toBe(201);
  });

  it('POST /api/ppi: the prediction-powered leaderboard, for admins', async () => {
    const json = {
      collection: 'c',
      humanLabelSet: 'people',
      llmLabelSet: 'llm',
      measures: ['P@4'],
    };
    // It reads label sets, which annotators may not read.
    const annotator = await api.call('POST', '/api/ppi', { token: api.annotator, json });
    expect(annotator.status).toBe(403);
    const response = await api.call('POST', '/api/ppi', { token: api.admin, json });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      n: number;
      N: number;
      rows: Array<{ run: string; estimate: number; lambda: number }>;
      pairs: unknown[];
      humanLabelSet: { name: string };
    };
    expect([body.n, body.N]).toEqual([3, 6]);
    const a = body.rows.find((r) => r.run === 'A')!;
    // By hand in apps/cli/test/ppi.test.ts: λ = 1, estimate 0.5.
    expect(a.lambda).toBe(1);
    expect(a.estimate).toBeCloseTo(0.5, 12);
    expect(body.pairs).toHaveLength(1);
    const bad = await api.call('POST', '/api/ppi', {
      token: api.admin,
      json: { collection: 'c', humanLabelSet: 'people', llmLabelSet: 'llm', sampling: 'pairs' },
    });
    expect(await errorOf(bad)).toMatchObject({ status: 422, code: 'invalid_input' });
    expect((await api.call('POST', '/api/ppi', { json: { collection: 'c' } })).status).toBe(401);
  });

  it('POST /api/judge-reports: JSON and one HTML page', async () => {
    const json = {
      collection: 'c',
      human: 'people',
      judges: ['llm', 'other'],
      drift: [['llm', 'other']],
      runs: ['A', 'B'],
      measure: 'P@4',
      samples: 50,
    };
    const annotator = await api.call('POST', '/api/judge-reports', { token: api.annotator, json });
    expect(annotator.status).toBe(403);
    const response = await api.call('POST', '/api/judge-reports', { token: api.admin, json });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      human: { name: string; labels: number };
      judges: Array<{
        judge: string;
        agreement: { n: number };
        leaderboard: unknown;
        cost?: unknown;
      }>;
      drift: Array<{ from: string; to: string; n: number }>;
    };
    expect(body.human).toMatchObject({ name: 'people', labels: 24 });
    expect(body.judges.map((j) => [j.judge, j.agreement.n])).toEqual([
      ['llm', 24],
      ['other', 24],
    ]);
    expect(body.judges[0]!.leaderboard).toBeDefined();
    // Uploaded labels: no judge job, no cost.
    expect(body.judges[0]!.cost).toBeUndefined();
    expect(body.drift[0]).toMatchObject({ from: 'llm', to: 'other', n: 48 });
    const page = await api.call('POST', '/api/judge-reports?format=html', {
      token: api.admin,
      json,
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('<h2>Judge llm</h2>');
    const bad = await api.call('POST', '/api/judge-reports', {
      token: api.admin,
      json: { collection: 'c', judges: ['llm'] },
    });
    expect(await errorOf(bad)).toMatchObject({ status: 422, code: 'invalid_input' });
  });

  it('GET /api/score-sets/{id}/position-swap/{other}: comparative judging in two orders', async () => {
    const admin = { token: api.admin };
    const responses = ['s1', 's2', 's3']
      .map((system) =>
        JSON.stringify({ topic: 't1', system, query: 'q', answer: `answer of ${system}` }),
      )
      .join('\n');
    expect(
      (await api.call('POST', '/api/response-sets', { ...admin, json: { name: 'rs', responses } }))
        .status,
    ).toBe(201);
    // As in apps/cli/test/judge-report.test.ts: orders A B C then C B A; scores 5 3 3, then 2 3 4.
    const ids: number[] = [];
    for (const [name, rows] of [
      [
        'first',
        [
          ['s1', 5, 'A'],
          ['s2', 3, 'B'],
          ['s3', 3, 'C'],
        ],
      ],
      [
        'second',
        [
          ['s1', 2, 'C'],
          ['s2', 3, 'B'],
          ['s3', 4, 'A'],
        ],
      ],
    ] as const) {
      const scores = rows
        .map(([system, q, label]) =>
          JSON.stringify({
            topic: 't1',
            system,
            trial: 1,
            scores: { q },
            justification: '',
            label,
          }),
        )
        .join('\n');
      const response = await api.call('POST', '/api/response-sets/rs/score-sets/import', {
        ...admin,
        json: { name, scores },
      });
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { id: number }).id);
    }
    const swapUrl = `/api/score-sets/${ids[0]}/position-swap/${ids[1]}`;
    // Score sets are for admins: annotators reach only their campaigns.
    expect((await api.call('GET', swapUrl, { token: api.annotator })).status).toBe(403);
    const swap = await api.call('GET', swapUrl, admin);
    expect(swap.status).toBe(200);
    expect(await swap.json()).toEqual({
      topics: 1,
      criteria: [
        { criterion: 'q', swapped: 3, consistent: 0, consistency: 0, firstWins: 2, secondWins: 0 },
      ],
    });
  });
});
