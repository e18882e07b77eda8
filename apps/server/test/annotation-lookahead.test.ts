// What the labelling screen fetches ahead (GET /api/campaigns/{id}/next-items) and the
// per-campaign input lock it applies (inputLockMs), on both databases.
import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

const DOCS = 'd1\tone\nd2\ttwo\nd3\tthree\nd4\tfour\n';
// Listed in this order, so each annotator is served 1/d1, 1/d2, 2/d3, 2/d4.
const ITEMS = [
  { topic: '1', docno: 'd1' },
  { topic: '1', docno: 'd2' },
  { topic: '2', docno: 'd3' },
  { topic: '2', docno: 'd4' },
];

interface Item {
  campaign: { id: number; title: string; inputLockMs: number };
  item: { id: number; document: { id: string } };
  progress: { done: number; total: number };
}

forEachDatabase('the next items fetched ahead and the input lock', (t) => {
  let api: TestApi;
  let ada: string;

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const admin = { token: api.admin };
    expect(
      (
        await api.call('POST', '/api/collections?name=demo&format=tsv', {
          ...admin,
          body: DOCS,
        })
      ).status,
    ).toBe(201);
    await api.call('POST', '/api/collections/demo/topics', { ...admin, body: '1\tq1\n2\tq2\n' });
    const r = await api.call('POST', '/api/users', {
      ...admin,
      json: { name: 'ada', role: 'annotator' },
    });
    ada = ((await r.json()) as { token: string }).token;
  });

  async function create(extra: Record<string, unknown> = {}) {
    return api.call('POST', '/api/collections/demo/campaigns', {
      token: api.admin,
      json: { name: 'c', items: ITEMS, judge: 'graded-0-3', annotators: ['ada'], ...extra },
    });
  }
  const ahead = async (id: number, count?: number) => {
    const r = await api.call(
      'GET',
      `/api/campaigns/${id}/next-items${count === undefined ? '' : `?count=${count}`}`,
      { token: ada },
    );
    expect(r.status, await r.clone().text()).toBe(200);
    return (await r.json()) as { items: Item[]; progress: { done: number; total: number } };
  };
  const docs = (items: Item[]) => items.map((i) => i.item.document.id);

  it('serves the next items in order, as /next would one by one, and none once all are labelled', async () => {
    const { id } = (await (await create()).json()) as { id: number };
    const first = await ahead(id, 3);
    expect(docs(first.items)).toEqual(['d1', 'd2', 'd3']);
    expect(first.progress).toEqual({ done: 0, total: 4 });
    const next = (await (
      await api.call('GET', `/api/campaigns/${id}/next`, { token: ada })
    ).json()) as Item;
    expect(next.item.id).toBe(first.items[0]!.item.id);
    // The default is five: all four here.
    expect(docs((await ahead(id)).items)).toEqual(['d1', 'd2', 'd3', 'd4']);

    // d1 labelled, d2 skipped: d3, d4, then d2 at the back.
    const [d1, d2] = first.items.map((i) => i.item.id);
    const json = { item: d1, grade: 2, seconds: 1 };
    expect(
      (await api.call('POST', `/api/campaigns/${id}/labels`, { token: ada, json })).status,
    ).toBe(201);
    await api.call('POST', `/api/campaigns/${id}/skip`, { token: ada, json: { item: d2 } });
    const after = await ahead(id, 5);
    expect(docs(after.items)).toEqual(['d3', 'd4', 'd2']);
    expect(after.progress).toEqual({ done: 1, total: 4 });

    for (const item of after.items)
      await api.call('POST', `/api/campaigns/${id}/labels`, {
        token: ada,
        json: { item: item.item.id, grade: 0 },
      });
    expect(await ahead(id)).toEqual({ items: [], progress: { done: 4, total: 4 } });
  });

  it('refuses a count out of range and callers without items in the campaign', async () => {
    const { id } = (await (await create()).json()) as { id: number };
    for (const count of ['0', '21', 'x'])
      expect(
        (await api.call('GET', `/api/campaigns/${id}/next-items?count=${count}`, { token: ada }))
          .status,
      ).toBe(400);
    const stranger = await api.call('GET', `/api/campaigns/${id}/next-items`, {
      token: api.annotator,
    });
    expect((await errorOf(stranger)).status).toBe(404);
  });

  it('gives each item the campaign’s input lock: 250 ms unless set, 0 allowed, nonsense refused in words', async () => {
    const plain = (await (await create()).json()) as { id: number };
    expect((await ahead(plain.id, 1)).items[0]!.campaign.inputLockMs).toBe(250);
    const none = (await (await create({ name: 'c0', inputLockMs: 0 })).json()) as {
      id: number;
      settings: { inputLockMs: number };
    };
    expect(none.settings.inputLockMs).toBe(0);
    expect((await ahead(none.id, 1)).items[0]!.campaign.inputLockMs).toBe(0);
    const slow = (await (await create({ name: 'c9', inputLockMs: 900 })).json()) as { id: number };
    expect((await ahead(slow.id, 1)).items[0]!.campaign.inputLockMs).toBe(900);
    for (const bad of [-1, 2.5, 9000]) {
      const error = await errorOf(await create({ name: `bad${bad}`, inputLockMs: bad }));
      expect(error.status).toBe(422);
      expect(error.message).toBe(
        `the input lock must be a whole number of milliseconds from 0 (no lock) to 5000; got ${bad}`,
      );
    }
  });
});
