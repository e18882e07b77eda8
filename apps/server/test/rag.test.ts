import type { AssayConfig } from '@assay/platform';
import { hc } from 'hono/client';
import { afterEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
// The OpenAI-compatible TEST DOUBLE (never a judge): scripted answers and injected faults.
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import type { AssayApp } from '../src/index.js';
import { errorOf, setUpApi } from './helpers.js';

const BANK = [
  {
    qid: 't1',
    nuggets: [
      { text: 'solar power', importance: 'vital', source: 'original' },
      { text: 'wind power', importance: 'okay' },
    ],
  },
  { qid: 't2', nuggets: [{ text: 'iron oxide', importance: 'vital' }] },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

const RESPONSES = [
  { topic: 't1', system: 'A', query: 'energy?', answer: 'Solar power <b>and</b> wind power.' },
  { topic: 't1', system: 'B', query: 'energy?', answer: 'Solar only.' },
  { topic: 't2', system: 'A', query: 'rust?', answer: 'Iron oxide.' },
  { topic: 't2', system: 'B', query: 'rust?', answer: 'Red stuff.' },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

function oracle(answer: string, nugget: string): string {
  const a = answer.toLowerCase();
  if (a.includes(nugget)) return 'support';
  return a.includes(nugget.split(' ')[0]!) ? 'partial_support' : 'not_support';
}

let llm: TestServer | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

function config(baseUrl: string): AssayConfig {
  return {
    dataDir: '/nonexistent',
    port: 0,
    openaiBaseUrl: baseUrl,
    openaiApiKey: 'k',
    judgeModel: 'm',
  } as AssayConfig;
}

forEachDatabase('RAG API', (t) => {
  it('imports and edits a nugget bank, assesses answers by LLM and by a person, and scores them', async () => {
    llm = await startOpenAITestServer((body) => {
      const user = (body.messages as Array<{ content: string }>)[1]!.content;
      const answer = /The answer to check:\n([\s\S]*?)\n\nNuggets, numbered:/.exec(user)![1]!;
      const nuggets = [
        ...user.split('Nuggets, numbered:\n')[1]!.matchAll(/^\[(\d+)\] (.*)$/gm),
      ].map((m) => m[2]!);
      return {
        reply: JSON.stringify(
          Object.fromEntries(nuggets.map((n, i) => [String(i + 1), oracle(answer, n)])),
        ),
      };
    });
    const api = await setUpApi(t.db, { config: config(llm.baseURL) });
    const as = (token: string) =>
      hc<AssayApp>('http://assay.test', {
        fetch: (input: string | URL | Request, init?: RequestInit) =>
          api.app.fetch(new Request(input, init)),
        headers: { authorization: `Bearer ${token}` },
      });
    const admin = as(api.admin);
    const annotator = as(api.annotator);
    expect(
      (
        await api.call('POST', '/api/collections?name=rag&format=tsv', {
          token: api.admin,
          body: '',
        })
      ).status,
    ).toBe(201);
    const banks = admin.api.collections[':collection']['nugget-banks'];

    const bad = await banks.$post({
      param: { collection: 'rag' },
      json: {
        name: 'nist',
        nuggets: `${BANK}\n{"qid":"t3","nuggets":[{"text":"x","importance":"high"}]}`,
        file: 'bank.jsonl',
      },
    });
    expect(await errorOf(bad as unknown as Response)).toMatchObject({
      status: 422,
      message: 'bank.jsonl:3: nuggets[0].importance must be "vital", "okay", not "high"',
    });
    const imported = await banks.$post({
      param: { collection: 'rag' },
      json: { name: 'nist', nuggets: BANK },
    });
    expect(imported.status).toBe(201);
    const again = await banks.$post({
      param: { collection: 'rag' },
      json: { name: 'nist', nuggets: BANK },
    });
    expect(again.status).toBe(200);
    const detail = await banks[':bank'].$get({
      param: { collection: 'rag', bank: 'nist' },
      query: { topic: 't1' },
    });
    if (detail.status !== 200) throw new Error(`detail ${detail.status}`);
    const d = await detail.json();
    expect(d.version).toMatchObject({ version: 1, nuggets: 3, vital: 2, okay: 1, frozen: false });
    expect(d.nuggets.map((n) => n.text)).toEqual(['solar power', 'wind power']);
    const edited = await banks[':bank'].edits.$post({
      param: { collection: 'rag', bank: 'nist' },
      json: { version: 1, edit: { action: 'edit', nugget: d.nuggets[1]!.id, importance: 'vital' } },
    });
    if (edited.status !== 200) throw new Error(`edit ${edited.status}`);
    expect((await edited.json()).nuggets[1]).toMatchObject({
      importance: 'vital',
      edited: true,
      origin: 'imported',
    });
    // An annotator cannot edit.
    const refused = await annotator.api.collections[':collection']['nugget-banks'][
      ':bank'
    ].edits.$post({
      param: { collection: 'rag', bank: 'nist' },
      json: { version: 1, edit: { action: 'delete', nugget: d.nuggets[0]!.id } },
    });
    expect(refused.status).toBe(403);
    const exported = await banks[':bank'].export.$get({
      param: { collection: 'rag', bank: 'nist' },
      query: {},
    });
    const exportedText = await exported.text();
    expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
    expect(JSON.parse(exportedText.split('\n')[0]!).nuggets[0]).toMatchObject({
      source: 'original',
    });

    expect(
      (
        await api.call('POST', '/api/response-sets', {
          token: api.admin,
          json: { name: 'answers', responses: RESPONSES },
        })
      ).status,
    ).toBe(201);
    const sets = admin.api.collections[':collection']['assessment-sets'];
    const dry = await sets.llm.$post({
      param: { collection: 'rag' },
      json: { kind: 'nuggets', name: 'llm', responseSet: 'answers', bank: 'nist', dryRun: true },
    });
    if (dry.status !== 200) throw new Error(`dry ${dry.status}`);
    expect((await dry.json()).report.planned?.calls).toBe(4);
    expect(llm.requests).toHaveLength(0);
    const ran = await sets.llm.$post({
      param: { collection: 'rag' },
      json: { kind: 'nuggets', name: 'llm', responseSet: 'answers', bank: 'nist' },
    });
    if (ran.status !== 200) throw new Error(`llm ${ran.status}`);
    const run = await ran.json();
    expect(run.set).toMatchObject({ judged: 6, failed: 0, assessor: 'llm' });
    const llmId = run.set!.id;

    const people = await sets.$post({
      param: { collection: 'rag' },
      json: {
        kind: 'nuggets',
        name: 'ann',
        responseSet: 'answers',
        mode: 'blind',
        referenceSet: llmId,
        annotators: ['ann'],
      },
    });
    if (people.status !== 201) throw new Error(`people ${people.status}`);
    const peopleId = String((await people.json()).id);
    const screen = await annotator.api['assessment-sets'][':id'].answer.$get({
      param: { id: peopleId },
      query: { topic: 't1', system: 'A' },
    });
    if (screen.status !== 200) throw new Error(`screen ${screen.status}`);
    const s = await screen.json();
    // Untrusted text comes back as it is, to be rendered as text; a blind set shows no LLM label.
    expect(s.answer).toBe('Solar power <b>and</b> wind power.');
    expect(s.items.map((i) => [i.text, i.reference])).toEqual([
      ['solar power', undefined],
      ['wind power', undefined],
    ]);
    // The annotator labels every item as the LLM did, but one (wind power on t1/B).
    const label = async (topic: string, system: string, item: string, l: string) =>
      annotator.api['assessment-sets'][':id'].labels.$post({
        param: { id: peopleId },
        json: { topic, system, item, label: l },
      });
    const items = Object.fromEntries(s.items.map((i) => [i.text, i.item]));
    const t2 = await annotator.api['assessment-sets'][':id'].answer.$get({
      param: { id: peopleId },
      query: { topic: 't2', system: 'A' },
    });
    const iron = t2.status === 200 ? (await t2.json()).items[0]!.item : '';
    for (const [topic, system, item, l] of [
      ['t1', 'A', items['solar power']!, 'support'],
      ['t1', 'A', items['wind power']!, 'support'],
      ['t1', 'B', items['solar power']!, 'partial_support'],
      ['t1', 'B', items['wind power']!, 'partial_support'],
      ['t2', 'A', iron, 'support'],
      ['t2', 'B', iron, 'not_support'],
    ] as const)
      expect((await label(topic, system, item, l)).status).toBe(201);
    const undo = await annotator.api['assessment-sets'][':id'].undo.$post({
      param: { id: peopleId },
    });
    expect(undo.status).toBe(200);
    expect((await label('t2', 'B', iron, 'not_support')).status).toBe(201);
    expect((await label('t2', 'B', iron, 'vital')).status).toBe(422);

    const agreement = await admin.api['assessment-sets'][':id'].agreement[':other'].$get({
      param: { id: String(llmId), other: peopleId },
    });
    if (agreement.status !== 200) throw new Error(`agreement ${agreement.status}`);
    const a = await agreement.json();
    // LLM: t1/B wind power is not_support, the person said partial_support; 5 of 6 alike.
    expect(a.overall.n).toBe(6);
    expect(a.overall.exact).toBeCloseTo(5 / 6, 12);
    // Marginals (s, p, n): LLM 3, 1, 2; person 3, 2, 1. p_e = (9 + 2 + 2)/36; κ = (5/6 − 13/36)/(1 − 13/36) = 17/23.
    expect(a.overall.kappa).toBeCloseTo(17 / 23, 12);
    expect(a.perTopic.map((p) => p.topic)).toEqual(['t1', 't2']);

    const scores = await admin.api['assessment-sets'][':id'].scores.$get({
      param: { id: String(llmId) },
      query: {},
    });
    if (scores.status !== 200) throw new Error(`scores ${scores.status}`);
    const sc = (await scores.json()) as {
      leaderboard: { runs: Array<{ run: string; means: Record<string, number> }> };
    };
    // A: t1 all supported (1), t2 1 → vital 1. B: t1 solar partial (0.5) of two vital → 0.25, t2 0 → 0.125.
    expect(sc.leaderboard.runs.map((r) => [r.run, r.means.vital])).toEqual([
      ['A', 1],
      ['B', 0.125],
    ]);
    const report = await admin.api['assessment-sets'][':id'].reports.$post({
      param: { id: String(llmId) },
      json: {},
    });
    expect(report.status).toBe(201);
    const csv = await admin.api['assessment-sets'][':id'].scores.$get({
      param: { id: String(llmId) },
      query: { format: 'csv' },
    });
    expect(await csv.text()).toContain('A,vital,1,');
    // The HTML leaderboard is a report page: its own style, nothing loaded, never framed.
    const html = await admin.api['assessment-sets'][':id'].scores.$get({
      param: { id: String(llmId) },
      query: { format: 'html' },
    });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toMatch(/<(html|!doctype html)/i);
    const policy = html.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("style-src 'unsafe-inline'");
    expect(policy).not.toContain('script-src');
  });

  it('refuses support when the collection holds no cited passage, and counts those it lacks', async () => {
    llm = await startOpenAITestServer((body) => {
      const user = (body.messages as Array<{ content: string }>)[1]!.content;
      const passages = user.split('Cited passages, numbered:\n')[1]!.split('\n\n')[0]!;
      const n = passages.split('\n').filter((l) => /^\[\d+\]/.test(l)).length;
      return {
        reply: JSON.stringify(
          Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i + 1), 'full'])),
        ),
      };
    });
    const api = await setUpApi(t.db, { config: config(llm.baseURL) });
    const admin = { token: api.admin };
    expect(
      (await api.call('POST', '/api/collections?name=rag&format=tsv', { ...admin, body: '' }))
        .status,
    ).toBe(201);
    const cited = [
      { topic: 't1', system: 'A', query: 'q', answer: [{ text: 'One.', citations: ['d1'] }] },
      {
        topic: 't1',
        system: 'B',
        query: 'q',
        answer: [{ text: 'Two.', citations: ['d1', 'gone'] }],
      },
    ];
    expect(
      (
        await api.call('POST', '/api/response-sets', {
          ...admin,
          json: { name: 'cited', responses: cited.map((l) => JSON.stringify(l)).join('\n') },
        })
      ).status,
    ).toBe(201);
    const run = () =>
      api.call('POST', '/api/collections/rag/assessment-sets/llm', {
        ...admin,
        json: { kind: 'support', name: 'sup', responseSet: 'cited' },
      });
    expect(await errorOf(await run())).toEqual({
      status: 422,
      code: 'invalid_input',
      message:
        'none of the 2 passages the answers cite is in collection "rag", so none of their 3 ' +
        'citations can be assessed (every system would score 0): add the documents with ' +
        '`assay import documents --collection rag FILE` or POST /api/collections/rag/documents, ' +
        'then run again',
    });
    expect(llm.requests).toHaveLength(0);
    const added = await api.call('POST', '/api/collections/rag/documents?format=tsv', {
      ...admin,
      body: 'd1\tone\n',
    });
    expect(added.status).toBe(201);
    const ran = await run();
    expect(ran.status).toBe(200);
    expect(await ran.json()).toMatchObject({
      items: 3,
      cannotAssess: { citations: 1, passages: 1 },
      set: { judged: 3, failed: 0 },
    });
    const id = (
      (await (
        await api.call('GET', '/api/collections/rag/assessment-sets', admin)
      ).json()) as Array<{ id: number }>
    )[0]!.id;
    const scores = await api.call('GET', `/api/assessment-sets/${id}/scores`, admin);
    expect(await scores.json()).toMatchObject({ citations: { total: 3, cannotAssess: 1 } });
  });

  it('refuses an LLM step without a model, or with a budget for a model without a price, before any call', async () => {
    llm = await startOpenAITestServer(() => ({ reply: '{}' }));
    const priced = { ...config(llm.baseURL), judgeModel: undefined } as AssayConfig;
    const api = await setUpApi(t.db, { config: priced });
    const budget = `"budgetUsd" needs the price of house-model: add it to /nonexistent/prices.json ({"house-model": {"input": USD, "output": USD}} per million tokens)`;
    const create = await api.call('POST', '/api/collections/rag/nugget-banks/create', {
      token: api.admin,
      json: { name: 'auto', labelSet: 'qrels', model: 'house-model', budgetUsd: 1 },
    });
    expect(await errorOf(create)).toEqual({ status: 422, code: 'invalid_input', message: budget });
    const assess = await api.call('POST', '/api/collections/rag/assessment-sets/llm', {
      token: api.admin,
      json: {
        kind: 'support',
        responseSet: 'answers',
        model: 'house-model',
        budgetUsd: 1,
        dryRun: true,
      },
    });
    expect(await errorOf(assess)).toEqual({ status: 422, code: 'invalid_input', message: budget });
    // Without "model" and ASSAY_JUDGE_MODEL, and a judge that names none.
    const unnamed = await api.call('POST', '/api/collections/rag/assessment-sets/llm', {
      token: api.admin,
      json: { kind: 'support', responseSet: 'answers' },
    });
    expect(await errorOf(unnamed)).toEqual({
      status: 422,
      code: 'invalid_input',
      message:
        'no model: give "model", set ASSAY_JUDGE_MODEL, or name one in the judge\'s front matter (model: { name })',
    });
    expect(llm.requests).toHaveLength(0);
  });
});
