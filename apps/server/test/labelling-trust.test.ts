// The labelling loop an organiser can trust: agreement that answers for any campaign, labels
// only for those who may read them, no blank or ghost items, blindness that holds across
// campaigns, and label sets a campaign uses kept from silent deletion.
import { beforeEach, describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

const DOCS_TSV = 'd1\tone\nd2\ttwo\nd3\tthree\nd4\tfour\n';
const TOPICS_TSV = '1\tfirst q\n2\tsecond q\n';
// Topics 1 and 2 are in the collection, 8 and 9 are not; d9 is no document of it.
// Depth 2: 1/d1 1/d2, 2/d4 2/d9, 8/d1 8/d2, 9/d3 9/d4 — 4 held pairs, 4 left out.
const RUN_GHOSTS =
  '1 Q0 d1 1 3 g\n1 Q0 d2 2 2 g\n2 Q0 d4 1 3 g\n2 Q0 d9 2 2 g\n' +
  '8 Q0 d1 1 3 g\n8 Q0 d2 2 2 g\n9 Q0 d3 1 3 g\n9 Q0 d4 2 2 g\n';
const GPT = '1 0 d1 0\n1 0 d2 3\n2 0 d4 2\n';

interface Summary {
  id: number;
  name: string;
  title: string;
  items: number;
  labelSet: { id: number; name: string };
  leftOut: { topics: { count: number; first: string[] }; pairs: number; message: string | null };
  annotators: Array<{ name: string; done: number; total: number }>;
}

forEachDatabase('the labelling loop people can trust', (t) => {
  let api: TestApi;
  const people: Record<string, { id: number; token: string }> = {};
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const ok = async (r: Promise<Response>) => {
      const response = await r;
      expect(response.status, await response.clone().text()).toBe(201);
    };
    await ok(
      api.call('POST', '/api/collections?name=demo&format=tsv', { ...admin(), body: DOCS_TSV }),
    );
    await ok(api.call('POST', '/api/collections/demo/topics', { ...admin(), body: TOPICS_TSV }));
    await ok(
      api.call('POST', '/api/collections/demo/runs?name=g', { ...admin(), body: RUN_GHOSTS }),
    );
    await ok(
      api.call('POST', '/api/collections/demo/label-sets?name=gpt', { ...admin(), body: GPT }),
    );
    for (const name of ['ada', 'bob', 'cy']) {
      const r = await api.call('POST', '/api/users', {
        ...admin(),
        json: { name, role: 'annotator' },
      });
      expect(r.status).toBe(201);
      people[name] = (await r.json()) as { id: number; token: string };
    }
  });

  const items = (...pairs: string[]) =>
    pairs.map((p) => {
      const [topic, docno] = p.split('/');
      return { topic: topic!, docno: docno! };
    });

  async function create(body: Record<string, unknown>): Promise<Summary> {
    const r = await api.call('POST', '/api/collections/demo/campaigns', {
      ...admin(),
      json: { scale: { min: 0, max: 3 }, ...body },
    });
    expect(r.status, await r.clone().text()).toBe(201);
    return (await r.json()) as Summary;
  }
  const tryCreate = (body: Record<string, unknown>) =>
    api.call('POST', '/api/collections/demo/campaigns', {
      ...admin(),
      json: { scale: { min: 0, max: 3 }, ...body },
    });

  interface Next {
    campaign: { id: number; title: string };
    item: {
      id: number;
      topic: { id: string; query: string };
      document: { id: string; text: string };
    };
    progress: { done: number; total: number };
    reference?: Array<{ labelSet: string; grade: number | null }>;
    referenceHidden?: string;
  }
  async function next(id: number, token: string): Promise<Next | null> {
    const r = await api.call('GET', `/api/campaigns/${id}/next`, { token });
    if (r.status === 204) return null;
    expect(r.status, await r.clone().text()).toBe(200);
    return (await r.json()) as Next;
  }
  async function labelAll(id: number, token: string, grades: Record<string, number>) {
    for (let n = await next(id, token); n; n = await next(id, token)) {
      const grade = grades[`${n.item.topic.id}/${n.item.document.id}`]!;
      const r = await api.call('POST', `/api/campaigns/${id}/labels`, {
        token,
        json: { item: n.item.id, grade },
      });
      expect(r.status).toBe(201);
    }
  }
  const campaignCount = async () =>
    (
      (await (
        await api.call('GET', '/api/collections/demo/campaigns', admin())
      ).json()) as unknown[]
    ).length;

  describe('agreement (21.6)', () => {
    it('answers 200 when a pair of annotators shares no item, with n 0 and the reason', async () => {
      // Overlap 1: ada gets 1/d1, bob 1/d2; they never label the same item.
      const c = await create({
        name: 'apart',
        items: items('1/d1', '1/d2'),
        annotators: ['ada', 'bob'],
      });
      await labelAll(c.id, people.ada!.token, { '1/d1': 1, '1/d2': 1 });
      await labelAll(c.id, people.bob!.token, { '1/d1': 2, '1/d2': 2 });
      const r = await api.call('GET', `/api/campaigns/${c.id}/agreement`, admin());
      expect(r.status, await r.clone().text()).toBe(200);
      const a = (await r.json()) as {
        annotators: {
          people: Array<{ name: string; labels: number }>;
          pairwise: Array<{ a: string; b: string; n: number; report: unknown; reason?: string }>;
        };
      };
      expect(a.annotators.people.map((p) => [p.name, p.labels])).toEqual([
        ['ada', 1],
        ['bob', 1],
      ]);
      expect(a.annotators.pairwise).toEqual([
        {
          a: 'ada',
          b: 'bob',
          n: 0,
          report: null,
          reason: 'ada and bob have labelled no item in common',
        },
      ]);
    });

    it('answers 200 for a fresh campaign with compareWith, then the figures once labelled', async () => {
      const c = await create({
        name: 'fresh',
        items: items('1/d1', '1/d2', '2/d3'),
        annotators: ['ada', 'bob'],
        overlap: 2,
        compareWith: ['gpt'],
      });
      const fresh = await api.call('GET', `/api/campaigns/${c.id}/agreement`, admin());
      expect(fresh.status, await fresh.clone().text()).toBe(200);
      expect(((await fresh.json()) as { compareWith: unknown[] }).compareWith).toEqual([
        {
          labelSet: { id: expect.any(Number), name: 'gpt' },
          n: 0,
          report: null,
          reason: 'the campaign has no labels yet',
          perTopic: [],
        },
      ]);
      // Both give 1/d1 → 0 and 1/d2 → 3; on 2/d3 ada 1, bob 2 (majority, ties low: 1).
      await labelAll(c.id, people.ada!.token, { '1/d1': 0, '1/d2': 3, '2/d3': 1 });
      await labelAll(c.id, people.bob!.token, { '1/d1': 0, '1/d2': 3, '2/d3': 2 });
      const r = await api.call('GET', `/api/campaigns/${c.id}/agreement`, admin());
      expect(r.status).toBe(200);
      const a = (await r.json()) as {
        annotators: {
          pairwise: Array<{ n: number; report: { n: number; exactAgreement: number } }>;
        };
        compareWith: Array<{ n: number; report: { n: number; exactAgreement: number } }>;
      };
      // Annotators: 2 of 3 items alike.
      expect(a.annotators.pairwise[0]!.n).toBe(3);
      expect(a.annotators.pairwise[0]!.report.exactAgreement).toBeCloseTo(2 / 3, 10);
      // Against gpt: gpt grades 1/d1 (0) and 1/d2 (3), not 2/d3: both alike.
      expect(a.compareWith[0]!.n).toBe(2);
      expect(a.compareWith[0]!.report.exactAgreement).toBe(1);
    });

    it('says why when a compared set grades none of the labelled items', async () => {
      const c = await create({
        name: 'elsewhere',
        items: items('2/d3'),
        annotators: ['ada'],
        compareWith: ['gpt'],
      });
      await labelAll(c.id, people.ada!.token, { '2/d3': 1 });
      const r = await api.call('GET', `/api/campaigns/${c.id}/agreement`, admin());
      expect(r.status).toBe(200);
      expect(
        ((await r.json()) as { compareWith: Array<{ reason: string }> }).compareWith[0],
      ).toMatchObject({
        n: 0,
        report: null,
        reason: '"gpt" grades none of the items the campaign has labelled',
      });
    });
  });

  describe('who may read labels (21.11)', () => {
    it('lets admins read everything and annotators only their own campaign items', async () => {
      const open = await create({
        name: 'open-study',
        items: items('1/d1'),
        annotators: ['ada'],
        blind: false,
        compareWith: ['gpt'],
      });
      const blind = await create({
        name: 'blind-study',
        items: items('2/d4'),
        annotators: ['bob'],
      });
      await labelAll(blind.id, people.bob!.token, { '2/d4': 2 });
      const tokens = {
        admin: api.admin,
        inCampaign: people.ada!.token,
        outside: api.annotator,
        blind: people.bob!.token,
      };
      const labelReading = [
        'GET /api/collections/demo/label-sets',
        'GET /api/collections/demo/label-sets/gpt',
        'GET /api/collections/demo/label-sets/gpt/labels',
        'GET /api/collections/demo/label-sets/gpt/qrels',
        'GET /api/collections/demo/label-sets/blind-study/labels',
        'GET /api/collections/demo/label-sets/blind-study/qrels',
        'GET /api/collections/demo/label-sets/open-study/labels',
        `GET /api/campaigns/${blind.id}`,
        `GET /api/campaigns/${blind.id}/agreement`,
        `GET /api/campaigns/${blind.id}/disagreements?labelSets=1`,
        'GET /api/collections/demo/campaigns',
        'GET /api/collections/demo/judge-jobs',
        'GET /api/reports',
        'POST /api/evaluations',
      ];
      for (const route of labelReading) {
        const [method, path] = route.split(' ') as [string, string];
        const json =
          method === 'POST'
            ? { collection: 'demo', labelSet: 'gpt', runs: ['g'], measures: ['P@5'] }
            : undefined;
        const asAdmin = await api.call(method, path, { token: tokens.admin, json });
        expect(asAdmin.status, `${route} as admin`).toBe(200);
        for (const who of ['inCampaign', 'outside', 'blind'] as const) {
          const r = await api.call(method, path, { token: tokens[who], json });
          expect(await errorOf(r), `${route} as ${who}`).toMatchObject({
            status: 403,
            code: 'forbidden',
          });
        }
      }
      // What their campaigns need: their own items, with the references of a non-blind one.
      const adaNext = await next(open.id, tokens.inCampaign);
      expect(adaNext!.reference).toEqual([{ labelSet: 'gpt', grade: 0 }]);
      expect(await next(blind.id, tokens.blind)).toBeNull();
      // Nobody else's campaign.
      for (const token of [tokens.outside, tokens.blind])
        expect((await api.call('GET', `/api/campaigns/${open.id}/next`, { token })).status).toBe(
          404,
        );
      expect(
        (await api.call('GET', `/api/campaigns/${blind.id}/next`, { token: tokens.inCampaign }))
          .status,
      ).toBe(404);
    });
  });

  describe('no blank or ghost items (22 §1)', () => {
    it('pools only the pairs the collection holds and names what it leaves out', async () => {
      const r = await api.call('POST', '/api/collections/demo/pools', {
        ...admin(),
        json: { runs: ['g'], depth: 2 },
      });
      expect(r.status, await r.clone().text()).toBe(200);
      const pool = (await r.json()) as {
        topics: string[];
        items: Array<{ topicId: string; docId: string }>;
        stats: { total: number; perTopic: Array<{ topicId: string; items: number }> };
        leftOut: Summary['leftOut'] & { documents: { count: number; first: string[] } };
      };
      expect(pool.items.map((i) => `${i.topicId}/${i.docId}`).sort()).toEqual([
        '1/d1',
        '1/d2',
        '2/d4',
      ]);
      expect(pool.topics).toEqual(['1', '2']);
      expect(pool.stats.total).toBe(3);
      expect(pool.leftOut).toEqual({
        topics: { count: 2, first: ['8', '9'] },
        documents: { count: 1, first: ['d9'] },
        pairs: 5,
        message:
          '2 topics of the runs are not in the collection (8, 9); 1 document of the runs is not in the collection (d9); 5 pairs left out',
      });
    });

    it('makes a judge job of the same pool of the same held pairs, naming the same left out', async () => {
      const r = await api.call('POST', '/api/collections/demo/judge-jobs', {
        ...admin(),
        json: {
          labelSet: 'llm-ghosts',
          judge: 'graded-0-3',
          settings: { model: 'judge-model' },
          pool: { runs: ['g'], depth: 2 },
        },
      });
      expect(r.status, await r.clone().text()).toBe(201);
      const job = (await r.json()) as {
        progress: { total: number; pending: number };
        leftOut: Summary['leftOut'] & { documents: { count: number; first: string[] } };
      };
      // The pool's three held pairs, 1/d1 1/d2 2/d4, and what the pool API says it left out.
      expect(job.progress).toMatchObject({ total: 3, pending: 3 });
      expect(job.leftOut).toEqual({
        topics: { count: 2, first: ['8', '9'] },
        documents: { count: 1, first: ['d9'] },
        pairs: 5,
        message:
          '2 topics of the runs are not in the collection (8, 9); 1 document of the runs is not in the collection (d9); 5 pairs left out',
      });
      // Posting it again adds nothing and says the same.
      const again = await api.call('POST', '/api/collections/demo/judge-jobs', {
        ...admin(),
        json: {
          labelSet: 'llm-ghosts',
          judge: 'graded-0-3',
          settings: { model: 'judge-model' },
          pool: { runs: ['g'], depth: 2 },
        },
      });
      expect(again.status).toBe(200);
      expect(((await again.json()) as typeof job).leftOut.pairs).toBe(5);
    });

    it('makes campaigns of held pairs only, says what it left out, and shows no blank item', async () => {
      const c = await create({
        name: 'ghosts',
        pool: { runs: ['g'], depth: 2 },
        annotators: ['ada'],
        sampling: { mode: 'random', perTopic: 5, seed: 7 },
      });
      expect(c.items).toBe(3);
      expect(c.leftOut).toMatchObject({ topics: { count: 2, first: ['8', '9'] }, pairs: 5 });
      const stored = (await (
        await api.call('GET', `/api/campaigns/${c.id}`, admin())
      ).json()) as Summary;
      expect(stored.leftOut).toEqual(c.leftOut);
      expect(stored.annotators).toMatchObject([{ name: 'ada', done: 0, total: 3 }]);
      const seen: string[] = [];
      for (
        let n = await next(c.id, people.ada!.token);
        n;
        n = await next(c.id, people.ada!.token)
      ) {
        expect(n.item.topic.query).not.toBe('');
        expect(n.item.document.text).not.toBe('');
        expect(n.progress.total).toBe(3);
        seen.push(`${n.item.topic.id}/${n.item.document.id}`);
        await api.call('POST', `/api/campaigns/${c.id}/labels`, {
          token: people.ada!.token,
          json: { item: n.item.id, grade: 1 },
        });
      }
      expect(seen.sort()).toEqual(['1/d1', '1/d2', '2/d4']);
    });

    it('refuses a listed item the collection does not hold (422 naming it), creating nothing', async () => {
      const r = await tryCreate({
        name: 'typo',
        items: items('1/d1', '999999/nope-1', '1/nope-2', '77/d1'),
        annotators: ['ada'],
      });
      expect(await errorOf(r)).toEqual({
        status: 422,
        code: 'invalid_input',
        message:
          '3 listed items name a topic or document that collection "demo" does not hold: 2 topics listed are not in the collection (999999, 77); 1 document listed is not in the collection (nope-2)',
      });
      expect(await campaignCount()).toBe(0);
    });
  });

  describe('blindness across campaigns (22 §1)', () => {
    it('refuses an annotator in a blind and a non-blind campaign over the same pairs (409)', async () => {
      const blind = await create({
        name: 'blind-vs-gpt',
        title: 'Relevance study',
        items: items('1/d1', '1/d2'),
        annotators: ['ada'],
      });
      expect(blind.title).toBe('Relevance study');
      const r = await tryCreate({
        name: 'open',
        items: items('1/d2', '2/d4'),
        annotators: ['ada', 'bob'],
        blind: false,
        compareWith: ['gpt'],
      });
      expect(await errorOf(r)).toMatchObject({ status: 409, code: 'conflict' });
      expect((await errorOf(r)).message).toContain('ada (in campaign "blind-vs-gpt")');
      expect(await campaignCount()).toBe(1);
      expect((await next(blind.id, people.ada!.token))!.reference).toBeUndefined();
      // Other people, or other pairs, are fine.
      const open = await create({
        name: 'open',
        items: items('1/d2', '2/d4'),
        annotators: ['bob'],
        blind: false,
        compareWith: ['gpt'],
      });
      await create({
        name: 'open-elsewhere',
        items: items('2/d4'),
        annotators: ['ada'],
        blind: false,
      });
      // And the other way round: a blind campaign over pairs bob sees with references.
      const back = await tryCreate({
        name: 'blind-again',
        items: items('2/d4'),
        annotators: ['bob', 'cy'],
      });
      expect(await errorOf(back)).toMatchObject({ status: 409, code: 'conflict' });
      expect((await errorOf(back)).message).toContain('bob (in campaign "open")');
      expect(await campaignCount()).toBe(3);
      expect((await next(open.id, people.bob!.token))!.reference).toEqual([
        { labelSet: 'gpt', grade: 3 },
      ]);
    });

    it('shows annotators the title, never the name', async () => {
      const c = await create({
        name: 'blind-vs-gpt4o',
        title: 'Passage relevance, round 1',
        items: items('1/d1'),
        annotators: ['ada'],
      });
      const mine = (await (
        await api.call('GET', '/api/campaigns', { token: people.ada!.token })
      ).json()) as Array<Record<string, unknown>>;
      expect(mine).toEqual([
        {
          id: c.id,
          title: 'Passage relevance, round 1',
          blind: true,
          progress: { done: 0, total: 1 },
          closed: false,
          removed: false,
        },
      ]);
      const n = await next(c.id, people.ada!.token);
      expect(n!.campaign).toEqual({
        id: c.id,
        title: 'Passage relevance, round 1',
        inputLockMs: 250, // the default lock
      });
      expect(JSON.stringify(n)).not.toContain('gpt4o');
      // Without a title annotators see the name.
      const plain = await create({ name: 'plain', items: items('2/d4'), annotators: ['cy'] });
      expect(plain.title).toBe('plain');
      expect((await next(plain.id, people.cy!.token))!.campaign.title).toBe('plain');
      const blank = await tryCreate({
        name: 'x',
        title: '   ',
        items: items('2/d3'),
        annotators: ['cy'],
      });
      expect((await errorOf(blank)).status).toBe(400);
    });
  });

  describe('deleting a label set a campaign uses (22 §1)', () => {
    it('is a 409 naming the campaign unless force', async () => {
      const c = await create({
        name: 'study',
        items: items('1/d1'),
        annotators: ['ada'],
        compareWith: ['gpt'],
      });
      await labelAll(c.id, people.ada!.token, { '1/d1': 2 });
      const own = await api.call('DELETE', '/api/collections/demo/label-sets/study', admin());
      expect(await errorOf(own)).toEqual({
        status: 409,
        code: 'conflict',
        message:
          'label set "study" is used by a campaign: campaign "study" writes it (the campaign and its labels would go too); delete with force to delete it anyway',
      });
      const compared = await api.call('DELETE', '/api/collections/demo/label-sets/gpt', admin());
      expect(await errorOf(compared)).toMatchObject({
        status: 409,
        message:
          'label set "gpt" is used by a campaign: campaign "study" compares with it or sampled by it; delete with force to delete it anyway',
      });
      // Nothing went.
      expect((await api.call('GET', `/api/campaigns/${c.id}`, admin())).status).toBe(200);
      const labels = await api.call(
        'GET',
        '/api/collections/demo/label-sets/study/labels',
        admin(),
      );
      expect(((await labels.json()) as unknown[]).length).toBe(1);
      // With force it goes, and the campaign with it.
      expect(
        (await api.call('DELETE', '/api/collections/demo/label-sets/study?force=true', admin()))
          .status,
      ).toBe(204);
      expect((await api.call('GET', `/api/campaigns/${c.id}`, admin())).status).toBe(404);
      // gpt is now used by nobody.
      expect(
        (await api.call('DELETE', '/api/collections/demo/label-sets/gpt', admin())).status,
      ).toBe(204);
    });
  });
});
