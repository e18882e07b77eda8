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

  async function indexState(collection: string): Promise<Record<string, unknown>> {
    const r = await api.call('GET', `/api/collections/${collection}/index`, admin());
    expect(r.status).toBe(200);
    return (await r.json()) as Record<string, unknown>;
  }

  /** Starts a build (202), then polls the index's state until the build is over. */
  async function buildIndex(collection: string): Promise<Record<string, unknown>> {
    const started = await api.call('POST', `/api/collections/${collection}/index`, admin());
    expect(started.status).toBe(202);
    expect(await started.json()).toMatchObject({ state: 'building', collection });
    for (;;) {
      const state = await indexState(collection);
      if (state.state !== 'building') return state;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

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

    expect(await indexState('demo')).toEqual({ state: 'absent', collection: 'demo' });
    const summary = await buildIndex('demo');
    expect((inMemory[0]!.parameters as Record<string, unknown>).documents).toBe(5);
    expect(summary).toMatchObject({
      state: 'ready',
      collection: 'demo',
      documents: 5,
      fresh: true,
    });
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
    const other = await buildIndex('other');
    expect(other).toMatchObject({ state: 'ready', documents: 1 });
    const otherFile = other.file as string;
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
    // Its state tells: the file's fingerprint is not the documents'.
    expect(await indexState('demo')).toMatchObject({ state: 'ready', documents: 1, fresh: false });
    expect(await buildIndex('demo')).toMatchObject({ state: 'ready', documents: 5, fresh: true });
    const again = await retrieve({ method: 'gr-qd', model: 'm', tag: 'again' });
    expect(again.status).toBe(201);
    expect(await entries('again')).toEqual(await entries('mem0'));
  });

  it('a build runs in the background: one at a time per collection, and the server answers meanwhile', async () => {
    // 16,000 documents of 20 words each: a build that reads them in 16 stretches.
    const n = 16_000;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      const words: string[] = [];
      for (let w = 0; w < 20; w++) words.push(`w${(i * 7 + w * 13) % 5_000}`);
      lines.push(`doc${i}\t${words.join(' ')}`);
    }
    expect(
      (
        await api.call('POST', '/api/collections?name=big&format=tsv', {
          ...admin(),
          body: lines.join('\n'),
        })
      ).status,
    ).toBe(201);
    const started = await api.call('POST', '/api/collections/big/index', admin());
    expect(started.status).toBe(202);
    const first = (await started.json()) as Record<string, unknown>;
    expect(first).toMatchObject({ state: 'building', collection: 'big', documentsRead: 0 });

    // A second build while this one runs: refused, naming the running build.
    const second = await api.call('POST', '/api/collections/big/index', admin());
    expect(second.status).toBe(409);
    expect((await errorOf(second)).message).toMatch(
      new RegExp(
        `^the on-disk index of collection "big" is being built \\(started at ${String(first.startedAt).replace(/[.]/g, '\\.')}, \\d+ documents read so far\\)$`,
      ),
    );

    // While it reads the documents, the server answers: health, and the state with the
    // documents read so far, seen between none and all of them.
    const seen: number[] = [];
    let healthy = 0;
    for (;;) {
      const [health, state] = await Promise.all([
        api.call('GET', '/api/health'),
        indexState('big'),
      ]);
      expect(health.status).toBe(200);
      if (state.state !== 'building') {
        expect(state).toMatchObject({ state: 'ready', documents: n, fresh: true });
        break;
      }
      healthy++;
      seen.push(state.documentsRead as number);
      expect(state.startedAt).toBe(first.startedAt);
    }
    expect(healthy).toBeGreaterThan(0);
    expect(seen.some((d) => d > 0 && d < n)).toBe(true);
    // Documents read never go back.
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
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
