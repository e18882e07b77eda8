// Bad inputs an unlucky user or an attacker sends: each is a 4xx with a readable reason,
// never a 500, and nothing of a refused upload is kept.
import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

forEachDatabase('bad inputs', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    api = await setUpApi(t.db);
    expect(
      (
        await api.call('POST', '/api/collections?name=demo&format=tsv', {
          ...admin(),
          body: 'd1\tpassage 1\n',
        })
      ).status,
    ).toBe(201);
  });

  it('refuses document metadata nested 10,000 deep', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const r = await api.call('POST', '/api/collections?name=deep&format=jsonl', {
      ...admin(),
      body: `{"id":"d1","text":"t","metadata":${deep}}\n`,
    });
    expect(r.status).toBe(422);
    expect(((await r.json()) as { error: { message: string } }).error.message).toBe(
      'documents:1: the document is nested more than 100 levels deep',
    );
    expect(api.logged).toEqual([]);
  });

  it('refuses a malformed multipart body with 400', async () => {
    const r = await api.call('POST', '/api/collections/demo/runs?name=mp', {
      ...admin(),
      body: '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nunterminated',
      type: 'multipart/form-data; boundary=x',
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(api.logged).toEqual([]);
  });

  it('refuses a NUL in a judge model name with 4xx', async () => {
    await api.call('POST', '/api/collections/demo/runs', {
      ...admin(),
      body: '1 Q0 d1 1 2 sysA\n',
    });
    const r = await api.call('POST', '/api/collections/demo/judge-jobs', {
      ...admin(),
      json: { pool: { runs: ['sysA'], depth: 1 }, model: 'gpt\u0000x', name: 'j' },
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(api.logged).toEqual([]);
  });

  it('refuses a UTF-16 body saying so', async () => {
    const utf16 = Buffer.from('\ufeff1 Q0 d1 1 2 u\n', 'utf16le');
    const r = await api.app.request('/api/collections/demo/runs?name=u16', {
      method: 'POST',
      headers: { authorization: `Bearer ${api.admin}`, 'content-type': 'text/plain' },
      body: new Uint8Array(utf16),
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/UTF-16/);
  });

  it.each([
    ['text/plain', '/api/collections/demo/topics', 'topics'],
    ['text/plain', '/api/collections/demo/topics?filename=mine.tsv', 'mine.tsv'],
    ['text/plain; charset=utf-8', '/api/collections/demo/label-sets?name=q', 'qrels'],
  ])(
    'refuses undeclared Latin-1 (%s) naming file:line, storing nothing',
    async (type, path, file) => {
      // Two docnos that differ only in é / è would both decode to "caf\ufffd" and collide.
      const latin1 = Buffer.from('1 0 cafe 1\n1 0 caf\u00e9 0\n1 0 caf\u00e8 1\n', 'latin1');
      const body = path.includes('topics')
        ? Buffer.from('1\tfirst\n2\tcaf\u00e9\n', 'latin1')
        : latin1;
      const r = await api.app.request(path, {
        method: 'POST',
        headers: { authorization: `Bearer ${api.admin}`, 'content-type': type },
        body: new Uint8Array(body),
      });
      const error = await errorOf(r);
      expect(error.status).toBe(422);
      expect(error.message).toMatch(
        new RegExp(`^${file.replace('.', '\\.')}:2: the line is not valid UTF-8 \\(bytes 0xE[89]`),
      );
      expect(error.message).toContain('charset=iso-8859-1');
      for (const list of ['label-sets', 'topics']) {
        const listed = await api.call('GET', `/api/collections/demo/${list}`, admin());
        const items = (await listed.json()) as unknown[] | { items: unknown[] };
        expect(Array.isArray(items) ? items : items.items).toEqual([]);
      }
    },
  );

  it('refuses a multipart upload of undeclared Latin-1, naming the uploaded file', async () => {
    const form = new FormData();
    form.append(
      'file',
      new File([new Uint8Array(Buffer.from('1 Q0 d\u00e9 1 2 s\n', 'latin1'))], 'run.txt'),
    );
    const r = await api.app.request('/api/collections/demo/runs?name=r', {
      method: 'POST',
      headers: { authorization: `Bearer ${api.admin}` },
      body: form,
    });
    const error = await errorOf(r);
    expect(error).toMatchObject({ status: 422 });
    expect(error.message).toMatch(/^run\.txt:1: the line is not valid UTF-8/);
  });

  it('refuses a JSON body that is not UTF-8 before any route reads it', async () => {
    const body = Buffer.concat([
      Buffer.from('{"text": "1\\tfirst\\n2\\tcaf'),
      Buffer.from([0xe9]),
      Buffer.from('\\n"}'),
    ]);
    const r = await api.app.request('/api/collections/demo/topics', {
      method: 'POST',
      headers: { authorization: `Bearer ${api.admin}`, 'content-type': 'application/json' },
      body: new Uint8Array(body),
    });
    const error = await errorOf(r);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^the JSON body:1: the line is not valid UTF-8 \(bytes 0xE9/);
  });

  it('honours a declared charset=iso-8859-1 and refuses charsets it cannot read', async () => {
    // "caf\xe9" in Latin-1: one byte for é.
    const latin1 = Buffer.from('1\tcaf\u00e9\n', 'latin1');
    const r = await api.app.request('/api/collections/demo/topics', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${api.admin}`,
        'content-type': 'text/plain; charset=iso-8859-1',
      },
      body: new Uint8Array(latin1),
    });
    expect(r.status).toBe(201);
    const topic = await api.call('GET', '/api/collections/demo/topics/1', admin());
    expect(((await topic.json()) as { query: string }).query).toBe('caf\u00e9');
    const other = await api.app.request('/api/collections/demo/topics', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${api.admin}`,
        'content-type': 'text/plain; charset=koi8-r',
      },
      body: '1\tx\n',
    });
    expect(other.status).toBe(415);
  });
});
