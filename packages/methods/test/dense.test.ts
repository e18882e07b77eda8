import { MemoryCallStore } from '@assay/llm';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@assay/test-support/openai-test-server';
import { DenseIndex, estimateModelRun, retrieveWithModels } from '../src/index.js';
import { DOCS, PROMPTS, resources, startDouble } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const VECTORS = { 'alpha beta': [1, 0], beta: [0, 1], gamma: [1, 1], 'what about alpha': [3, 1] };

describe('DenseIndex', () => {
  it('ranks by exact cosine, ties by docno descending', () => {
    const index = new DenseIndex(
      ['a', 'b', 'c'],
      [Float32Array.from([2, 0]), Float32Array.from([0, 5]), Float32Array.from([0, 1])],
    );
    const hits = index.search(Float32Array.from([0, 3]), 3);
    expect(hits.map((h) => h.docno)).toEqual(['c', 'b', 'a']);
    expect(hits.map((h) => h.score)).toEqual([1, 1, 0]);
    expect(() => index.search(Float32Array.from([1]), 1)).toThrow('query has 1 dimensions, not 2');
  });

  it('returns what scoring and sorting every document returns (seeded random vectors)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
    // Continuous values: exact ties are the previous test's business (here float rounding
    // of equal cosines would decide them).
    const vec = () => Float32Array.from({ length: 8 }, () => random());
    const vectors = Array.from({ length: 300 }, vec);
    const docnos = vectors.map((_, i) => `doc${(i * 37) % 300}`);
    const index = new DenseIndex(docnos, vectors);
    for (let t = 0; t < 20; t++) {
      const q = vec();
      const norm = (v: Float32Array) => Math.hypot(...v);
      const expected = vectors
        .map((v, i) => ({
          docno: docnos[i]!,
          score: norm(v) === 0 ? 0 : v.reduce((s, x, j) => s + x * q[j]!, 0) / (norm(v) * norm(q)),
        }))
        .sort((a, b) => b.score - a.score || (a.docno < b.docno ? 1 : -1))
        .slice(0, 25);
      const got = index.search(q, 25);
      expect(got.map((h) => h.docno)).toEqual(expected.map((h) => h.docno));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 5));
    }
  });
});

describe('dense and hybrid', () => {
  it('puts the E5 prefixes before documents and queries', async () => {
    server = await startDouble(() => ({ status: 400 }), {
      'passage: alpha beta': [1, 0],
      'passage: beta': [0, 1],
      'passage: gamma': [1, 1],
      'query: beta': [0, 1],
    });
    const r = resources(server, new MemoryCallStore(), { embeddingModel: 'e' });
    r.embeddings = { ...r.embeddings!, queryPrefix: 'query: ', passagePrefix: 'passage: ' };
    const result = await retrieveWithModels([{ id: 't1', text: 'beta' }], r, {
      method: 'dense',
      k: 3,
    });
    expect(server.requests.map((q) => q.body.input)).toEqual([
      ['passage: alpha beta', 'passage: beta', 'passage: gamma'],
      ['query: beta'],
    ]);
    // [0, 1] against d2 [0, 1] (1), d3 [1, 1] (0.707), d1 [1, 0] (0).
    expect(result.run.topics.get('t1')!.map((e) => e.docno)).toEqual(['d2', 'd3', 'd1']);
  });

  it('dense: the query embedding against the collection; a rerun embeds nothing', async () => {
    server = await startDouble(() => ({ status: 400 }), VECTORS);
    const store = new MemoryCallStore();
    const topics = [{ id: 't1', text: 'what about alpha' }];
    const first = await retrieveWithModels(
      topics,
      resources(server, store, { embeddingModel: 'e' }),
      {
        method: 'dense',
        k: 3,
      },
    );
    // [3,1]: cos with d1 [1,0] = 3/√10, with d3 [1,1] = 4/√20, with d2 [0,1] = 1/√10.
    const entries = first.run.topics.get('t1')!;
    expect(entries.map((e) => e.docno)).toEqual(['d1', 'd3', 'd2']);
    expect(entries.map((e) => e.score)).toEqual([
      expect.closeTo(3 / Math.sqrt(10), 6),
      expect.closeTo(4 / Math.sqrt(20), 6),
      expect.closeTo(1 / Math.sqrt(10), 6),
    ]);
    expect(first.parameters['embedding-model']).toBe('e');
    expect(server.requests).toHaveLength(2);
    await retrieveWithModels(topics, resources(server, store, { embeddingModel: 'e' }), {
      method: 'dense',
      k: 3,
    });
    expect(server.requests).toHaveLength(2);
  });

  it('hybrid: RRF (k = 60) of BM25 and dense', async () => {
    server = await startDouble(() => ({ status: 400 }), VECTORS);
    const result = await retrieveWithModels(
      [{ id: 't1', text: 'what about alpha' }],
      resources(server, new MemoryCallStore(), { embeddingModel: 'e' }),
      { method: 'hybrid', k: 3 },
    );
    // BM25 of "what about alpha": only d1 has "alpha" → [d1]. Dense: [d1, d3, d2].
    // d1: 1/61 + 1/61, d3: 1/62, d2: 1/63.
    const entries = result.run.topics.get('t1')!;
    expect(entries.map((e) => e.docno)).toEqual(['d1', 'd3', 'd2']);
    expect(entries.map((e) => e.score)).toEqual([
      expect.closeTo(2 / 61, 12),
      expect.closeTo(1 / 62, 12),
      expect.closeTo(1 / 63, 12),
    ]);
  });

  it('an embeddings failure fails the method before any topic, with the reason', async () => {
    server = await startDouble(() => ({ status: 400 }), {});
    await expect(
      retrieveWithModels(
        [{ id: 't1', text: 'x' }],
        resources(server, new MemoryCallStore(), { embeddingModel: 'e' }),
        { method: 'dense', k: 3 },
      ),
    ).rejects.toThrow("no vector for 'alpha beta'");
  });
});

describe('dry-run estimate', () => {
  it('counts five chat calls a topic for amd, four without feedback, one for query2doc', () => {
    const topics = [
      { id: 'a', text: 'a' },
      { id: 'b', text: 'b' },
    ];
    expect(estimateModelRun(topics, PROMPTS, { method: 'amd' }).chatCalls).toBe(10);
    expect(estimateModelRun(topics, PROMPTS, { method: 'amd', settings: { feedback: false } }).chatCalls).toBe(8);
    const q2d = estimateModelRun(topics, PROMPTS, { method: 'query2doc', model: 'gpt-4o-mini' });
    expect(q2d.chatCalls).toBe(2);
    // Completions are counted at max_tokens (128 for query2doc).
    expect(q2d.completionTokens).toBe(256);
    expect(q2d.costUsd).toBeCloseTo((q2d.promptTokens * 0.15 + 256 * 0.6) / 1e6, 12);
    const dense = estimateModelRun(topics, PROMPTS, { method: 'dense', documents: DOCS });
    expect(dense).toMatchObject({ chatCalls: 0, embeddedTexts: 5, embeddingRequests: 3 });
    expect(dense.costUsd).toBeUndefined();
  });
});
