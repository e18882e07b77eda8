import { MemoryCallStore } from '@assay/llm';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@assay/test-support/openai-test-server';
import { query2docSparseQuery, retrieveWithModels, SearchServiceError } from '../src/index.js';
import { resources, startDouble, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('query2doc', () => {
  it('repeats the query five times before the pseudo-document', () => {
    expect(query2docSparseQuery('a b', 'doc text')).toBe('a b a b a b a b a b doc text');
  });

  it('sends the prompt of methods/query2doc.md, searches the expanded query, reruns for free', async () => {
    server = await startDouble(() => ({ reply: '  gamma facts  ' }));
    const store = new MemoryCallStore();
    const topics = [{ id: 't1', text: 'beta' }];
    const first = await retrieveWithModels(topics, resources(server, store), {
      method: 'query2doc',
      k: 10,
    });
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.body;
    expect(body.model).toBe('m');
    expect(body.temperature).toBe(0);
    expect(body.max_tokens).toBe(128);
    expect(body.messages).toEqual([
      {
        role: 'system',
        content:
          'You write short encyclopedic passages. Answer with the passage only: no title, no preamble, no list.',
      },
      {
        role: 'user',
        content:
          'Write a passage of a few sentences that answers the search query below, the way a relevant\n' +
          'document in a collection would. State concrete facts, names and terms a relevant document\n' +
          'would contain.\n\nQuery: beta',
      },
    ]);
    expect(first.trace).toEqual([
      {
        topic: 't1',
        method: 'query2doc',
        step: 'pseudo-document',
        prompt: 'query2doc',
        text: 'gamma facts',
        cached: false,
      },
      {
        topic: 't1',
        method: 'query2doc',
        step: 'query',
        text: 'beta beta beta beta beta gamma facts',
      },
    ]);
    // "beta" (5 times) matches d1 and d2, "gamma" matches d3: all three come back, and the
    // query's own term outweighs the single pseudo-document term.
    const docnos = first.run.topics.get('t1')!.map((e) => e.docno);
    expect(docnos.slice(0, 2)).toEqual(['d2', 'd1']);
    expect(docnos).toContain('d3');
    expect(first.parameters).toMatchObject({
      method: 'query2doc',
      model: 'm',
      'query2doc.query-repeats': 5,
    });

    const second = await retrieveWithModels(topics, resources(server, store), {
      method: 'query2doc',
      k: 10,
    });
    expect(server.requests).toHaveLength(1);
    expect(second.run).toEqual(first.run);
    expect(second.trace[0]!.cached).toBe(true);
    expect(second.spend.calls).toBe(0);
  });

  it('a search service that fails stops the run only once the calls in flight are answered, and starts no other topic', async () => {
    // Topic 2's pseudo-document takes 300 ms; topic 1's search fails as soon as it is made.
    server = await startDouble((user) =>
      user.endsWith('Query: slow') ? { delayMs: 300, then: { reply: 'beta' } } : { reply: 'beta' },
    );
    const r = resources(server, new MemoryCallStore());
    r.search = {
      hasTerm: () => true,
      search: (query) =>
        query.startsWith('down')
          ? Promise.reject(new SearchServiceError('http://search:9200 cannot be reached'))
          : Promise.resolve([{ docno: 'd1', score: 1 }]),
    };
    const topics = [
      { id: 't1', text: 'down' },
      { id: 't2', text: 'slow' },
      { id: 't3', text: 'later' },
    ];
    const failed = await retrieveWithModels(topics, r, {
      method: 'query2doc',
      k: 10,
      concurrency: 2,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(SearchServiceError);
    // When the run stops, topic 2's call has been answered (nothing is left in flight) ...
    expect(server.delivered.map((q) => userMessage(q.body).split('Query: ')[1])).toEqual([
      'down',
      'slow',
    ]);
    // ... and topic 3 was never started.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(server.requests).toHaveLength(2);
  });

  it('dense: embeds "query [SEP] pseudo-document"', async () => {
    server = await startDouble(() => ({ reply: 'about gamma' }), {
      'alpha beta': [1, 0],
      beta: [0, 1],
      gamma: [1, 1],
      'beta [SEP] about gamma': [1, 1],
    });
    const run = await retrieveWithModels(
      [{ id: 't1', text: 'beta' }],
      resources(server, new MemoryCallStore(), { embeddingModel: 'e' }),
      { method: 'query2doc', settings: { aggregation: 'dense' }, k: 2 },
    );
    const inputs = server.requests
      .filter((r) => r.path.endsWith('/embeddings'))
      .map((r) => r.body.input);
    expect(inputs).toEqual([['alpha beta', 'beta', 'gamma'], ['beta [SEP] about gamma']]);
    // [1,1] is parallel to d3's vector: cosine 1, then d1 and d2 at 1/√2 (docno desc).
    const entries = run.run.topics.get('t1')!;
    expect(entries.map((e) => e.docno)).toEqual(['d3', 'd2']);
    expect(entries[0]!.score).toBeCloseTo(1, 6);
    expect(entries[1]!.score).toBeCloseTo(Math.SQRT1_2, 6);
  });
});
