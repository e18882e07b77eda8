import { beforeEach, describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

const DOCS_TSV = 'd1\tone\nd2\ttwo <img src=x onerror=alert(1)>\nd3\tthree\nd4\tfour\n';
// Rankings: topic 1 d1 d2 d3; topic 2 d4 d1. Depth 2 pools 1/d1 1/d2 2/d4 2/d1.
const RUN_A = '1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n1 Q0 d3 3 1 a\n2 Q0 d4 1 2 a\n2 Q0 d1 2 1 a\n';
// The two LLM label sets disagree on 1/d2 by 3 grades, on 2/d4 by 1, agree on the rest.
const GPT = '1 0 d1 0\n1 0 d2 3\n2 0 d4 2\n2 0 d1 1\n';
const LLAMA = '1 0 d1 0\n1 0 d2 0\n2 0 d4 3\n2 0 d1 1\n';

interface Next {
  item: {
    id: number;
    topic: { id: string; query: string };
    document: { id: string; text: string };
  };
  scale: { min: number; max: number; grades: Array<{ grade: number; label: string }> };
  rubric: string;
  progress: { done: number; total: number };
  reference?: Array<{ labelSet: string; grade: number | null }>;
}

forEachDatabase('annotation campaigns API', (t) => {
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
      api.call('POST', '/api/collections/demo/topics', {
        ...admin,
        body: '1\tfirst q\n2\tsecond q\n',
      }),
    );
    await ok(api.call('POST', '/api/collections/demo/runs?name=a', { ...admin, body: RUN_A }));
    await ok(
      api.call('POST', '/api/collections/demo/label-sets?name=gpt', { ...admin, body: GPT }),
    );
    await ok(
      api.call('POST', '/api/collections/demo/label-sets?name=llama', { ...admin, body: LLAMA }),
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
      json: {
        name: 'c1',
        pool: { runs: ['a'], depth: 2 },
        judge: 'graded-0-3',
        annotators: ['ada', 'bob'],
        overlap: 2,
        compareWith: ['gpt'],
        ...body,
      },
    });
    expect(r.status, await r.clone().text()).toBe(201);
    return (await r.json()) as { id: number; items: number; labelSet: { name: string } };
  }

  const next = async (id: number, token: string) =>
    api.call('GET', `/api/campaigns/${id}/next`, { token });
  const label = async (id: number, token: string, item: number, grade: number) =>
    api.call('POST', `/api/campaigns/${id}/labels`, { token, json: { item, grade, seconds: 3 } });

  describe('users', () => {
    it('creates users with a token shown once, lists and revokes them', async () => {
      const me = await api.call('GET', '/api/me', { token: people.ada!.token });
      expect(await me.json()).toEqual({ id: people.ada!.id, name: 'ada', role: 'annotator' });
      const list = (await (
        await api.call('GET', '/api/users', { token: api.admin })
      ).json()) as Array<Record<string, unknown>>;
      expect(list.map((u) => u.name)).toEqual(['ada', 'admin', 'ann', 'bob']);
      expect(JSON.stringify(list)).not.toContain(people.ada!.token);
      expect(
        (await errorOf(await api.call('GET', '/api/users', { token: people.ada!.token }))).status,
      ).toBe(403);
      const dup = await api.call('POST', '/api/users', {
        token: api.admin,
        json: { name: 'ada', role: 'annotator' },
      });
      expect((await errorOf(dup)).code).toBe('conflict');
      const revoked = await api.call('POST', '/api/users/ada/revoke', { token: api.admin });
      expect(await revoked.json()).toMatchObject({ name: 'ada', revoked: 1 });
      expect((await api.call('GET', '/api/me', { token: people.ada!.token })).status).toBe(401);
    });
  });

  it('pools the items, takes scale and rubric from the judge template, assigns with overlap', async () => {
    const c = await create({});
    expect(c.items).toBe(4);
    const first = await next(c.id, people.ada!.token);
    expect(first.status).toBe(200);
    const body = (await first.json()) as Next;
    // Pool order interleaves topics: 1/d1 first.
    expect(body.item.topic).toMatchObject({ id: '1', query: 'first q' });
    expect(body.item.document).toMatchObject({ id: 'd1', text: 'one' });
    expect(body.scale.grades.map((g) => g.grade)).toEqual([0, 1, 2, 3]);
    expect(body.scale.grades[2]!.label).toMatch(/^the passage partly answers the query/);
    expect(body.progress).toEqual({ done: 0, total: 4 });
    expect(body.reference).toBeUndefined();
    // Someone without items in the campaign learns nothing about it.
    expect((await errorOf(await next(c.id, api.annotator))).status).toBe(404);
  });

  it('saves, undoes and skips labels as revisions; 204 when done', async () => {
    const c = await create({});
    const token = people.ada!.token;
    const seen: number[] = [];
    const first = ((await (await next(c.id, token)).json()) as Next).item.id;
    const saved = await label(c.id, token, first, 2);
    expect(saved.status, `${await saved.clone().text()} ${api.logged.join('\n')}`).toBe(201);
    const second = ((await (await next(c.id, token)).json()) as Next).item.id;
    expect(second).not.toBe(first);
    // Undo the first item's label: it comes back first in the queue.
    const undo = await api.call('POST', `/api/campaigns/${c.id}/labels/${first}/undo`, { token });
    expect(await undo.json()).toMatchObject({ item: first, grade: null, progress: { done: 0 } });
    expect(((await (await next(c.id, token)).json()) as Next).item.id).toBe(first);
    // Nothing left to undo.
    expect(
      (
        await errorOf(
          await api.call('POST', `/api/campaigns/${c.id}/labels/${first}/undo`, { token }),
        )
      ).code,
    ).toBe('conflict');
    // Two changes, one undo: back to the first grade.
    await label(c.id, token, first, 1);
    await label(c.id, token, first, 3);
    const back = await api.call('POST', `/api/campaigns/${c.id}/labels/${first}/undo`, { token });
    expect(await back.json()).toMatchObject({ grade: 1 });
    // Skipping puts an item at the back.
    const skipped = ((await (await next(c.id, token)).json()) as Next).item.id;
    await api.call('POST', `/api/campaigns/${c.id}/skip`, { token, json: { item: skipped } });
    const after = ((await (await next(c.id, token)).json()) as Next).item.id;
    expect(after).not.toBe(skipped);
    for (let guard = 0; guard < 10; guard++) {
      const r = await next(c.id, token);
      if (r.status === 204) break;
      const id = ((await r.json()) as Next).item.id;
      seen.push(id);
      expect((await label(c.id, token, id, 0)).status).toBe(201);
    }
    expect(seen.at(-1)).toBe(skipped);
    // Grades off the scale, and other people's items, are refused.
    expect((await errorOf(await label(c.id, token, first, 7))).status).toBe(422);
    expect((await errorOf(await label(c.id, api.admin, first, 1))).status).toBe(404);
  });

  it('takes the majority of the annotators (ties low) unless an admin adjudicates; agreement', async () => {
    const c = await create({
      items: [
        { topic: '1', docno: 'd1' },
        { topic: '1', docno: 'd2' },
        { topic: '2', docno: 'd4' },
        { topic: '2', docno: 'd1' },
      ],
      pool: undefined,
    });
    // ada: 0 3 2 1, bob: 0 3 3 1 on (1/d1, 1/d2, 2/d4, 2/d1); gpt: 0 3 2 1.
    const grades = { ada: [0, 3, 2, 1], bob: [0, 3, 3, 1] } as const;
    for (const who of ['ada', 'bob'] as const) {
      for (const g of grades[who]) {
        const item = ((await (await next(c.id, people[who]!.token)).json()) as Next).item.id;
        expect((await label(c.id, people[who]!.token, item, g)).status).toBe(201);
      }
    }
    const labels = async () =>
      (
        (await (
          await api.call('GET', `/api/collections/demo/label-sets/c1/labels`, { token: api.admin })
        ).json()) as Array<{ topicId: string; docId: string; grade: number }>
      ).map((l) => `${l.topicId}/${l.docId}=${l.grade}`);
    // 2/d4: ada 2, bob 3 — a tie, which goes to the lower grade.
    expect(await labels()).toEqual(['1/d1=0', '1/d2=3', '2/d1=1', '2/d4=2']);

    const agreement = (await (
      await api.call('GET', `/api/campaigns/${c.id}/agreement`, { token: api.admin })
    ).json()) as {
      annotators: {
        pairwise: Array<{
          a: string;
          b: string;
          report: { n: number; exactAgreement: number; cohenKappa: { unweighted: number } };
        }>;
        overall: { fleissKappa: { items: number; value: number } };
        perTopic: Array<{ topic: string; items: number }>;
      };
      compareWith: Array<{
        labelSet: { name: string };
        report: { n: number; exactAgreement: number; cohenKappa: { unweighted: number } };
      }>;
    };
    // By hand: ada/bob agree on 3 of 4 items. Marginals ada .25 each grade; bob 0:.25 1:.25
    // 2:0 3:.5 → p_e = .0625+.0625+0+.125 = .25, kappa = (.75−.25)/(1−.25) = 2/3.
    const pair = agreement.annotators.pairwise[0]!;
    expect(pair).toMatchObject({ a: 'ada', b: 'bob', report: { n: 4, exactAgreement: 0.75 } });
    expect(pair.report.cohenKappa.unweighted).toBeCloseTo(2 / 3, 10);
    // Fleiss: P̄ = 3/4; category shares of 8 ratings .25 .25 .125 .375 → P_e = .28125;
    // kappa = (.75 − .28125)/(1 − .28125) = .652173…
    expect(agreement.annotators.overall.fleissKappa.items).toBe(4);
    expect(agreement.annotators.overall.fleissKappa.value).toBeCloseTo(0.46875 / 0.71875, 10);
    expect(agreement.annotators.perTopic.map((p) => [p.topic, p.items])).toEqual([
      ['1', 2],
      ['2', 2],
    ]);
    // The campaign (majority 0 3 2 1) equals gpt on all four items.
    expect(agreement.compareWith[0]).toMatchObject({
      labelSet: { name: 'gpt' },
      report: { n: 4, exactAgreement: 1, cohenKappa: { unweighted: 1 } },
    });

    const item = (
      (await (await api.call('GET', `/api/campaigns/${c.id}`, { token: api.admin })).json()) as {
        items: number;
      }
    ).items;
    expect(item).toBe(4);
    // Adjudicate 2/d4 to 3; null hands it back to the majority.
    const items = (await (
      await api.call('GET', `/api/campaigns/${c.id}/items/3`, {
        token: people.ada!.token,
      })
    ).json()) as { item: { topic: { id: string }; document: { id: string } }; grade: number };
    expect(items).toMatchObject({ item: { topic: { id: '2' }, document: { id: 'd4' } }, grade: 2 });
    const adj = await api.call('POST', `/api/campaigns/${c.id}/items/3/adjudicate`, {
      token: api.admin,
      json: { grade: 3 },
    });
    expect(await adj.json()).toEqual({ item: 3, grade: 3 });
    expect(await labels()).toContain('2/d4=3');

    // The adjudication queue: only 2/d4 (ada 2, bob 3) divides the annotators; the LLM's
    // grade (gpt gave 2) comes only when asked for, and annotators may not see the list.
    const queue = async (query = '') =>
      (
        await api.call('GET', `/api/campaigns/${c.id}/disagreements${query}`, {
          token: api.admin,
        })
      ).json();
    expect(await queue()).toEqual([
      {
        item: 3,
        topicId: '2',
        query: 'second q',
        docId: 'd4',
        grades: [
          { annotator: 'ada', grade: 2 },
          { annotator: 'bob', grade: 3 },
        ],
        label: 3,
        adjudicated: 3,
        status: 'adjudicated',
      },
    ]);
    expect(await queue('?labelSets=1')).toMatchObject([
      { item: 3, labelSets: [{ labelSet: 'gpt', grade: 2 }] },
    ]);
    const forbidden = await api.call('GET', `/api/campaigns/${c.id}/disagreements`, {
      token: people.ada!.token,
    });
    expect(forbidden.status).toBe(403);
    await api.call('POST', `/api/campaigns/${c.id}/items/3/adjudicate`, {
      token: api.admin,
      json: { grade: null },
    });
    expect(await labels()).toContain('2/d4=2');
  });

  it('keeps each item at the majority of its annotators under concurrent saves', async () => {
    const c = await create({});
    // Both annotators save every item three times at once; the last grades are known.
    const plan = { ada: [1, 3, 2], bob: [0, 2, 3] } as const;
    await Promise.all(
      (['ada', 'bob'] as const).flatMap((who) =>
        [1, 2, 3, 4].map(async (item) => {
          for (const g of plan[who]) {
            const r = await label(c.id, people[who]!.token, item, (g + item) % 4);
            expect(r.status).toBe(201);
          }
        }),
      ),
    );
    const labels = (await (
      await api.call('GET', '/api/collections/demo/label-sets/c1/labels', { token: api.admin })
    ).json()) as Array<{ grade: number }>;
    // Item i: ada's last grade (2 + i) % 4, bob's (3 + i) % 4; two votes that differ tie,
    // and a tie goes to the lower grade.
    const expected = [1, 2, 3, 4].map((i) => Math.min((2 + i) % 4, (3 + i) % 4)).sort();
    expect(labels.map((l) => l.grade).sort()).toEqual(expected);
  });

  it('orders items disagreement-first and samples per topic with a seed', async () => {
    const c = await create({
      sampling: { mode: 'disagreement', labelSets: ['gpt', 'llama'] },
      overlap: 1,
    });
    const order: string[] = [];
    for (let guard = 0; guard < 10; guard++) {
      const r = await next(c.id, people.ada!.token);
      if (r.status === 204) break;
      const b = (await r.json()) as Next;
      order.push(`${b.item.topic.id}/${b.item.document.id}`);
      expect((await label(c.id, people.ada!.token, b.item.id, 1)).status).toBe(201);
    }
    // ada holds items 0 and 2 of the order (overlap 1 of 2 annotators, round robin):
    // 1/d2 (spread 3), then 1/d1 (spread 0, pool position 0).
    expect(order).toEqual(['1/d2', '1/d1']);
    const sampled = await create({
      name: 'c2',
      sampling: { mode: 'random', perTopic: 1, seed: 7 },
    });
    expect(sampled.items).toBe(2);
  });

  it('keeps blind campaigns blind; shows compared labels otherwise', async () => {
    const blind = await create({});
    const token = people.ada!.token;
    const text = await (await next(blind.id, token)).text();
    expect(text).not.toContain('gpt');
    // The annotator of a blind campaign cannot read label sets through the rest of the API.
    for (const path of [
      '/api/collections/demo/label-sets/gpt/labels',
      '/api/collections/demo/label-sets',
      `/api/campaigns/${blind.id}/agreement`,
    ]) {
      expect((await errorOf(await api.call('GET', path, { token }))).status, path).toBe(403);
    }
    const open = await create({ name: 'open', blind: false, annotators: ['ann'], overlap: 1 });
    const body = (await (await next(open.id, api.annotator)).json()) as Next;
    expect(body.reference).toEqual([{ labelSet: 'gpt', grade: 0 }]);
  });

  it('validates the request at the edge', async () => {
    const bad = await api.call('POST', '/api/collections/demo/campaigns', {
      token: api.admin,
      json: {
        name: 'x',
        annotators: ['ada'],
        overlap: 2,
        judge: 'graded-0-3',
        pool: { runs: ['a'], depth: 1 },
      },
    });
    expect(await errorOf(bad)).toMatchObject({ status: 422, code: 'invalid_input' });
    const shape = await api.call('POST', '/api/collections/demo/campaigns', {
      token: api.admin,
      json: { name: 'x', annotators: [] },
    });
    expect((await errorOf(shape)).status).toBe(400);
    const asAnnotator = await api.call('POST', '/api/collections/demo/campaigns', {
      token: people.ada!.token,
      json: {
        name: 'x',
        annotators: ['ada'],
        judge: 'graded-0-3',
        items: [{ topic: '1', docno: 'd1' }],
      },
    });
    expect((await errorOf(asAnnotator)).status).toBe(403);
    // Admin-only reads: a plain annotator gets 403.
    const c = await create({});
    for (const path of [
      '/api/users',
      '/api/collections/demo/campaigns',
      `/api/campaigns/${c.id}`,
      `/api/campaigns/${c.id}/agreement`,
    ]) {
      expect(
        (await errorOf(await api.call('GET', path, { token: api.annotator }))).status,
        path,
      ).toBe(403);
    }
    const adjudicate = await api.call('POST', `/api/campaigns/${c.id}/items/1/adjudicate`, {
      token: people.ada!.token,
      json: { grade: 1 },
    });
    expect((await errorOf(adjudicate)).status).toBe(403);
  });
});
