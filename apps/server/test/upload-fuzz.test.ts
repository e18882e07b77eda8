// Seeded fuzzing of the upload path: mutated run, qrels and topic files (NUL, huge
// numbers, over-long ids, invalid UTF-8, CRLF mixes, truncation) sent as raw bodies.
// Never a 500, and a refused upload leaves the collection exactly as it was.
import { beforeAll, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { setUpApi, type TestApi } from './helpers.js';

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  '\0',
  '\r\n',
  '99999999999',
  '2147483648',
  '1e400',
  'y'.repeat(600),
  '\t',
  '-',
  '{',
];

/** `text` with one piece inserted, a cut, or a stretch of invalid UTF-8 bytes. */
function mutate(text: string, next: () => number): Uint8Array {
  const at = Math.floor(next() * (text.length + 1));
  const kind = Math.floor(next() * 4);
  if (kind === 0) return new TextEncoder().encode(text.slice(0, at));
  if (kind === 1) {
    const piece = PIECES[Math.floor(next() * PIECES.length)]!;
    return new TextEncoder().encode(text.slice(0, at) + piece + text.slice(at));
  }
  if (kind === 2) return new TextEncoder().encode(text.replace(/\n/g, '\r\n'));
  const bytes = new TextEncoder().encode(text);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes.subarray(0, at));
  out[at] = 0xff;
  out.set(bytes.subarray(at), at + 1);
  return out;
}

const FILES: Array<[string, string]> = [
  ['/api/collections/demo/runs?name=r', '1 Q0 d1 1 2.5 s\n1 Q0 d2 2 1.5 s\n2 Q0 d1 1 3 s\n'],
  ['/api/collections/demo/label-sets?name=q', '1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n'],
  ['/api/collections/demo/topics', '11\tfirst query\n12\tsecond query\n'],
];

forEachDatabase('upload fuzzing', (t) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await setUpApi(t.db);
    const r = await api.call('POST', '/api/collections?name=demo&format=tsv', {
      token: api.admin,
      body: 'd1\tpassage\nd2\tpassage\n',
    });
    expect(r.status).toBe(201);
  });

  /** What the collection holds: its runs, label sets and topics as listed. */
  async function contents(): Promise<string> {
    const parts: string[] = [];
    for (const list of ['runs', 'label-sets', 'topics']) {
      const r = await api.call('GET', `/api/collections/demo/${list}`, { token: api.admin });
      parts.push(await r.text());
    }
    return parts.join('\n');
  }

  it('never answers 500 and keeps nothing of a refused upload', async () => {
    const next = random(7);
    let refused = 0;
    for (let i = 0; i < 45; i++) {
      const [path, text] = FILES[i % FILES.length]!;
      const before = await contents();
      const name = `f${i}`;
      const url = path.includes('/topics') ? path : path.replace(/name=\w+/, `name=${name}`);
      const response = await api.app.request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${api.admin}`, 'content-type': 'text/plain' },
        body: mutate(text, next),
      });
      expect(response.status, await response.clone().text()).toBeLessThan(500);
      if (response.status >= 400) {
        refused++;
        expect(await contents()).toBe(before);
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(api.logged).toEqual([]);
  }, 60_000);
});
