import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, startJudgeWorker } from '@assay/platform';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { countRows, forEachDatabase, listLlmCalls } from '@assay/platform/testing';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { createApp } from '../src/index.js';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

// Documents "passage N" are graded N mod 4 by the test double below.
const DOCS =
  'd1\tpassage 1\nd2\tpassage 2\nd3\tpassage 3\nd4\tpassage 4\nd5\tpassage 5\nd6\tpassage 6\n';
const TOPICS = '1\tfirst query\n2\tsecond query\n';
// sysA: topic 1 d3 d2 d1 d4; topic 2 d5 d1.   sysB: topic 1 d1 d3; topic 2 d6 d5.
const RUN_A =
  '1 Q0 d3 1 4.0 sysA\n1 Q0 d2 2 3.0 sysA\n1 Q0 d1 3 2.0 sysA\n1 Q0 d4 4 1.0 sysA\n' +
  '2 Q0 d5 1 2.0 sysA\n2 Q0 d1 2 1.0 sysA\n';
const RUN_B = '1 Q0 d1 1 2.0 sysB\n1 Q0 d3 2 1.0 sysB\n2 Q0 d6 1 3.0 sysB\n2 Q0 d5 2 2.0 sysB\n';
// d9 is not stored, and topic 3 has no stored query.
const RUN_C = '1 Q0 d9 1 1.0 sysC\n3 Q0 d1 1 1.0 sysC\n';

// Depth 2, best-rank order, by hand:
//   topic 1: sysA d3 d2, sysB d1 d3 → d3 (rank 1, two runs), d1 (rank 1), d2 (rank 2)
//   topic 2: sysA d5 d1, sysB d6 d5 → d5 (rank 1, two runs), d6 (rank 1), d1 (rank 2)
// interleaved by position across topics.
const POOL = ['1/d3', '2/d5', '1/d1', '2/d6', '1/d2', '2/d1'];

interface Job {
  id: number;
  labelSet: { id: number; name: string };
  judgeId: string;
  model: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  itemsPerSecond: number | null;
  etaSeconds: number | null;
  progress: { total: number; pending: number; labelled: number; failed: number };
  endpoint: string | null;
  openToWorkers: boolean;
}

forEachDatabase('pools and judge jobs API', (t) => {
  let api: TestApi;
  let llm: TestServer | undefined;

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const admin = { token: api.admin };
    const calls: Array<[string, string]> = [
      ['/api/collections?name=demo&format=tsv', DOCS],
      ['/api/collections/demo/topics', TOPICS],
      ['/api/collections/demo/runs', RUN_A],
      ['/api/collections/demo/runs', RUN_B],
      ['/api/collections/demo/runs', RUN_C],
      ['/api/collections/demo/label-sets?name=human', '1 0 d3 1\n2 0 d6 -1\n'],
    ];
    for (const [path, body] of calls)
      expect((await api.call('POST', path, { ...admin, body })).status, path).toBe(201);
  });

  afterEach(async () => {
    await llm?.close();
    llm = undefined;
  });

  /** The double grades "passage N" N mod 4 in graded-0-3's answer format. */
  async function startLlm() {
    llm = await startOpenAITestServer((body) => {
      const messages = body.messages as Array<{ content: string }>;
      const n = Number(/passage (\d+)/.exec(messages.at(-1)!.content)![1]);
      return { reply: JSON.stringify({ intent_match: 1, trustworthiness: 2, grade: n % 4 }) };
    });
    return llm;
  }

  function worker(server: TestServer) {
    return startJudgeWorker(t.db, {
      config: { dataDir: '.', port: 0, openaiBaseUrl: server.baseURL },
      concurrency: 2,
    });
  }

  it('caps the work of one pool with a 422 naming the cap', async () => {
    // The probe: depth 100000 once stalled the server for minutes.
    const deep = await errorOf(
      await api.call('POST', '/api/collections/demo/pools', {
        token: api.admin,
        json: { runs: ['sysA'], depth: 100_000 },
      }),
    );
    expect(deep).toMatchObject({ status: 422, code: 'invalid_input' });
    expect(deep.message).toContain('depth 100000 is over the cap of 1000');
    // 3000 topics asked for × depth 1000 × 2 runs = 6,000,000 candidates > 1,000,000.
    const topics = Array.from({ length: 3000 }, (_, i) => String(i + 1));
    const wide = await errorOf(
      await api.call('POST', '/api/collections/demo/pools', {
        token: api.admin,
        json: { runs: ['sysA', 'sysB'], depth: 1000, topics },
      }),
    );
    expect(wide).toMatchObject({ status: 422, code: 'invalid_input' });
    expect(wide.message).toContain(
      '3000 topics × depth 1000 × 2 runs = 6000000 candidates, over the cap of 1000000',
    );
    // At the depth cap itself a pool is computed.
    expect(
      (
        await api.call('POST', '/api/collections/demo/pools', {
          token: api.admin,
          json: { runs: ['sysA'], depth: 1000 },
        })
      ).status,
    ).toBe(200);
  });

  it('computes the depth-k pool of stored runs in priority order, with its statistics', async () => {
    const r = await api.call('POST', '/api/collections/demo/pools', {
      token: api.admin,
      json: { runs: ['sysA', 'sysB'], depth: 2 },
    });
    expect(r.status).toBe(200);
    const pool = (await r.json()) as {
      topics: string[];
      items: Array<{ topicId: string; docId: string; bestRank: number; runs: unknown[] }>;
      stats: { total: number; perTopic: unknown[]; perRun: unknown[] };
    };
    expect(pool.topics).toEqual(['1', '2']);
    expect(pool.items.map((i) => `${i.topicId}/${i.docId}`)).toEqual(POOL);
    expect(pool.items[0]).toMatchObject({
      bestRank: 1,
      runs: [
        { run: 'sysA', rank: 1 },
        { run: 'sysB', rank: 2 },
      ],
    });
    expect(pool.stats).toEqual({
      total: 6,
      perTopic: [
        { topicId: '1', items: 3 },
        { topicId: '2', items: 3 },
      ],
      // sysA alone has 1/d2 and 2/d1; sysB alone 1/d1 and 2/d6.
      perRun: [
        { run: 'sysA', retrieved: 4, contributed: 4, unique: 2 },
        { run: 'sysB', retrieved: 4, contributed: 4, unique: 2 },
      ],
    });

    // 1/d3 is graded in `human`; 2/d6's -1 means unjudged, so it stays.
    const excluded = (await (
      await api.call('POST', '/api/collections/demo/pools', {
        token: api.admin,
        json: { runs: ['sysA', 'sysB'], depth: 2, excludeLabelSets: ['human'], topics: ['2', '1'] },
      })
    ).json()) as { items: Array<{ topicId: string; docId: string }> };
    expect(excluded.items.map((i) => `${i.topicId}/${i.docId}`)).toEqual([
      '2/d5',
      '1/d1',
      '2/d6',
      '1/d2',
      '2/d1',
    ]);

    const unknown = await errorOf(
      await api.call('POST', '/api/collections/demo/pools', {
        token: api.admin,
        json: { runs: ['sysA', 'nope'], depth: 2 },
      }),
    );
    expect(unknown).toMatchObject({ status: 404, code: 'not_found' });
    const bad = await errorOf(
      await api.call('POST', '/api/collections/demo/pools', {
        token: api.admin,
        json: { runs: ['sysA'], depth: 0 },
      }),
    );
    expect(bad).toMatchObject({ status: 400, code: 'invalid_input' });
    expect(await countRows(t.db, 'judge_tasks')).toBe(0);
  });

  it('creates a job from a pool, judges it with a worker, and serves the labels', async () => {
    const path = '/api/collections/demo/judge-jobs';
    const body = {
      labelSet: 'llm',
      judge: 'graded-0-3',
      settings: { model: 'test-model' },
      pool: { runs: ['sysA', 'sysB'], depth: 2 },
    };
    const r = await api.call('POST', path, { token: api.admin, json: body });
    expect(r.status).toBe(201);
    const job = (await r.json()) as Job & { template?: unknown; settings: unknown };
    expect(job).toMatchObject({
      labelSet: { name: 'llm' },
      judgeId: 'graded-0-3',
      model: 'test-model',
      status: 'active',
      progress: { total: 6, pending: 6, labelled: 0, failed: 0 },
    });
    expect(job.template).toBeUndefined();
    expect(JSON.stringify(job)).not.toContain('relevance assessor');

    // The same job again adds nothing; a deeper pool adds the new items only (1/d1 at depth 3
    // is already there; 1/d4 is not).
    const again = await api.call('POST', path, { token: api.admin, json: body });
    expect(again.status).toBe(200);
    expect(((await again.json()) as Job).progress.total).toBe(6);
    const deeper = await api.call('POST', path, {
      token: api.admin,
      json: { ...body, pool: { runs: ['sysA'], depth: 4 } },
    });
    expect(((await deeper.json()) as Job).progress.total).toBe(7);

    const listed = (await (await api.call('GET', path, { token: api.admin })).json()) as Job[];
    expect(listed.map((j) => [j.id, j.labelSet.name, j.progress.total])).toEqual([
      [job.id, 'llm', 7],
    ]);

    const server = await startLlm();
    const result = await worker(server);
    expect(result).toMatchObject({ labelled: 7, failed: 0, stoppedBy: 'done' });
    expect(server.requests).toHaveLength(7);
    expect(server.requests[0]!.body.model).toBe('test-model');

    const status = (await (
      await api.call('GET', `/api/judge-jobs/${job.id}`, { token: api.admin })
    ).json()) as Job;
    expect(status.progress).toMatchObject({
      total: 7,
      pending: 0,
      running: 0,
      labelled: 7,
      failed: 0,
    });
    // Every item labelled: the job is done, with its finish time and no ETA.
    expect(status.status).toBe('done');
    expect(Date.parse(status.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(status.createdAt));
    expect(status.etaSeconds).toBeNull();
    const labels = (await (
      await api.call('GET', '/api/collections/demo/label-sets/llm/labels', { token: api.admin })
    ).json()) as Array<{ topicId: string; docId: string; grade: number; producedBy: string }>;
    expect(labels.map((l) => `${l.topicId}/${l.docId}=${l.grade}`)).toEqual([
      '1/d1=1',
      '1/d2=2',
      '1/d3=3',
      '1/d4=0',
      '2/d1=1',
      '2/d5=1',
      '2/d6=2',
    ]);
    expect(labels[0]!.producedBy).toBe('test-model');
    expect(
      await (
        await api.call('GET', `/api/judge-jobs/${job.id}/failures`, { token: api.admin })
      ).json(),
    ).toEqual([]);
  });

  it('leaves out the pool pairs the collection does not hold, as the pool does; refuses such items', async () => {
    // The pool is 1/d3, 2/d5, 3/d1, 1/d9: d9 is no document of it, 3 no topic.
    const pool = { runs: ['sysA', 'sysC'], depth: 1 };
    const pooled = (await (
      await api.call('POST', '/api/collections/demo/pools', { token: api.admin, json: pool })
    ).json()) as { items: Array<{ topicId: string; docId: string }>; leftOut: unknown };
    expect(pooled.items.map((i) => `${i.topicId}/${i.docId}`)).toEqual(['1/d3', '2/d5']);
    const r = await api.call('POST', '/api/collections/demo/judge-jobs', {
      token: api.admin,
      json: { labelSet: 'llm', judge: 'graded-0-3', settings: { model: 'm' }, pool },
    });
    expect(r.status, await r.clone().text()).toBe(201);
    const job = (await r.json()) as Job & { leftOut: unknown };
    expect(job.progress).toMatchObject({ total: 2, pending: 2 });
    expect(job.leftOut).toEqual({
      topics: { count: 1, first: ['3'] },
      documents: { count: 1, first: ['d9'] },
      pairs: 2,
      message:
        '1 topic of the runs is not in the collection (3); 1 document of the runs is not in the collection (d9); 2 pairs left out',
    });
    expect(job.leftOut).toEqual(pooled.leftOut);

    // Items listed by hand must all be held: the whole call is refused, nothing written.
    const before = await countRows(t.db, 'label_sets');
    const error = await errorOf(
      await api.call('POST', '/api/collections/demo/judge-jobs', {
        token: api.admin,
        json: {
          labelSet: 'listed',
          judge: 'graded-0-3',
          settings: { model: 'm' },
          items: [
            { topicId: '1', docId: 'd3' },
            { topicId: '1', docId: 'd9' },
            { topicId: '3', docId: 'd1' },
          ],
        },
      }),
    );
    expect(error.status).toBe(422);
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('2 of 3 items');
    expect(error.message).toContain('1/d9 (no document)');
    expect(error.message).toContain('3/d1 (no topic)');
    expect(await countRows(t.db, 'label_sets')).toBe(before);
    expect(await countRows(t.db, 'judge_jobs')).toBe(1);
    expect(await countRows(t.db, 'judge_tasks')).toBe(2);
  });

  it('shows the cost of a job whose model has no price as unknown (null) from its creation on', async () => {
    const post = async (labelSet: string, model: string) => {
      const r = await api.call('POST', '/api/collections/demo/judge-jobs', {
        token: api.admin,
        json: {
          labelSet,
          judge: 'graded-0-3',
          settings: { model },
          pool: { runs: ['sysA'], depth: 1 },
        },
      });
      expect(r.status, await r.clone().text()).toBe(201);
      return (await r.json()) as Job & { progress: { costUsd: number | null } };
    };
    const costs = async () =>
      (
        (await (
          await api.call('GET', '/api/collections/demo/judge-jobs', { token: api.admin })
        ).json()) as Array<Job & { progress: { costUsd: number | null } }>
      ).map((j) => [j.labelSet.name, j.progress.costUsd]);
    // test-model has no list price, gpt-4o-mini has one; nothing is paid yet.
    const unpriced = await post('unpriced', 'test-model');
    const priced = await post('priced', 'gpt-4o-mini');
    expect(unpriced.progress.costUsd).toBeNull();
    expect(priced.progress.costUsd).toBe(0);
    expect(await costs()).toEqual([
      ['unpriced', null],
      ['priced', 0],
    ]);
    const stopped = await api.call('POST', `/api/judge-jobs/${unpriced.id}/stop`, {
      token: api.admin,
    });
    expect(((await stopped.json()) as typeof unpriced).progress.costUsd).toBeNull();
    await api.call('POST', `/api/judge-jobs/${unpriced.id}/start`, { token: api.admin });

    // Judged (1/d3 and 2/d5 each): still unknown; 2 × (100 × 0.15 + 10 × 0.6) / 1e6 USD.
    expect(await worker(await startLlm())).toMatchObject({ labelled: 4 });
    const after = Object.fromEntries(await costs());
    expect(after.unpriced).toBeNull();
    expect(after.priced).toBeCloseTo(42e-6, 12);

    // A server whose prices.json prices a model tells its cost: a number (0 before any answer).
    const data = mkdtempSync(join(tmpdir(), 'assay-job-prices-'));
    try {
      writeFileSync(
        join(data, 'prices.json'),
        JSON.stringify({ 'free-model': { input: 1, output: 1 } }),
      );
      const app = createApp({
        db: t.db,
        config: loadConfig({ ASSAY_DATA_DIR: data }),
        log: () => {},
      });
      const r = await app.request('/api/collections/demo/judge-jobs', {
        method: 'POST',
        headers: { authorization: `Bearer ${api.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          labelSet: 'listed-price',
          judge: 'graded-0-3',
          settings: { model: 'free-model' },
          pool: { runs: ['sysA'], depth: 1 },
        }),
      });
      expect(r.status).toBe(201);
      expect(((await r.json()) as typeof unpriced).progress.costUsd).toBe(0);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('answers 404 for unknown judges, runs, label sets and jobs, 400 for bad bodies', async () => {
    const path = '/api/collections/demo/judge-jobs';
    const body = {
      labelSet: 'llm',
      judge: 'graded-0-3',
      settings: { model: 'm' },
      pool: { runs: ['sysA'], depth: 1 },
    };
    const post = async (json: unknown) =>
      errorOf(await api.call('POST', path, { token: api.admin, json }));
    expect(await post({ ...body, judge: 'no-such-judge' })).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(await post({ ...body, pool: { runs: ['nope'], depth: 1 } })).toMatchObject({
      status: 404,
    });
    expect(
      await post({ ...body, pool: { runs: ['sysA'], depth: 1, excludeLabelSets: ['nope'] } }),
    ).toMatchObject({ status: 404 });
    expect(
      await errorOf(
        await api.call('POST', '/api/collections/nope/judge-jobs', {
          token: api.admin,
          json: body,
        }),
      ),
    ).toMatchObject({ status: 404 });
    // Both pool and items, neither, an answer-quality judge.
    expect(await post({ ...body, items: [{ topicId: '1', docId: 'd1' }] })).toMatchObject({
      status: 400,
    });
    const { pool: _pool, ...neither } = body;
    expect(await post(neither)).toMatchObject({ status: 400 });
    expect(await post({ ...body, judge: 'answer-quality' })).toMatchObject({ status: 422 });
    // The name of a human label set is taken.
    expect(await post({ ...body, labelSet: 'human' })).toMatchObject({
      status: 409,
      code: 'conflict',
    });
    for (const [method, suffix] of [
      ['GET', ''],
      ['POST', '/start'],
      ['POST', '/stop'],
      ['GET', '/failures'],
      ['POST', '/retry-failed'],
    ] as const)
      expect(
        await errorOf(await api.call(method, `/api/judge-jobs/999${suffix}`, { token: api.admin })),
      ).toMatchObject({ status: 404, code: 'not_found' });
    expect(await countRows(t.db, 'judge_jobs')).toBe(0);
  });

  it('needs a token, and an admin to create, start, stop and retry', async () => {
    const created = (await (
      await api.call('POST', '/api/collections/demo/judge-jobs', {
        token: api.admin,
        json: {
          labelSet: 'llm',
          judge: 'graded-0-3',
          settings: { model: 'm' },
          items: [{ topicId: '1', docId: 'd1' }],
        },
      })
    ).json()) as Job;
    const writes = [
      ['/api/collections/demo/judge-jobs', { labelSet: 'x', judge: 'graded-0-3', items: [] }],
      [`/api/judge-jobs/${created.id}/start`, undefined],
      [`/api/judge-jobs/${created.id}/stop`, undefined],
      [`/api/judge-jobs/${created.id}/retry-failed`, undefined],
    ] as const;
    for (const [path, json] of writes) {
      expect((await api.call('POST', path, json ? { json } : {})).status, path).toBe(401);
      expect(
        (await api.call('POST', path, { token: api.annotator, ...(json ? { json } : {}) })).status,
        path,
      ).toBe(403);
    }
    for (const path of [
      '/api/collections/demo/judge-jobs',
      `/api/judge-jobs/${created.id}`,
      `/api/judge-jobs/${created.id}/failures`,
    ]) {
      expect((await api.call('GET', path)).status, path).toBe(401);
      // A job's progress and failures show LLM labels: for admins only.
      expect((await api.call('GET', path, { token: api.annotator })).status, path).toBe(403);
      expect((await api.call('GET', path, { token: api.admin })).status, path).toBe(200);
    }
    expect(
      (
        await api.call('POST', '/api/collections/demo/pools', {
          json: { runs: ['sysA'], depth: 1 },
        })
      ).status,
    ).toBe(401);
  });

  it('never claims from a paused job; stop and start flip its status', async () => {
    const r = await api.call('POST', '/api/collections/demo/judge-jobs', {
      token: api.admin,
      json: {
        labelSet: 'llm',
        judge: 'graded-0-3',
        settings: { model: 'm', temperature: 0 },
        items: [
          { topicId: '2', docId: 'd6' },
          { topicId: '1', docId: 'd2' },
        ],
        paused: true,
      },
    });
    expect(r.status).toBe(201);
    const job = (await r.json()) as Job;
    expect(job.status).toBe('paused');
    const server = await startLlm();
    expect(await worker(server)).toMatchObject({ labelled: 0, paidCalls: 0, stoppedBy: 'done' });
    expect(server.requests).toHaveLength(0);

    const start = async (action: 'start' | 'stop') =>
      (await (
        await api.call('POST', `/api/judge-jobs/${job.id}/${action}`, { token: api.admin })
      ).json()) as Job;
    expect((await start('start')).status).toBe('active');
    expect((await start('stop')).status).toBe('paused');
    expect(await worker(server)).toMatchObject({ labelled: 0 });
    expect((await start('start')).status).toBe('active');
    expect(await worker(server)).toMatchObject({ labelled: 2, failed: 0 });
    const status = (await (
      await api.call('GET', `/api/judge-jobs/${job.id}`, { token: api.admin })
    ).json()) as Job;
    // Both items labelled: the job reads done (it was active).
    expect(status).toMatchObject({ status: 'done', progress: { total: 2, labelled: 2 } });
  });

  it('lists failures and puts them back for another try', async () => {
    const r = await api.call('POST', '/api/collections/demo/judge-jobs', {
      token: api.admin,
      json: {
        labelSet: 'llm',
        judge: 'graded-0-3',
        settings: { model: 'm' },
        items: [
          { topicId: '1', docId: 'd1' },
          { topicId: '1', docId: 'd2' },
        ],
      },
    });
    const job = (await r.json()) as Job;
    // The endpoint refuses d2 (not worth retrying at once) until it is fixed; d1 is fine.
    let fixed = false;
    llm = await startOpenAITestServer((body) => {
      const prompt = (body.messages as Array<{ content: string }>).at(-1)!.content;
      if (prompt.includes('passage 2') && !fixed) return { status: 403, message: 'not allowed' };
      return { reply: JSON.stringify({ intent_match: 1, trustworthiness: 2, grade: 1 }) };
    });
    expect(await worker(llm)).toMatchObject({ labelled: 1, failed: 1 });
    const failures = (await (
      await api.call('GET', `/api/judge-jobs/${job.id}/failures`, { token: api.admin })
    ).json()) as Array<{ topicId: string; docId: string; raw: string | null }>;
    expect(failures).toEqual([
      {
        topicId: '1',
        docId: 'd2',
        error: expect.stringContaining('not allowed') as unknown,
        raw: null,
      },
    ]);
    fixed = true;
    const retried = (await (
      await api.call('POST', `/api/judge-jobs/${job.id}/retry-failed`, { token: api.admin })
    ).json()) as { retried: number; job: Job };
    expect(retried.retried).toBe(1);
    expect(retried.job.progress).toMatchObject({ pending: 1, failed: 0, labelled: 1 });
    expect(await worker(llm)).toMatchObject({ labelled: 1, failed: 0 });
  });

  it('retry-failed asks anew: new requests for unreadable answers, which stay stored', async () => {
    const r = await api.call('POST', '/api/collections/demo/judge-jobs', {
      token: api.admin,
      json: {
        labelSet: 'llm',
        judge: 'graded-0-3',
        settings: { model: 'm' },
        items: [
          { topicId: '1', docId: 'd1' },
          { topicId: '1', docId: 'd2' },
        ],
      },
    });
    const job = (await r.json()) as Job;
    // A server without an endpoint records none: the first worker records its own.
    expect(job).toMatchObject({ endpoint: null, openToWorkers: true });
    let fixed = false;
    llm = await startOpenAITestServer((body) => {
      const prompt = (body.messages as Array<{ content: string }>).at(-1)!.content;
      if (prompt.includes('passage 2') && !fixed) return { reply: 'no idea' };
      return { reply: JSON.stringify({ intent_match: 1, trustworthiness: 2, grade: 1 }) };
    });
    const server = llm;
    /** The seed of each request about d2 from request `from` on (null: none sent). */
    const d2Seeds = (from: number) =>
      server.requests
        .slice(from)
        .filter((q) => JSON.stringify(q.body.messages).includes('passage 2'))
        .map((q) => q.body.seed ?? null);
    const retry = async () =>
      (await (
        await api.call('POST', `/api/judge-jobs/${job.id}/retry-failed`, { token: api.admin })
      ).json()) as { retried: number; job: Job };

    expect(await worker(server)).toMatchObject({ labelled: 1, failed: 1, paidCalls: 4 });
    // d1 once; d2 three times: attempt 1 (no seed), then seeds 2 and 3.
    expect(server.requests).toHaveLength(4);
    expect(d2Seeds(0)).toEqual([null, 2, 3]);

    // Still unreadable: the retry sends attempts 4 to 6, not the stored attempts 1 to 3.
    expect((await retry()).retried).toBe(1);
    expect(await worker(server)).toMatchObject({ labelled: 0, failed: 1, paidCalls: 3 });
    expect(d2Seeds(4)).toEqual([4, 5, 6]);

    fixed = true;
    expect((await retry()).retried).toBe(1);
    expect(await worker(server)).toMatchObject({ labelled: 1, failed: 0, paidCalls: 1 });
    expect(d2Seeds(7)).toEqual([7]);
    expect(server.requests).toHaveLength(8);
    // The six unreadable answers are all kept.
    const calls = await listLlmCalls(t.db);
    expect(calls.filter((c) => c.response === 'no idea')).toHaveLength(6);
    const done = (await (
      await api.call('GET', `/api/judge-jobs/${job.id}`, { token: api.admin })
    ).json()) as Job;
    expect(done).toMatchObject({ endpoint: server.baseURL, progress: { labelled: 2 } });
  });
});
