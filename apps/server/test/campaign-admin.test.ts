// The API of campaigns as objects: close and reopen (a label is a 409 "campaign closed"
// while closed), add and remove annotators, deletion that names what it deletes, and the
// adjudicator's item with its passage and a 1-vs-2 tie called a tie. Counts are by hand.
import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

forEachDatabase('campaigns as objects API', (t) => {
  let api: TestApi;
  const tokens: Record<string, string> = {};
  let id = 0;

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const admin = { token: api.admin };
    const ok = async (r: Promise<Response>) => expect((await r).status).toBe(201);
    await ok(
      api.call('POST', '/api/collections?name=demo&format=tsv', {
        ...admin,
        body: 'd1\tpassage one\nd2\tpassage two\n',
      }),
    );
    await ok(api.call('POST', '/api/collections/demo/topics', { ...admin, body: '1\tfirst q\n' }));
    for (const name of ['ada', 'bob', 'cy']) {
      const r = await api.call('POST', '/api/users', {
        ...admin,
        json: { name, role: 'annotator' },
      });
      expect(r.status).toBe(201);
      tokens[name] = ((await r.json()) as { token: string }).token;
    }
    const r = await api.call('POST', '/api/collections/demo/campaigns', {
      ...admin,
      json: {
        name: 'k',
        items: [
          { topic: '1', docno: 'd1' },
          { topic: '1', docno: 'd2' },
        ],
        scale: { min: 0, max: 3 },
        annotators: ['ada', 'bob'],
        overlap: 2,
      },
    });
    expect(r.status, await r.clone().text()).toBe(201);
    id = ((await r.json()) as { id: number }).id;
  });

  const nextItem = async (who: string) => {
    const r = await api.call('GET', `/api/campaigns/${id}/next`, { token: tokens[who]! });
    return r.status === 200 ? ((await r.json()) as { item: { id: number } }).item.id : r;
  };
  const label = (who: string, item: number, grade: number) =>
    api.call('POST', `/api/campaigns/${id}/labels`, { token: tokens[who]!, json: { item, grade } });

  it('closes: labels are a 409 "campaign closed", the list says closed; reopening takes labels again', async () => {
    const item = (await nextItem('ada')) as number;
    expect((await label('ada', item, 2)).status).toBe(201);
    const closed = await api.call('POST', `/api/campaigns/${id}/close`, { token: api.admin });
    expect(closed.status).toBe(200);
    expect(((await closed.json()) as { closed: unknown }).closed).toMatchObject({
      at: expect.any(String),
    });
    const refused = await errorOf(await label('ada', item, 3));
    expect(refused.status).toBe(409);
    expect(refused.message).toMatch(/^campaign closed/);
    expect((await errorOf((await nextItem('bob')) as Response)).status).toBe(409);
    const mine = await api.call('GET', '/api/campaigns', { token: tokens.ada! });
    expect(await mine.json()).toEqual([expect.objectContaining({ id, closed: true })]);
    // Annotators cannot close a campaign.
    expect(
      (await api.call('POST', `/api/campaigns/${id}/reopen`, { token: tokens.ada! })).status,
    ).toBe(403);
    expect(
      (await api.call('POST', `/api/campaigns/${id}/reopen`, { token: api.admin })).status,
    ).toBe(200);
    expect((await label('ada', item, 3)).status).toBe(201);
  });

  it('removes an annotator keeping her labels and adds another to her items', async () => {
    const item = (await nextItem('bob')) as number;
    expect((await label('bob', item, 1)).status).toBe(201);
    const removed = await api.call('DELETE', `/api/campaigns/${id}/annotators/bob`, {
      token: api.admin,
    });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toMatchObject({
      kept: 1,
      released: 1,
      message: 'bob was removed: the 1 label bob gave is kept; 1 unlabelled item was taken back',
    });
    expect((await errorOf(await label('bob', item, 2))).message).toMatch(/^you were removed/);
    const added = await api.call('POST', `/api/campaigns/${id}/annotators`, {
      token: api.admin,
      json: { annotators: ['cy'] },
    });
    expect(added.status).toBe(200);
    expect(((await added.json()) as { added: unknown }).added).toEqual([
      { userId: expect.any(Number), name: 'cy', items: 1 },
    ]);
    expect(
      (
        await errorOf(
          await api.call('DELETE', `/api/campaigns/${id}/annotators/nobody`, {
            token: api.admin,
          }),
        )
      ).status,
    ).toBe(404);
  });

  it('names what a deletion deletes, then deletes', async () => {
    const ada = (await nextItem('ada')) as number;
    await label('ada', ada, 1);
    await label('bob', (await nextItem('bob')) as number, 2);
    const preview = await api.call('GET', `/api/campaigns/${id}/deletion`, { token: api.admin });
    expect(await preview.json()).toMatchObject({
      items: 2,
      labels: 2,
      labelSet: { name: 'k' },
      message: 'campaign "k": 2 items, 2 labels and the label set "k"',
    });
    const deleted = await api.call('DELETE', `/api/campaigns/${id}`, { token: api.admin });
    expect(deleted.status).toBe(200);
    expect(((await deleted.json()) as { message: string }).message).toBe(
      'deleted campaign "k": 2 items, 2 labels and the label set "k"',
    );
    expect((await api.call('GET', `/api/campaigns/${id}`, { token: api.admin })).status).toBe(404);
    const sets = await api.call('GET', '/api/collections/demo/label-sets', { token: api.admin });
    expect(await sets.json()).toEqual([]);
  });

  it('calls a 1-vs-2 tie a tie and serves the item with its passage', async () => {
    const item = (await nextItem('ada')) as number;
    await label('ada', item, 1);
    await label('bob', item, 2);
    const list = await api.call('GET', `/api/campaigns/${id}/disagreements`, { token: api.admin });
    expect(await list.json()).toEqual([
      expect.objectContaining({ item, status: 'tie', label: 1, adjudicated: null }),
    ]);
    const one = await api.call('GET', `/api/campaigns/${id}/adjudication/${item}`, {
      token: api.admin,
    });
    expect(await one.json()).toMatchObject({
      status: 'tie',
      topic: { id: '1', query: 'first q' },
      document: { id: 'd1', text: 'passage one' },
      grades: [
        { annotator: 'ada', grade: 1 },
        { annotator: 'bob', grade: 2 },
      ],
    });
  });
});
