import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

const RULE = 'a name may not be all digits (a number in a path or argument means an id)';

// Names and ids never meet: a new name that is all digits is refused on every create
// path, so `/api/collections/2` can only ever mean the collection with id 2.
forEachDatabase('names and ids', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    api = await setUpApi(t.db);
    expect(
      (
        await api.call('POST', '/api/collections?name=demo&format=tsv', {
          ...admin(),
          body: 'a\tapples\n',
        })
      ).status,
    ).toBe(201);
  });

  it('refuses a collection named like an id, so deleting by id never hits it', async () => {
    const refused = await api.call('POST', '/api/collections?name=2&format=tsv', {
      ...admin(),
      body: 'a\tx\n',
    });
    expect(await errorOf(refused)).toEqual({
      status: 422,
      code: 'invalid_input',
      message: `collection name "2": ${RULE}`,
    });
    const listed = (await (await api.call('GET', '/api/collections', admin())).json()) as Array<{
      name: string;
    }>;
    expect(listed.map((c) => c.name)).toEqual(['demo']);
  });

  it('refuses all-digit run names, and a run whose tag is all digits unless it is named', async () => {
    const run = '1 Q0 a 1 1.5 2024\n';
    expect(
      await errorOf(
        await api.call('POST', '/api/collections/demo/runs?name=17', { ...admin(), body: run }),
      ),
    ).toMatchObject({ status: 422, code: 'invalid_input', message: `run name "17": ${RULE}` });
    expect(
      await errorOf(
        await api.call('POST', '/api/collections/demo/runs', { ...admin(), body: run }),
      ),
    ).toMatchObject({
      status: 422,
      message:
        'run tag "2024" is all digits and cannot name the run (a number means an id); give the run a name',
    });
    const named = await api.call('POST', '/api/collections/demo/runs?name=bm25-2024', {
      ...admin(),
      body: run,
    });
    expect(named.status).toBe(201);
    expect(await named.json()).toMatchObject({ name: 'bm25-2024', tag: '2024', entryCount: 1 });
  });

  it('refuses all-digit label set, consensus, campaign, judge-job and user names', async () => {
    expect(
      await errorOf(
        await api.call('POST', '/api/collections/demo/label-sets?name=3', {
          ...admin(),
          body: '1 0 a 1\n',
        }),
      ),
    ).toMatchObject({ status: 422, message: `label set name "3": ${RULE}` });
    for (const name of ['human', 'other'])
      expect(
        (
          await api.call(`POST`, `/api/collections/demo/label-sets?name=${name}`, {
            ...admin(),
            body: '1 0 a 1\n',
          })
        ).status,
      ).toBe(201);
    expect(
      await errorOf(
        await api.call('POST', '/api/collections/demo/label-sets/consensus', {
          ...admin(),
          json: { name: '44', labelSets: ['human', 'other'], method: 'majority' },
        }),
      ),
    ).toMatchObject({ status: 422, message: `label set name "44": ${RULE}` });
    expect(
      await errorOf(
        await api.call('POST', '/api/collections/demo/judge-jobs', {
          ...admin(),
          json: {
            labelSet: '5',
            judge: 'graded-0-3',
            settings: { model: 'm' },
            items: [{ topicId: '1', docId: 'a' }],
          },
        }),
      ),
    ).toMatchObject({ status: 422, message: `label set name "5": ${RULE}` });
    expect(
      await errorOf(
        await api.call('POST', '/api/collections/demo/campaigns', {
          ...admin(),
          json: {
            name: '9',
            items: [{ topic: '1', docno: 'a' }],
            judge: 'graded-0-3',
            annotators: ['ann'],
            overlap: 1,
          },
        }),
      ),
    ).toMatchObject({ status: 422, message: `campaign name "9": ${RULE}` });
    expect(
      await errorOf(
        await api.call('POST', '/api/users', {
          ...admin(),
          json: { name: '12', role: 'annotator' },
        }),
      ),
    ).toMatchObject({ status: 422, code: 'invalid_input', message: `user name "12": ${RULE}` });
  });
});
