import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

const DOCS_TSV = 'd1\tone\nd2\ttwo\nd3\tthree\nd4\tfour\n';
const TOPICS_JSONL =
  '{"id":"1","text":"first q","description":"what one is","narrative":"a passage naming one is relevant"}\n' +
  '{"id":"2","text":"second q"}\n';
// Listed with the topics interleaved: 1/d1, 2/d4, 1/d2, 2/d1, 1/d3.
const ITEMS = [
  { topic: '1', docno: 'd1' },
  { topic: '2', docno: 'd4' },
  { topic: '1', docno: 'd2' },
  { topic: '2', docno: 'd1' },
  { topic: '1', docno: 'd3' },
];

interface Next {
  item: {
    id: number;
    topic: { id: string; query: string; description?: string; narrative?: string };
    document: { id: string };
  };
}
interface History {
  item: number;
  topic: { id: string; query: string };
  document: { id: string };
  grade: number;
  labelledAt: string;
  flag: string | null;
  note: string | null;
}

forEachDatabase('the assessor’s workflow: topic by topic, history, notes', (t) => {
  let api: TestApi;
  const people: Record<string, { id: number; token: string }> = {};

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const admin = { token: api.admin };
    const ok = async (r: Promise<Response>) => expect((await r).status).toBe(201);
    await ok(
      api.call('POST', '/api/collections?name=demo&format=tsv', { ...admin, body: DOCS_TSV }),
    );
    await ok(
      api.call('POST', '/api/collections/demo/topics?format=jsonl', {
        ...admin,
        body: TOPICS_JSONL,
      }),
    );
    for (const name of ['ada', 'bob']) {
      const r = await api.call('POST', '/api/users', {
        ...admin,
        json: { name, role: 'annotator' },
      });
      expect(r.status).toBe(201);
      people[name] = (await r.json()) as { id: number; token: string };
    }
  });

  async function create(body: Record<string, unknown>) {
    const r = await api.call('POST', '/api/collections/demo/campaigns', {
      token: api.admin,
      json: { name: 'c1', items: ITEMS, judge: 'graded-0-3', annotators: ['ada'], ...body },
    });
    expect(r.status, await r.clone().text()).toBe(201);
    return (await r.json()) as { id: number; settings: Record<string, unknown> };
  }
  const next = async (id: number, token: string) => {
    const r = await api.call('GET', `/api/campaigns/${id}/next`, { token });
    return r.status === 204 ? undefined : ((await r.json()) as Next);
  };
  const label = async (id: number, token: string, item: number, grade: number) => {
    const r = await api.call('POST', `/api/campaigns/${id}/labels`, {
      token,
      json: { item, grade, seconds: 2 },
    });
    expect(r.status, await r.clone().text()).toBe(201);
  };
  /** Labels everything in the order served, grade 1 each; the (topic/doc)s in that order. */
  async function labelAll(id: number, token: string): Promise<string[]> {
    const order: string[] = [];
    for (let n = await next(id, token); n; n = await next(id, token)) {
      order.push(`${n.item.topic.id}/${n.item.document.id}`);
      await label(id, token, n.item.id, 1);
    }
    return order;
  }
  const history = async (id: number, token: string, query = '') =>
    api.call('GET', `/api/campaigns/${id}/history${query}`, { token });

  it('serves one topic’s items before the next topic’s when asked, with the narrative', async () => {
    const plain = await create({ name: 'plain' });
    expect(plain.settings.order).toBe('sampling');
    expect(await labelAll(plain.id, people.ada!.token)).toEqual([
      '1/d1',
      '2/d4',
      '1/d2',
      '2/d1',
      '1/d3',
    ]);
    const grouped = await create({ name: 'grouped', topicByTopic: true });
    expect(grouped.settings.order).toBe('topic');
    const first = await next(grouped.id, people.ada!.token);
    expect(first!.item.topic).toEqual({
      id: '1',
      query: 'first q',
      description: 'what one is',
      narrative: 'a passage naming one is relevant',
    });
    expect(await labelAll(grouped.id, people.ada!.token)).toEqual([
      '1/d1',
      '1/d2',
      '1/d3',
      '2/d4',
      '2/d1',
    ]);
    // With two annotators and no overlap, item i of 1/d1 1/d2 1/d3 2/d4 2/d1 goes to
    // annotator i mod 2: each still gets topic 1's items before topic 2's.
    const shared = await create({ name: 'shared', topicByTopic: true, annotators: ['ada', 'bob'] });
    expect(await labelAll(shared.id, people.ada!.token)).toEqual(['1/d1', '1/d3', '2/d1']);
    expect(await labelAll(shared.id, people.bob!.token)).toEqual(['1/d2', '2/d4']);
  });

  it('lists only my labelled items, newest first and paged; relabels from there', async () => {
    const c = await create({ annotators: ['ada', 'bob'], overlap: 2 });
    const ada = people.ada!.token;
    const bob = people.bob!.token;
    const ids: number[] = [];
    for (const grade of [0, 1, 2]) {
      const n = (await next(c.id, ada))!;
      ids.push(n.item.id);
      await label(c.id, ada, n.item.id, grade);
    }
    // Bob labels the first item 3: none of it shows in Ada's history.
    await label(c.id, bob, ids[0]!, 3);
    const page1 = await history(c.id, ada, '?limit=2');
    expect(page1.status).toBe(200);
    const first = (await page1.json()) as History[];
    expect(first.map((h) => [h.item, h.grade])).toEqual([
      [ids[2], 2],
      [ids[1], 1],
    ]);
    expect(first[0]).toMatchObject({
      topic: { id: '1', query: 'first q' },
      document: { id: 'd2' },
    });
    const cursor = page1.headers.get('x-next-cursor');
    expect(cursor).toBeTruthy();
    const page2 = (await (
      await history(c.id, ada, `?limit=2&after=${encodeURIComponent(cursor!)}`)
    ).json()) as History[];
    expect(page2.map((h) => [h.item, h.grade])).toEqual([[ids[0], 0]]);
    expect(((await (await history(c.id, bob)).json()) as History[]).map((h) => h.grade)).toEqual([
      3,
    ]);

    // Back three items: the oldest opens with Ada's own grade, and a new grade replaces it.
    const opened = await api.call('GET', `/api/campaigns/${c.id}/items/${ids[0]}`, { token: ada });
    expect(await opened.json()).toMatchObject({ item: { id: ids[0] }, grade: 0 });
    await label(c.id, ada, ids[0]!, 3);
    const after = (await (await history(c.id, ada)).json()) as History[];
    expect(after.map((h) => [h.item, h.grade])).toEqual([
      [ids[0], 3],
      [ids[2], 2],
      [ids[1], 1],
    ]);
    // Both grades of Ada are revisions; the campaign's label is now 3 (Ada 3, Bob 3).
    const revisions = await t.db
      .selectFrom('label_revisions as r')
      .innerJoin('users as u', 'u.id', 'r.user_id')
      .select('r.grade')
      .where('u.name', '=', 'ada')
      .where('r.topic_id', '=', '1')
      .where('r.doc_id', '=', 'd1')
      .orderBy('r.id')
      .execute();
    expect(revisions.map((r) => r.grade)).toEqual([0, 3]);
    const stored = await t.db
      .selectFrom('labels as l')
      .innerJoin('campaigns as c', 'c.label_set_id', 'l.label_set_id')
      .select('l.grade')
      .where('c.id', '=', c.id)
      .where('l.topic_id', '=', '1')
      .where('l.doc_id', '=', 'd1')
      .execute();
    expect(stored.map((r) => r.grade)).toEqual([3]);
  });

  it('refuses other people’s items and campaigns', async () => {
    const c = await create({ annotators: ['ada', 'bob'] });
    const adaItem = (await next(c.id, people.ada!.token))!.item.id;
    const bob = people.bob!.token;
    for (const [method, path] of [
      ['GET', `/api/campaigns/${c.id}/items/${adaItem}`],
      ['GET', `/api/campaigns/${c.id}/items/${adaItem}/note`],
      ['PUT', `/api/campaigns/${c.id}/items/${adaItem}/note`],
    ] as const) {
      const r = await api.call(method, path, {
        token: bob,
        ...(method === 'PUT' ? { json: { flag: 'unsure' } } : {}),
      });
      expect((await errorOf(r)).status, `${method} ${path}`).toBe(404);
    }
    // A relabel of someone else's item is refused like a first label.
    const r = await api.call('POST', `/api/campaigns/${c.id}/labels`, {
      token: bob,
      json: { item: adaItem, grade: 1 },
    });
    expect((await errorOf(r)).status).toBe(404);
    // Someone without items in the campaign learns nothing of it; annotators read no notes.
    expect((await errorOf(await history(c.id, api.annotator))).status).toBe(404);
    const notes = await api.call('GET', `/api/campaigns/${c.id}/notes`, { token: bob });
    expect((await errorOf(notes)).status).toBe(403);
  });

  it('stores notes and flags per item and person; the admin sees them all', async () => {
    const c = await create({ annotators: ['ada', 'bob'], overlap: 2 });
    const item = (await next(c.id, people.ada!.token))!.item.id;
    const note = (token: string, json: Record<string, unknown>) =>
      api.call('PUT', `/api/campaigns/${c.id}/items/${item}/note`, { token, json });
    const read = async (token: string) =>
      (await (
        await api.call('GET', `/api/campaigns/${c.id}/items/${item}/note`, { token })
      ).json()) as { flag: string | null; note: string };

    const saved = await note(people.ada!.token, {
      flag: 'broken',
      note: '  cut off mid-sentence ',
    });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({
      item,
      flag: 'broken',
      note: 'cut off mid-sentence',
    });
    expect(await read(people.ada!.token)).toMatchObject({
      flag: 'broken',
      note: 'cut off mid-sentence',
    });
    // Bob has the same item: he sees his own (empty) note, not Ada's.
    expect(await read(people.bob!.token)).toEqual({ item, flag: null, note: '', updatedAt: null });
    expect((await note(people.bob!.token, { flag: 'unsure' })).status).toBe(200);
    expect((await errorOf(await note(people.bob!.token, { flag: 'maybe' }))).status).toBe(400);

    const list = await api.call('GET', `/api/campaigns/${c.id}/notes`, { token: api.admin });
    expect(list.status).toBe(200);
    const notes = (await list.json()) as Array<Record<string, unknown>>;
    expect(notes.map((n) => [(n.user as { name: string }).name, n.flag, n.note])).toEqual([
      ['bob', 'unsure', ''],
      ['ada', 'broken', 'cut off mid-sentence'],
    ]);
    expect(notes[1]).toMatchObject({ item, topic: '1', docno: 'd1' });
    // No flag and no text removes a note.
    expect(await (await note(people.ada!.token, { flag: null, note: '' })).json()).toMatchObject({
      flag: null,
      note: '',
      updatedAt: null,
    });
    const left = (await (
      await api.call('GET', `/api/campaigns/${c.id}/notes`, { token: api.admin })
    ).json()) as Array<{ user: { name: string } }>;
    expect(left.map((n) => n.user.name)).toEqual(['bob']);
  });
});
