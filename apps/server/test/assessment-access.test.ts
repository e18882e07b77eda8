import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

// Who reaches a RAG assessment set by hand, and what they see: an annotator only the people
// sets naming them (a machine set, or another's, answers 404 as if there were none), and
// there only their own labels; admins reach every set and see every label.

const BANK = [
  { qid: 't1', nuggets: [{ text: 'solar power', importance: 'vital' }] },
  { qid: 't2', nuggets: [{ text: 'iron oxide', importance: 'vital' }] },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

const RESPONSES = [
  { topic: 't1', system: 'A', query: 'energy?', answer: 'Solar power.' },
  { topic: 't2', system: 'A', query: 'rust?', answer: 'Iron oxide.' },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

/** The LLM's labels, made elsewhere: the machine set annotators never read. */
const ASSIGNMENTS = [
  {
    qid: 't1',
    system: 'A',
    nuggets: [{ text: 'solar power', importance: 'vital', assignment: 'support' }],
  },
  {
    qid: 't2',
    system: 'A',
    nuggets: [{ text: 'iron oxide', importance: 'vital', assignment: 'partial_support' }],
  },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

interface Screen {
  set: {
    id: number;
    name: string;
    settings: Record<string, unknown>;
    referenceSetId: number | null;
  };
  items: Array<{
    item: string;
    label: string | null;
    labelledBy: number | null;
    reference?: unknown;
  }>;
}

forEachDatabase('who reaches an assessment set by hand', (t) => {
  let api: TestApi;
  const people: Record<string, { id: number; token: string }> = {};
  let machine = 0;
  let blind = 0;
  let postEdit = 0;

  const admin = () => ({ token: api.admin });
  async function created(r: Promise<Response>): Promise<{ id: number }> {
    const response = await r;
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as { id: number };
  }

  beforeEach(async () => {
    api = await setUpApi(t.db);
    await created(
      api.call('POST', '/api/collections?name=rag&format=tsv', { ...admin(), body: '' }),
    );
    await created(
      api.call('POST', '/api/collections/rag/nugget-banks', {
        ...admin(),
        json: { name: 'nist', nuggets: BANK },
      }),
    );
    await created(
      api.call('POST', '/api/response-sets', {
        ...admin(),
        json: { name: 'answers', responses: RESPONSES },
      }),
    );
    for (const name of ['ada', 'bob', 'cy']) {
      const r = await api.call('POST', '/api/users', {
        ...admin(),
        json: { name, role: 'annotator' },
      });
      expect(r.status).toBe(201);
      people[name] = (await r.json()) as { id: number; token: string };
    }
    const sets = '/api/collections/rag/assessment-sets';
    const basis = { kind: 'nuggets', responseSet: 'answers', bank: 'nist' };
    machine = (
      await created(
        api.call('POST', `${sets}/import`, {
          ...admin(),
          json: { ...basis, name: 'nist-labels', text: ASSIGNMENTS },
        }),
      )
    ).id;
    blind = (
      await created(
        api.call('POST', sets, {
          ...admin(),
          json: {
            ...basis,
            name: 'blind',
            mode: 'blind',
            referenceSet: machine,
            annotators: ['ada', 'bob'],
          },
        }),
      )
    ).id;
    postEdit = (
      await created(
        api.call('POST', sets, {
          ...admin(),
          json: {
            kind: 'nuggets',
            name: 'edit',
            mode: 'post_edit',
            referenceSet: machine,
            annotators: ['cy'],
          },
        }),
      )
    ).id;
  });

  const screen = async (set: number, token: string, topic = 't1') =>
    api.call('GET', `/api/assessment-sets/${set}/answer?topic=${topic}&system=A`, { token });
  const answers = (set: number, token: string) =>
    api.call('GET', `/api/assessment-sets/${set}/answers`, { token });
  const label = (set: number, token: string, item: string, l = 'support', topic = 't1') =>
    api.call('POST', `/api/assessment-sets/${set}/labels`, {
      token,
      json: { topic, system: 'A', item, label: l },
    });
  const undo = (set: number, token: string) =>
    api.call('POST', `/api/assessment-sets/${set}/undo`, { token });
  /** The t1 nugget's item key, as an admin reads it. */
  const itemOf = async (set: number) =>
    ((await (await screen(set, api.admin)).json()) as Screen).items[0]!.item;

  it('lets each route reach the people set naming the annotator, and nothing else', async () => {
    const item = await itemOf(blind);
    const ada = people.ada!.token;
    const cy = people.cy!.token;
    const notFound = (set: number) => ({
      status: 404,
      code: 'not_found',
      message: `no assessment set ${set}`,
    });
    // The annotator the set names: every route answers.
    expect((await screen(blind, ada)).status).toBe(200);
    expect((await answers(blind, ada)).status).toBe(200);
    expect((await label(blind, ada, item)).status).toBe(201);
    expect((await undo(blind, ada)).status).toBe(200);
    // Another annotator, and the annotator the ordinary users' token belongs to: 404.
    for (const token of [cy, api.annotator]) {
      expect(await errorOf(await screen(blind, token))).toEqual(notFound(blind));
      expect(await errorOf(await answers(blind, token))).toEqual(notFound(blind));
      expect(await errorOf(await label(blind, token, item))).toEqual(notFound(blind));
      expect(await errorOf(await undo(blind, token))).toEqual(notFound(blind));
    }
    // A machine set: nobody but an admin reads its labels, whichever sets name them.
    for (const token of [ada, cy]) {
      expect(await errorOf(await screen(machine, token))).toEqual(notFound(machine));
      expect(await errorOf(await answers(machine, token))).toEqual(notFound(machine));
      expect(await errorOf(await label(machine, token, item))).toEqual(notFound(machine));
      expect(await errorOf(await undo(machine, token))).toEqual(notFound(machine));
    }
    // No label of the refused requests was stored: only Ada's, and her undo.
    const rows = await t.db
      .selectFrom('rag_assessments')
      .select(['set_id', 'label'])
      .orderBy('id')
      .execute();
    expect(
      rows
        .map((r) => ({ set_id: Number(r.set_id), label: r.label }))
        .filter((r) => r.set_id !== machine),
    ).toEqual([
      { set_id: blind, label: 'support' },
      { set_id: blind, label: null },
    ]);
    // Admins reach every set as before.
    expect((await screen(machine, api.admin)).status).toBe(200);
    expect((await answers(machine, api.admin)).status).toBe(200);
  });

  it('shows an annotator of a blind set only their own labels, and the admin all of them', async () => {
    const item = await itemOf(blind);
    const ada = people.ada!;
    const bob = people.bob!;
    expect((await label(blind, ada.token, item, 'partial_support')).status).toBe(201);
    const own = (await (await screen(blind, ada.token)).json()) as Screen;
    expect(own.items).toEqual([
      expect.objectContaining({ item, label: 'partial_support', labelledBy: ada.id }),
    ]);
    expect(own.items[0]!.reference).toBeUndefined();
    // Who else assesses it and what it is compared with are not the annotator's to read.
    expect(own.set).toMatchObject({ name: 'blind', settings: {}, referenceSetId: null, judged: 1 });
    // Bob sees nothing of Ada's label: not the label, not who gave it, not the count.
    const other = (await (await screen(blind, bob.token)).json()) as Screen;
    expect(other.items).toEqual([expect.objectContaining({ item, label: null, labelledBy: null })]);
    expect(other.set).toMatchObject({ judged: 0 });
    expect(await (await answers(blind, bob.token)).json()).toEqual([
      { topic: 't1', system: 'A', items: 1, judged: 0 },
      { topic: 't2', system: 'A', items: 1, judged: 0 },
    ]);
    // Bob labels the same item; each still sees their own, the admin the set's latest.
    expect((await label(blind, bob.token, item, 'not_support')).status).toBe(201);
    const adaAgain = (await (await screen(blind, ada.token)).json()) as Screen;
    expect(adaAgain.items[0]).toMatchObject({ label: 'partial_support', labelledBy: ada.id });
    const byAdmin = (await (await screen(blind, api.admin)).json()) as Screen;
    expect(byAdmin.items[0]).toMatchObject({ label: 'not_support', labelledBy: bob.id });
    expect(byAdmin.set.settings).toEqual({ annotators: [ada.id, bob.id] });
    // Bob takes his back: Ada's label stands for the admin, Bob has none again.
    expect((await undo(blind, bob.token)).status).toBe(200);
    const bobAfter = (await (await screen(blind, bob.token)).json()) as Screen;
    expect(bobAfter.items[0]).toMatchObject({ label: null, labelledBy: null });
    const adminAfter = (await (await screen(blind, api.admin)).json()) as Screen;
    expect(adminAfter.items[0]).toMatchObject({ label: 'partial_support' });

    // The annotators' list holds the sets naming them, with their own progress.
    const list = async (token: string) =>
      (
        (await (await api.call('GET', '/api/assessment-sets', { token })).json()) as Array<{
          set: { id: number; name: string };
          items: number;
          judged: number;
        }>
      ).map((s) => [s.set.name, s.items, s.judged]);
    expect(await list(ada.token)).toEqual([['blind', 2, 1]]);
    expect(await list(bob.token)).toEqual([['blind', 2, 0]]);
    expect(await list(people.cy!.token)).toEqual([['edit', 2, 0]]);
    expect(await list(api.annotator)).toEqual([]);
  });

  it('shows a post-editor the LLM label to correct, and keeps blind and post-edit people apart', async () => {
    const cy = people.cy!;
    const edit = (await (await screen(postEdit, cy.token, 't2')).json()) as Screen;
    expect(edit.items[0]).toMatchObject({
      label: null,
      reference: { label: 'partial_support', error: null },
    });
    expect(edit.set.referenceSetId).toBe(machine);

    // Ada assesses the same answers blind: she cannot also post-edit them (the LLM's labels).
    const conflict = await api.call('POST', `/api/assessment-sets/${postEdit}/annotators`, {
      ...admin(),
      json: { annotators: ['ada'] },
    });
    expect(await errorOf(conflict)).toEqual({
      status: 409,
      code: 'conflict',
      message:
        'this set is post-edited and assesses the answers of a blind set where ada (set "blind") already assesses: ' +
        "post-editing shows the LLM's labels of answers assessed blind, so they are not added",
    });
    const refused = await api.call('POST', '/api/collections/rag/assessment-sets', {
      ...admin(),
      json: {
        kind: 'nuggets',
        name: 'edit-2',
        mode: 'post_edit',
        referenceSet: machine,
        annotators: ['bob'],
      },
    });
    expect((await errorOf(refused)).status).toBe(409);

    // The admin adds and removes annotators; a removed one reaches the set no more.
    const added = await api.call('POST', `/api/assessment-sets/${blind}/annotators`, {
      ...admin(),
      json: { annotators: ['ann'] },
    });
    expect(added.status).toBe(200);
    expect((await screen(blind, api.annotator)).status).toBe(200);
    const detail = (await (
      await api.call('GET', `/api/assessment-sets/${blind}`, admin())
    ).json()) as {
      annotators: Array<{ name: string }>;
    };
    expect(detail.annotators.map((a) => a.name)).toEqual(['ada', 'bob', 'ann']);
    const removed = await api.call(
      'DELETE',
      `/api/assessment-sets/${blind}/annotators/ann`,
      admin(),
    );
    expect(removed.status).toBe(200);
    expect((await errorOf(await screen(blind, api.annotator))).status).toBe(404);
    const again = await api.call('DELETE', `/api/assessment-sets/${blind}/annotators/ann`, admin());
    expect(await errorOf(again)).toMatchObject({
      status: 404,
      message: `ann is not an annotator of assessment set ${blind}`,
    });
    // A machine set has no annotators to add.
    const toMachine = await api.call('POST', `/api/assessment-sets/${machine}/annotators`, {
      ...admin(),
      json: { annotators: ['ada'] },
    });
    expect((await errorOf(toMachine)).status).toBe(422);
  });
});
