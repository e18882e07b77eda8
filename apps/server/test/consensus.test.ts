import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

// Two LLM judges and a person on three items; by hand the mean (ties low) is
//   1/a: (0+1+1)/3 = 0.67 → 1;  1/b: (3+2)/2 = 2.5 → 2;  2/c: 3/1 → 3.
const SETS: Record<string, string> = {
  gpt: '1 0 a 0\n1 0 b 3\n',
  llama: '1 0 a 1\n1 0 b 2\n',
  person: '1 0 a 1\n2 0 c 3\n',
};

forEachDatabase('POST /api/collections/{collection}/label-sets/consensus', (t) => {
  let api: TestApi;

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const admin = { token: api.admin };
    const made = await api.call('POST', '/api/collections?name=demo&format=tsv', {
      ...admin,
      body: 'a\tx\nb\ty\nc\tz\n',
    });
    expect(made.status).toBe(201);
    for (const [name, text] of Object.entries(SETS)) {
      const r = await api.call('POST', `/api/collections/demo/label-sets?name=${name}`, {
        ...admin,
        body: text,
      });
      expect(r.status).toBe(201);
    }
  });

  it('stores the consensus and serves its labels', async () => {
    const r = await api.call('POST', '/api/collections/demo/label-sets/consensus', {
      token: api.admin,
      json: { name: 'panel', labelSets: ['gpt', 'llama', 'person'], method: 'mean' },
    });
    expect(r.status).toBe(201);
    const set = (await r.json()) as { name: string; kind: string; labelCount: number };
    expect(set).toMatchObject({ name: 'panel', kind: 'consensus', labelCount: 3 });
    const labels = (await (
      await api.call('GET', '/api/collections/demo/label-sets/panel/labels', { token: api.admin })
    ).json()) as Array<{ topicId: string; docId: string; grade: number }>;
    expect(labels.map((l) => `${l.topicId}/${l.docId}=${l.grade}`)).toEqual([
      '1/a=1',
      '1/b=2',
      '2/c=3',
    ]);
  });

  it('needs an admin, known label sets and a valid body', async () => {
    const body = { name: 'panel', labelSets: ['gpt', 'llama'], method: 'majority' };
    const path = '/api/collections/demo/label-sets/consensus';
    expect((await api.call('POST', path, { json: body })).status).toBe(401);
    expect(
      (await errorOf(await api.call('POST', path, { token: api.annotator, json: body }))).status,
    ).toBe(403);
    const unknown = await errorOf(
      await api.call('POST', path, {
        token: api.admin,
        json: { ...body, labelSets: ['gpt', 'nope'] },
      }),
    );
    expect(unknown).toMatchObject({ status: 404, code: 'not_found' });
    const bad = await errorOf(
      await api.call('POST', path, { token: api.admin, json: { ...body, method: 'mode' } }),
    );
    expect(bad).toMatchObject({ status: 400, code: 'invalid_input' });
    const taken = await errorOf(
      await api.call('POST', path, { token: api.admin, json: { ...body, name: 'gpt' } }),
    );
    expect(taken).toMatchObject({ status: 409, code: 'conflict' });
  });
});
