import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import type { AssayConfig } from '@assay/platform';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

// Five short documents; topic 1 asks for "wing flutter", topic 2 for "shock".
const DOCS = [
  'd1\twing flutter in wind tunnels',
  'd2\tshock waves and shock layers',
  'd3\tthe flutter of a wing, and wing flutter again',
  'd4\theat transfer in hypersonic flow',
  'd5\tshock',
].join('\n');

function userMessage(body: Record<string, unknown>): string {
  return (body.messages as Array<{ content: string }>)[1]!.content;
}

forEachDatabase("a stored collection's on-disk index", (t) => {
  let api: TestApi;
  let llm: TestServer;
  let dataDir: string;
  const admin = () => ({ token: api.admin });

  beforeEach(async () => {
    // query2doc: the pseudo-document of "wing flutter" says "shock", that of "shock" says
    // "heat". gr-qd: "wing flutter" gets the queries "heat transfer" and "zzz" (no term of
    // the collection: dropped), "shock" gets "wing".
    llm = await startOpenAITestServer((body) => {
      const user = userMessage(body);
      if (user.includes('Query: wing flutter')) return { reply: 'shock' };
      if (user.includes('Query: shock')) return { reply: 'heat' };
      if (user.includes('wing flutter')) return { reply: '{"queries": ["heat transfer", "zzz"]}' };
      if (user.includes('shock')) return { reply: '{"queries": ["wing"]}' };
      return { status: 400, message: 'unexpected prompt' };
    });
    dataDir = mkdtempSync(join(tmpdir(), 'assay-disk-index-'));
    const config: AssayConfig = { dataDir, port: 0, openaiBaseUrl: llm.baseURL };
    api = await setUpApi(t.db, { config });
    expect(
      (await api.call('POST', '/api/collections?name=demo&format=tsv', { ...admin(), body: DOCS }))
        .status,
    ).toBe(201);
    expect(
      (
        await api.call('POST', '/api/collections/demo/topics', {
          ...admin(),
          body: '1\twing flutter\n2\tshock\n',
        })
      ).status,
    ).toBe(201);
  });
  afterEach(async () => {
    await llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function retrieve(json: Record<string, unknown>): Promise<Response> {
    return api.call('POST', '/api/collections/demo/runs/retrieve', { ...admin(), json });
  }

  /** A stored run's entries by topic: `docno:score`, in rank order. */
  async function entries(run: string): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const topic of ['1', '2']) {
      const r = await api.call(
        'GET',
        `/api/collections/demo/runs/${run}/entries?topic=${topic}`,
        admin(),
      );
      expect(r.status).toBe(200);
      out[topic] = ((await r.json()) as { docId: string; score: number }[]).map(
        (e) => `${e.docId}:${e.score}`,
      );
    }
    return out;
  }

  const docnos = (list: string[]) => list.map((e) => e.split(':')[0]);

  it('methods that search again give the same runs over the on-disk index as in memory; it is built once and checked against the documents', async () => {
    const requests = [
      { method: 'gr-qd', model: 'm' },
      { method: 'query2doc', model: 'm' },
      { method: 'bm25' },
    ];
    // In memory: no index was built under the data directory.
    const inMemory: Record<string, unknown>[] = [];
    for (const [i, request] of requests.entries()) {
      const r = await retrieve({ ...request, tag: `mem${i}` });
      expect(r.status).toBe(201);
      inMemory.push((await r.json()) as Record<string, unknown>);
    }

    const built = await api.call('POST', '/api/collections/demo/index', admin());
    expect(built.status).toBe(201);
    const summary = (await built.json()) as Record<string, unknown>;
    expect((inMemory[0]!.parameters as Record<string, unknown>).documents).toBe(5);
    expect(summary).toMatchObject({ collection: 'demo', documents: 5, replaced: false });
    expect(summary.file).toMatch(/indexes[/\\]collection-\d+\.bm25$/);
    const file = summary.file as string;
    // The index records the fingerprint the in-memory index records of the same documents.
    expect(summary.fingerprint).toBe((inMemory[0]!.parameters as Record<string, unknown>).index);
    const stamp = () => {
      const s = statSync(file);
      return `${s.ino}:${s.mtimeMs}:${s.size}`;
    };
    const before = stamp();

    for (const [i, request] of requests.entries()) {
      const r = await retrieve({ ...request, tag: `disk${i}` });
      expect(r.status).toBe(201);
      const body = (await r.json()) as Record<string, unknown>;
      // Same parameters (index fingerprint, document count), same entries and scores.
      expect(body.parameters).toEqual(inMemory[i]!.parameters);
      expect(await entries(`disk${i}`)).toEqual(await entries(`mem${i}`));
    }
    // gr-qd by hand: topic 1 searched "heat transfer" only ("zzz" has no term of the
    // collection), which only d4 holds; topic 2 searched "wing": d1 and d3.
    const gr = await entries('disk0');
    expect(docnos(gr['1']!)).toEqual(['d4']);
    expect(docnos(gr['2']!).sort()).toEqual(['d1', 'd3']);
    // query2doc: topic 1 searches "wing flutter" (×5) and "shock", topic 2 "shock" (×5) and
    // "heat": every document with a term of its query, and no other.
    const q2d = await entries('disk1');
    expect(docnos(q2d['1']!).sort()).toEqual(['d1', 'd2', 'd3', 'd5']);
    expect(docnos(q2d['2']!).sort()).toEqual(['d2', 'd4', 'd5']);
    // Retrievals read the index; none rebuilt it.
    expect(stamp()).toBe(before);

    // The index of another collection's documents at this one's place: refused, naming
    // the rebuild.
    expect(
      (
        await api.call('POST', '/api/collections?name=other&format=tsv', {
          ...admin(),
          body: 'x1\twing flutter\n',
        })
      ).status,
    ).toBe(201);
    const other = await api.call('POST', '/api/collections/other/index', admin());
    expect(other.status).toBe(201);
    const otherFile = ((await other.json()) as { file: string }).file;
    expect(otherFile).not.toBe(file);
    rmSync(file);
    copyFileSync(otherFile, file);
    const stale = await retrieve({ method: 'gr-qd', model: 'm', tag: 'stale' });
    expect(stale.status).toBe(409);
    const error = await errorOf(stale);
    expect(error.message).toContain(`the on-disk index ${file} was built from other documents`);
    expect(error.message).toContain('assay index build --collection demo --on-disk');
    const staleBm25 = await retrieve({ method: 'bm25', tag: 'stale' });
    expect(staleBm25.status).toBe(409);
    // Rebuilt: used again.
    const rebuilt = await api.call('POST', '/api/collections/demo/index', admin());
    expect(rebuilt.status).toBe(201);
    expect(await rebuilt.json()).toMatchObject({ replaced: true, documents: 5 });
    const again = await retrieve({ method: 'gr-qd', model: 'm', tag: 'again' });
    expect(again.status).toBe(201);
    expect(await entries('again')).toEqual(await entries('mem0'));
  });

  it('building the index of a collection without documents is refused', async () => {
    expect(
      (await api.call('POST', '/api/collections?name=empty&format=tsv', { ...admin(), body: '' }))
        .status,
    ).toBe(201);
    const r = await api.call('POST', '/api/collections/empty/index', admin());
    expect(r.status).toBe(422);
    expect((await errorOf(r)).message).toBe('collection "empty" has no documents to index');
  });
});
