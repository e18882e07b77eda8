import { beforeEach, describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { ComputationGate } from '../src/core/computations.js';
import { createApp } from '../src/index.js';
import { ApiError } from '../src/core/errors.js';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

// No token may freeze the server: pools, comparisons and campaigns are bounded per request
// (a 4xx naming the figures beyond the caps), large answers come in pages, heavy work is
// computed a slice at a time (health keeps answering) and takes turns (memory stays
// bounded whoever sends many at once), and annotators do not pool.

/** A run `tag` over `topics` topics of `docs` documents, with scores of its own. */
function run(tag: string, topics: number, docs: number, seed: number): string {
  const lines: string[] = [];
  for (let t = 1; t <= topics; t++)
    for (let r = 1; r <= docs; r++)
      lines.push(
        `${t} Q0 d${(t * 31 + r * seed * 17) % 97} ${r} ${((r * seed) % 13) + r / 100} ${tag}`,
      );
  // A docno twice in one topic would be refused: keep the first of each.
  const seen = new Set<string>();
  return `${lines
    .filter((l) => {
      const [t, , d] = l.split(' ');
      const key = `${t} ${d}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .join('\n')}\n`;
}

/** Graded qrels over `topics` topics. */
function qrels(topics: number): string {
  const lines: string[] = [];
  for (let t = 1; t <= topics; t++)
    for (let d = 0; d < 97; d += 3) lines.push(`${t} 0 d${d} ${(t + d) % 3}`);
  return `${lines.join('\n')}\n`;
}

/** `qrels(topics)` with grades moved by a pattern of its own (a judge that disagrees a little). */
function shiftedQrels(topics: number, seed: number): string {
  const lines: string[] = [];
  for (let t = 1; t <= topics; t++)
    for (let d = 0; d < 97; d += 3)
      lines.push(`${t} 0 d${d} ${(t + d + ((d * seed + t) % 5 === 0 ? 1 : 0)) % 3}`);
  return `${lines.join('\n')}\n`;
}

describe('ComputationGate', () => {
  it('runs a few at once, queues the next in order, and refuses the rest as busy', async () => {
    const gate = new ComputationGate(1, 1);
    const order: string[] = [];
    let finishFirst!: () => void;
    const first = gate.run(
      () =>
        new Promise<string>((resolve) => {
          order.push('first started');
          finishFirst = () => resolve('first');
        }),
    );
    const second = gate.run(async () => {
      order.push('second started');
      return 'second';
    });
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    const third = gate.run(async () => 'third');
    await expect(third).rejects.toBeInstanceOf(ApiError);
    await expect(third).rejects.toMatchObject({
      code: 'busy',
      status: 503,
      headers: { 'retry-after': '5' },
    });
    finishFirst();
    expect(await Promise.all([first, second])).toEqual(['first', 'second']);
    expect(order).toEqual(['first started', 'second started']);
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });

  it('passes the turn on when a computation fails', async () => {
    const gate = new ComputationGate(1, 4);
    const failing = gate.run(async () => {
      throw new Error('boom');
    });
    const next = gate.run(async () => 'next');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('next');
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });
  it('answers busy after the longest wait instead of letting the connection time out', async () => {
    const gate = new ComputationGate(1, 4, 50);
    let finishFirst!: () => void;
    const first = gate.run(
      () => new Promise<string>((resolve) => (finishFirst = () => resolve('first'))),
    );
    const waited = gate.run(async () => 'never');
    await expect(waited).rejects.toMatchObject({ code: 'busy', status: 503 });
    // The one that gave up left the queue; the running one is untouched.
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
    finishFirst();
    expect(await first).toBe('first');
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });

  it('drops a waiting request whose client hung up, and hands the turn to the next', async () => {
    const gate = new ComputationGate(1, 4);
    let finishFirst!: () => void;
    const first = gate.run(() => new Promise<void>((resolve) => (finishFirst = resolve)));
    const hangUp = new AbortController();
    const gone = gate.run(async () => 'gone', hangUp.signal);
    const next = gate.run(async () => 'next');
    expect(gate.load).toEqual({ running: 1, waiting: 2 });
    hangUp.abort();
    await expect(gone).rejects.toMatchObject({ code: 'busy' });
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    finishFirst();
    await first;
    expect(await next).toBe('next');
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });
});

forEachDatabase('heavy requests', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });

  async function post(path: string, body: string) {
    const response = await api.call('POST', path, { ...admin(), body });
    expect(response.status, path).toBe(201);
  }

  beforeEach(async () => {
    api = await setUpApi(t.db);
    await post('/api/collections?name=c&format=tsv', '');
  });

  /**
   * Sends `request` and asks for the health check every few milliseconds until it is
   * answered: the answer, how long it took, and each health check's latency.
   */
  async function healthWhile(request: () => Promise<Response>) {
    await api.call('GET', '/api/health');
    const started = performance.now();
    let done = false;
    const asking = request().finally(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const asked = performance.now();
      const health = await api.call('GET', '/api/health');
      expect(health.status).toBe(200);
      latencies.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const answer = await asking;
    return { answer, took: performance.now() - started, latencies };
  }

  /**
   * Computed in one piece, the slowest health check would wait about as long as the whole
   * computation; in slices it waits a slice (plus whatever the machine adds).
   */
  function expectSliced(what: string, took: number, latencies: number[]) {
    console.info(
      `[${t.kind}] ${what} took ${took.toFixed(0)} ms; ${latencies.length} health checks meanwhile, slowest ${Math.max(...latencies).toFixed(0)} ms`,
    );
    expect(latencies.length).toBeGreaterThan(10);
    expect(Math.max(...latencies)).toBeLessThan(took / 4);
  }

  describe('pools', () => {
    beforeEach(async () => {
      for (const [tag, seed] of [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ] as const)
        await post(`/api/collections/c/runs`, run(tag, 4, 12, seed));
    });

    const spec = { runs: ['a', 'b', 'c'], depth: 10 };

    it('are for admins: an annotator may not pool', async () => {
      expect(
        await errorOf(
          await api.call('POST', '/api/collections/c/pools', {
            token: api.annotator,
            json: spec,
          }),
        ),
      ).toMatchObject({ status: 403, code: 'forbidden' });
    });

    it('answer their items in pages with a cursor, and the whole pool’s statistics', async () => {
      const whole = await api.call('POST', '/api/collections/c/pools?limit=10000', {
        ...admin(),
        json: spec,
      });
      expect(whole.status).toBe(200);
      expect(whole.headers.get('x-next-cursor')).toBeNull();
      const full = (await whole.json()) as {
        items: Array<{ topicId: string; docId: string }>;
        stats: { total: number };
      };
      expect(full.items.length).toBe(full.stats.total);
      expect(full.items.length).toBeGreaterThan(20);

      const pages: Array<typeof full> = [];
      let path = '/api/collections/c/pools?limit=7';
      for (;;) {
        const response = await api.call('POST', path, { ...admin(), json: spec });
        expect(response.status).toBe(200);
        const page = (await response.json()) as typeof full;
        pages.push(page);
        expect(page.stats).toEqual(full.stats);
        const next = response.headers.get('x-next-cursor');
        if (next === null) break;
        expect(page.items).toHaveLength(7);
        expect(response.headers.get('link')).toBe(
          `</api/collections/c/pools?limit=7&after=${next}>; rel="next"`,
        );
        path = `/api/collections/c/pools?limit=7&after=${next}`;
      }
      expect(pages.length).toBe(Math.ceil(full.items.length / 7));
      expect(pages.flatMap((p) => p.items)).toEqual(full.items);

      // The default page is 1000 items; a cursor must be one this list gave.
      const bad = await api.call('POST', '/api/collections/c/pools?after=bm90LWEtY3Vyc29y', {
        ...admin(),
        json: spec,
      });
      expect(await errorOf(bad)).toMatchObject({ status: 422, code: 'invalid_input' });
      const tooLarge = await api.call('POST', '/api/collections/c/pools?limit=10001', {
        ...admin(),
        json: spec,
      });
      expect(await errorOf(tooLarge)).toMatchObject({ status: 400, code: 'invalid_input' });
    });

    it('are refused over the candidate cap from the stored counts, before a run is read', async () => {
      await post('/api/collections/c/runs?name=wide1', run('w', 600, 1, 1));
      await post('/api/collections/c/runs?name=wide2', run('w', 600, 1, 2));
      const refused = await errorOf(
        await api.call('POST', '/api/collections/c/pools', {
          ...admin(),
          json: { runs: ['wide1', 'wide2'], depth: 1000 },
        }),
      );
      expect(refused).toMatchObject({ status: 422, code: 'invalid_input' });
      expect(refused.message).toContain(
        'at least 600 topics × depth 1000 × 2 runs = at least 1200000 candidates, over the cap of 1000000',
      );
    });
  });

  describe('comparisons', () => {
    const runs = Array.from({ length: 10 }, (_, k) => `s${k}`);

    beforeEach(async () => {
      await post('/api/collections/c/label-sets?name=h', qrels(50));
      for (const [k, tag] of runs.entries())
        await post('/api/collections/c/runs', run(tag, 50, 30, k + 2));
    });

    it('are refused over the step cap, naming the figures, without computing', async () => {
      const refused = await errorOf(
        await api.call('POST', '/api/reports/comparisons', {
          ...admin(),
          json: {
            collection: 'c',
            labelSets: ['h'],
            runs,
            measures: ['map'],
            test: 'randomization',
            permutations: 1_000_000,
          },
        }),
      );
      expect(refused).toMatchObject({ status: 422, code: 'invalid_input' });
      expect(refused.message).toContain(
        '10 runs (45 pairs) × 1 measures × 50 topics × 1000000 permutations take 2.26e+9 steps',
      );
      expect(refused.message).toContain('over the cap of 1e+9 per comparison');
      // Against a baseline the same test is 9 pairs: within the cap.
      expect(
        (
          await api.call('POST', '/api/reports/comparisons', {
            ...admin(),
            json: {
              collection: 'c',
              labelSets: ['h'],
              runs: runs.slice(0, 3),
              measures: ['map'],
              test: 'randomization',
              permutations: 1000,
              baseline: 's0',
            },
          })
        ).status,
      ).toBe(201);
    });

    it('stop computing for a client that hung up, and store nothing', async () => {
      const hangUp = new AbortController();
      const started = performance.now();
      const comparing = api.app.request('/api/reports/comparisons', {
        method: 'POST',
        signal: hangUp.signal,
        headers: { authorization: `Bearer ${api.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          collection: 'c',
          labelSets: ['h'],
          runs,
          measures: ['map'],
          test: 'randomization',
          permutations: 150_000,
        }),
      });
      setTimeout(() => hangUp.abort(), 300);
      const answer = await comparing;
      // The whole comparison takes seconds; stopped at the next slice it ends at once.
      expect(answer.status).toBe(503);
      expect(performance.now() - started).toBeLessThan(3_000);
      const stored = await api.call('GET', '/api/reports', admin());
      expect(await stored.json()).toEqual([]);
    }, 60_000);

    it('are computed a slice at a time: health keeps answering meanwhile', async () => {
      const { answer, took, latencies } = await healthWhile(() =>
        api.call('POST', '/api/reports/comparisons', {
          ...admin(),
          json: {
            collection: 'c',
            labelSets: ['h'],
            runs,
            measures: ['map'],
            test: 'randomization',
            permutations: 150_000,
          },
        }),
      );
      expect(answer.status).toBe(201);
      expectSliced('comparison', took, latencies);
    }, 180_000);
  });

  describe('bootstrap intervals', () => {
    // Three label sets of 60 topics: 100,000 resamples take seconds in one piece.
    beforeEach(async () => {
      await post('/api/collections/c/label-sets?name=h', qrels(60));
      await post('/api/collections/c/label-sets?name=j1', shiftedQrels(60, 1));
      await post('/api/collections/c/label-sets?name=j2', shiftedQrels(60, 2));
    });

    it('of an agreement report are computed a slice at a time: health keeps answering', async () => {
      const { answer, took, latencies } = await healthWhile(() =>
        api.call('POST', '/api/reports/agreements', {
          ...admin(),
          json: { collection: 'c', labelSetA: 'h', labelSetB: 'j1', samples: 100_000 },
        }),
      );
      expect(answer.status).toBe(201);
      const report = (await answer.json()) as {
        result: { bootstrap: { samples: number }; intervals: { cohenKappa: object } };
      };
      expect(report.result.bootstrap.samples).toBe(100_000);
      expectSliced('agreement report', took, latencies);
    }, 180_000);

    it('of a judge report are computed a slice at a time: health keeps answering', async () => {
      const { answer, took, latencies } = await healthWhile(() =>
        api.call('POST', '/api/judge-reports', {
          ...admin(),
          json: { collection: 'c', human: 'h', judges: ['j1', 'j2'], samples: 50_000 },
        }),
      );
      expect(answer.status).toBe(200);
      const report = (await answer.json()) as { judges: unknown[]; panel: object };
      expect(report.judges).toHaveLength(2);
      expect(report.panel).toBeDefined();
      expectSliced('judge report', took, latencies);
    }, 180_000);
  });

  it('refuses a campaign over the item cap at the edge', async () => {
    const items = Array.from({ length: 100_001 }, (_, i) => ({ topic: '1', docno: `d${i}` }));
    const refused = await errorOf(
      await api.call('POST', '/api/collections/c/campaigns', {
        ...admin(),
        json: { name: 'huge', items, scale: { min: 0, max: 1 }, annotators: ['ann'] },
      }),
    );
    expect(refused).toMatchObject({ status: 400, code: 'invalid_input' });
    expect(refused.message).toMatch(/^items: Too big: expected array to have <=?100000 items/);
  });

  it('answers 503 busy with Retry-After when every turn is taken and none may wait', async () => {
    await post('/api/collections/c/label-sets?name=h', qrels(5));
    await post('/api/collections/c/runs', run('a', 5, 30, 1));
    // The same database served by an app that computes one request at a time, queueing none.
    const app = createApp({ db: t.db, log: () => {}, computations: { running: 1, waiting: 0 } });
    const body = { collection: 'c', labelSet: 'h', runs: ['a'], measures: ['map'] };
    const evaluate = () =>
      app.request('/api/evaluations', {
        method: 'POST',
        headers: { authorization: `Bearer ${api.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // The token is looked up once, so both requests reach their turn without a query.
    expect((await evaluate()).status).toBe(200);
    const responses = await Promise.all([evaluate(), evaluate()]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 503]);
    const busy = responses.find((r) => r.status === 503)!;
    expect(busy.headers.get('retry-after')).toBe('5');
    expect(await errorOf(busy)).toMatchObject({ code: 'busy' });
    // Its turn over, the next one goes through.
    expect((await evaluate()).status).toBe(200);
  });
});
