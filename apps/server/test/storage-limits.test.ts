// Uploads and bodies holding what no database column takes (over-long ids, numbers beyond
// 32 bits, NUL characters, deep nesting, grades off the declared scale): each is a 4xx
// naming the file and line or the field, never a 500 or a database's own words.
import { Hono } from 'hono';
import { beforeEach, describe, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { handleError } from '../src/core/errors.js';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

const LONG = 'x'.repeat(513); // one byte over the 512-byte id limit
const LONG_UTF8 = 'é'.repeat(257); // 257 characters, 514 UTF-8 bytes

forEachDatabase('storage limits', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });
  const post = (path: string, body: string) => api.call('POST', path, { ...admin(), body });

  beforeEach(async () => {
    api = await setUpApi(t.db);
    expect((await post('/api/collections?name=demo&format=tsv', 'd1\tpassage 1\n')).status).toBe(
      201,
    );
  });

  /** Nothing of a refused upload is kept: the collection still has no runs, sets or topics. */
  async function expectNothingStored() {
    for (const list of ['runs', 'label-sets', 'topics']) {
      const r = await api.call('GET', `/api/collections/demo/${list}`, admin());
      const body = (await r.json()) as unknown[] | { items: unknown[] };
      expect(Array.isArray(body) ? body : body.items).toEqual([]);
    }
  }

  it.each([
    [
      'a run docno',
      '/api/collections/demo/runs?name=r',
      `1 Q0 d1 1 2 s\n1 Q0 ${LONG} 2 1 s\n`,
      'run:2: docno',
    ],
    [
      'a run topic id',
      '/api/collections/demo/runs?name=r',
      `${LONG_UTF8} Q0 d1 1 2 s\n`,
      'run:1: topic id',
    ],
    [
      'a qrels docno',
      '/api/collections/demo/label-sets?name=q',
      `1 0 ${LONG} 1\n`,
      'qrels:1: docno',
    ],
    [
      'a qrels topic id',
      '/api/collections/demo/label-sets?name=q',
      `1 0 d1 1\n${LONG} 0 d1 1\n`,
      'qrels:2: topic id',
    ],
    ['a topic id', '/api/collections/demo/topics', `1\tq\n${LONG}\tq\n`, 'topics:2: topic id'],
  ])('refuses %s over 512 bytes with file:line', async (_what, path, body, start) => {
    const error = await errorOf(await post(path, body));
    expect(error.status).toBe(422);
    expect(error.message.startsWith(start)).toBe(true);
    expect(error.message).toMatch(/is longer than 512 bytes$/);
    await expectNothingStored();
    expect(api.logged).toEqual([]);
  });

  it('refuses a document id over 512 bytes with file:line', async () => {
    const error = await errorOf(
      await post('/api/collections?name=c2&format=tsv', `d1\tok\n${LONG}\ttext\n`),
    );
    expect(error).toMatchObject({ status: 422 });
    expect(error.message).toMatch(/^documents:2: document id ".*" is longer than 512 bytes$/);
    expect((await api.call('GET', '/api/collections/c2', admin())).status).toBe(404);
  });

  it('refuses a run tag over 200 characters, naming the line it is read from', async () => {
    const tag = 't'.repeat(201);
    const error = await errorOf(
      await post('/api/collections/demo/runs', `1 Q0 d1 1 2 ${tag}\n1 Q0 d2 2 1 ${tag}\n`),
    );
    expect(error.status).toBe(422);
    expect(error.message).toMatch(/^run:2: run tag ".*" is longer than 200 characters$/);
    await expectNothingStored();
  });

  it('refuses ranks beyond 32 bits at parse time, never with the database text', async () => {
    const rank = await errorOf(
      await post('/api/collections/demo/runs?name=r', '1 Q0 d1 1 2 s\n1 Q0 d2 99999999999 1 s\n'),
    );
    expect(rank).toMatchObject({
      status: 422,
      message: 'run:2: rank "99999999999" is outside the 32-bit range -2147483648..2147483647',
    });
    await expectNothingStored();
    expect(api.logged).toEqual([]);
  });

  it.each([
    ['2000000000', '1 0 184 2000000000\n', 'qrels:1: grade 2000000000'],
    ['-2000000000', '1 0 d1 1\n1 0 d2 -2000000000\n', 'qrels:2: grade -2000000000'],
    ['1001', '1 0 d1 1001\n', 'qrels:1: grade 1001'],
  ])(
    'refuses a grade of %s with file:line, and evaluations still answer',
    async (_g, qrels, start) => {
      const grade = await errorOf(await post('/api/collections/demo/label-sets?name=q', qrels));
      expect(grade).toMatchObject({
        status: 422,
        message: `${start} is outside -1000..1000, the grades assay stores`,
      });
      await expectNothingStored();
      // The next evaluation (what once ended the process) is answered, on what is stored.
      expect((await post('/api/collections/demo/runs?name=r', '1 Q0 184 1 2 s\n')).status).toBe(
        201,
      );
      const evaluated = await api.call('POST', '/api/evaluations', {
        ...admin(),
        json: { collection: 'demo', labelSet: 'q', runs: ['r'], measures: ['ndcg'] },
      });
      expect(evaluated.status).toBe(404);
      expect(api.logged).toEqual([]);
    },
  );

  it('stores the largest 32-bit rank and the widest grades, and evaluates them', async () => {
    expect(
      (await post('/api/collections/demo/runs?name=r', '1 Q0 d1 2147483647 2 s\n1 Q0 d2 1 1 s\n'))
        .status,
    ).toBe(201);
    expect(
      (await post('/api/collections/demo/label-sets?name=q', '1 0 d1 -1000\n1 0 d2 1000\n')).status,
    ).toBe(201);
    const evaluated = await api.call('POST', '/api/evaluations', {
      ...admin(),
      json: { collection: 'demo', labelSet: 'q', runs: ['r'], measures: ['ndcg', 'num_rel'] },
    });
    expect(evaluated.status).toBe(200);
    const result = (await evaluated.json()) as { runs: Array<{ mean: Record<string, number> }> };
    // d1 (-1000: pooled, not judged) ranks first, d2 (gain 1000) second: 1000/log2(3) / 1000.
    expect(result.runs[0]!.mean.num_rel).toBe(1);
    expect(result.runs[0]!.mean.ndcg).toBeCloseTo(1 / Math.log2(3), 12);
  });

  it('refuses a declared scale beyond the stored grades, naming the field', async () => {
    const error = await errorOf(
      await post(
        '/api/collections/demo/label-sets?name=q&scaleMin=0&scaleMax=2000000000',
        '1 0 d1 1\n',
      ),
    );
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/scaleMax/);
    await expectNothingStored();
  });

  it('refuses a grade outside the declared scale, naming the grade and its line', async () => {
    const error = await errorOf(
      await post(
        '/api/collections/demo/label-sets?name=q&scaleMin=0&scaleMax=3',
        '1 0 d1 3\n1 0 d2 0\n2 0 d1 7\n2 0 d2 9\n',
      ),
    );
    expect(error).toMatchObject({
      status: 422,
      message: 'qrels:3: grade 7 is outside the scale 0..3',
    });
    await expectNothingStored();
  });

  it.each([
    ['a run', '/api/collections/demo/runs?name=r', '1 Q0 d1 1 2 s\n1 Q0 d\u00002 2 1 s\n', 'run:2'],
    ['qrels', '/api/collections/demo/label-sets?name=q', '1 0 d1 1\n\n1 0 d2 \u00001\n', 'qrels:3'],
    ['topics', '/api/collections/demo/topics', '1\tfirst\n2\tsec\u0000ond\n', 'topics:2'],
    [
      'JSONL topics',
      '/api/collections/demo/topics?format=jsonl',
      '{"id":"1","text":"a\\u0000b"}\n',
      'topics:1',
    ],
  ])('refuses a NUL character in %s with file:line', async (_what, path, body, where) => {
    const error = await errorOf(await post(path, body));
    expect(error.status).toBe(422);
    expect(error.message).toMatch(new RegExp(`^${where}: .*NUL`));
    await expectNothingStored();
    expect(api.logged).toEqual([]);
  });

  it('refuses a NUL character in a query parameter or a JSON field, naming it', async () => {
    const query = await errorOf(
      await post('/api/collections/demo/runs?name=r%005', '1 Q0 d1 1 2 s\n'),
    );
    expect(query).toMatchObject({ status: 400, message: 'name: contains a NUL character' });
    const field = await errorOf(
      await api.call('POST', '/api/collections/demo/runs?name=r', {
        ...admin(),
        json: { text: '1 Q0 d1 1 2 s\n', filename: 'a\u0000b.run' },
      }),
    );
    expect(field).toMatchObject({ status: 400, message: 'filename: contains a NUL character' });
    const nested = await errorOf(
      await api.call('POST', '/api/users', {
        ...admin(),
        json: { name: 'x', role: 'annotator', extra: [{ deep: 'a\u0000' }] },
      }),
    );
    expect(nested).toMatchObject({
      status: 400,
      message: 'extra.0.deep: contains a NUL character',
    });
    await expectNothingStored();
    expect(api.logged).toEqual([]);
  });

  it('names the first NUL of a JSON body wherever it is, but leaves an upload’s text to the import', async () => {
    const refused = async (json: unknown) =>
      errorOf(await api.call('POST', '/api/users', { ...admin(), json }));
    expect(await refused({ name: 'x', role: 'annotator', ['ke\u0000y']: 1 })).toMatchObject({
      status: 400,
      message: 'key: contains a NUL character',
    });
    expect(
      await refused({ name: 'x', role: 'annotator', nested: { text: 'a\u0000' } }),
    ).toMatchObject({ status: 400, message: 'nested.text: contains a NUL character' });
    // A top-level `text` is an uploaded file: the import answers with its `file:line`.
    const upload = await errorOf(
      await api.call('POST', '/api/collections/demo/runs', {
        ...admin(),
        json: { text: '1 Q0 d1 1 2 s\u0000\n' },
      }),
    );
    expect(upload.status).toBe(422);
    expect(upload.message).toMatch(/:1: /);
    await expectNothingStored();
  });

  it('refuses JSON bodies and JSONL topics nested 10,000 deep with 4xx', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const body = await errorOf(
      await api.call('POST', '/api/users', {
        ...admin(),
        body: `{"name":"x","role":"annotator","m":${deep}}`,
        type: 'application/json',
      }),
    );
    expect(body).toMatchObject({
      status: 400,
      message: 'the JSON body is nested more than 100 levels deep',
    });
    const topics = await errorOf(
      await post(
        '/api/collections/demo/topics?format=jsonl',
        `{"id":"1","text":"q","context":${deep}}\n`,
      ),
    );
    expect(topics).toMatchObject({
      status: 422,
      message: 'topics:1: the topic is nested more than 100 levels deep',
    });
    await expectNothingStored();
    expect(api.logged).toEqual([]);
  });
});

describe('database errors that reach the error handler', () => {
  /** An app whose one route throws what a database driver throws. */
  function throwing(error: Error) {
    const logged: string[] = [];
    const app = new Hono();
    app.get('/', () => {
      throw error;
    });
    app.onError((e, c) => handleError(e, c, (line) => logged.push(line)));
    return { app, logged };
  }

  it('answer 422 in words naming no SQL, and keep the database text for the log', async () => {
    const raw = Object.assign(new Error('value "99999999999" is out of range for type integer'), {
      code: '22003',
    });
    const { app, logged } = throwing(raw);
    const error = await errorOf(await app.request('/'));
    expect(error).toEqual({
      status: 422,
      code: 'invalid_input',
      message: 'a number is out of the range assay stores',
    });
    expect(logged.join('\n')).toContain('out of range for type integer');
  });

  it('answer 500 with a generic message to any other database error', async () => {
    const raw = Object.assign(new Error('relation "runs" does not exist'), { code: '42P01' });
    const { app, logged } = throwing(raw);
    const error = await errorOf(await app.request('/'));
    expect(error).toEqual({ status: 500, code: 'internal', message: 'internal server error' });
    expect(logged.join('\n')).toContain('relation "runs" does not exist');
  });
});
