import { MemoryCallStore } from '@assay/llm';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '@assay/test-support/openai-test-server';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import {
  chatCall,
  ChatCallError,
  EmbeddingClient,
  ImpossibleUsageError,
  LlmHttpError,
  OpenAIChatClient,
  postJson,
  RerankClient,
  type ChatRequest,
} from '../src/index.js';

const noWait = { sleep: async () => {}, random: () => 0 };
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A deterministic vector per text: [length, number of 'a's]. */
function vectorOf(text: string): number[] {
  return [text.length, [...text].filter((c) => c === 'a').length];
}
function embeddingsAnswer(body: Record<string, unknown>): Behaviour {
  const input = body.input as string[];
  return {
    json: {
      object: 'list',
      data: input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })),
      usage: { prompt_tokens: 7, total_tokens: 7 },
    },
  };
}

describe('EmbeddingClient against the test double', () => {
  it('sends only unseen texts, batches them, and a rerun sends zero requests', async () => {
    server = await startOpenAITestServer((body) => embeddingsAnswer(body));
    const store = new MemoryCallStore();
    const client = new EmbeddingClient(
      { baseURL: server.baseURL, apiKey: 'k' },
      { store, ...noWait },
      { batchSize: 2 },
    );
    const vectors = await client.embed('e5', ['aa', 'b', 'aa', 'ccc']);
    expect(vectors.map((v) => [...v])).toEqual([
      [2, 2],
      [1, 0],
      [2, 2],
      [3, 0],
    ]);
    // Three distinct texts in batches of two: two requests, the path and body as sent.
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/embeddings']);
    expect(server.requests.map((r) => r.body)).toEqual([
      { model: 'e5', input: ['aa', 'b'] },
      { model: 'e5', input: ['ccc'] },
    ]);
    expect(server.requests[0]!.authorization).toBe('Bearer k');

    // A new client (a new process) on the same store: nothing is sent.
    const again = new EmbeddingClient({ baseURL: server.baseURL }, { store, ...noWait });
    const second = await again.embed('e5', ['ccc', 'aa']);
    expect(second.map((v) => [...v])).toEqual([
      [3, 0],
      [2, 2],
    ]);
    expect(server.requests).toHaveLength(2);
    // The cache key includes the model: another model is asked.
    await again.embed('other', ['aa']);
    expect(server.requests).toHaveLength(3);
  });

  it('retries 429 (honouring Retry-After), 500, a dropped connection and a malformed body', async () => {
    const waits: number[] = [];
    server = await startOpenAITestServer((body, n) =>
      n === 1
        ? { status: 429, retryAfter: '2' }
        : n === 2
          ? { status: 500 }
          : n === 3
            ? { drop: true }
            : n === 4
              ? { malformedBody: true }
              : embeddingsAnswer(body),
    );
    const store = new MemoryCallStore();
    const client = new EmbeddingClient(
      { baseURL: server.baseURL },
      { store, sleep: async (ms) => void waits.push(ms), random: () => 0.5 },
    );
    const [v] = await client.embed('e5', ['abc']);
    expect([...v!]).toEqual([3, 1]);
    expect(server.requests).toHaveLength(5);
    // 2 s from Retry-After, then half of 0.5·2^(n-1) s with random 0.5.
    expect(waits).toEqual([2000, 500, 1000, 2000]);
  });

  it('fails on a 400 at once, records the failure, and a later run asks again', async () => {
    server = await startOpenAITestServer(() => ({ status: 400, message: 'bad model' }));
    const store = new MemoryCallStore();
    const client = new EmbeddingClient({ baseURL: server.baseURL }, { store, ...noWait });
    await expect(client.embed('e5', ['x'])).rejects.toThrow(/HTTP 400 .*bad model/);
    expect(server.requests).toHaveLength(1);
    expect(store.records.map((r) => r.error !== undefined)).toEqual([true]);
    await expect(client.embed('e5', ['x'])).rejects.toBeInstanceOf(LlmHttpError);
    expect(server.requests).toHaveLength(2);
  });

  it('rejects an answer with the wrong number of vectors (retried, then reported)', async () => {
    server = await startOpenAITestServer(() => ({ json: { data: [] } }));
    const client = new EmbeddingClient(
      { baseURL: server.baseURL },
      {
        store: new MemoryCallStore(),
        ...noWait,
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      },
    );
    await expect(client.embed('e5', ['x'])).rejects.toThrow(
      'embeddings answer has 0 vectors for 1 texts',
    );
    expect(server.requests).toHaveLength(2);
  });
});

describe('RerankClient against the test double', () => {
  it('posts query and documents to /v1/rerank, orders by score, and reruns from the store', async () => {
    server = await startOpenAITestServer((_, n) =>
      n === 1
        ? { status: 503 }
        : {
            json: {
              results: [
                { index: 0, relevance_score: 0.1 },
                { index: 2, relevance_score: 0.9 },
                { index: 1, relevance_score: 0.9 },
              ],
            },
          },
    );
    const store = new MemoryCallStore();
    const client = new RerankClient({ baseURL: server.baseURL }, { store, ...noWait });
    const results = await client.rerank('minilm', 'q', ['d0', 'd1', 'd2']);
    // Equal scores: the lower index first.
    expect(results).toEqual([
      { index: 1, score: 0.9 },
      { index: 2, score: 0.9 },
      { index: 0, score: 0.1 },
    ]);
    expect(server.requests.map((r) => [r.path, r.body])).toEqual([
      ['/v1/rerank', { model: 'minilm', query: 'q', documents: ['d0', 'd1', 'd2'] }],
      ['/v1/rerank', { model: 'minilm', query: 'q', documents: ['d0', 'd1', 'd2'] }],
    ]);
    await new RerankClient({ baseURL: server.baseURL }, { store, ...noWait }).rerank(
      'minilm',
      'q',
      ['d0', 'd1', 'd2'],
    );
    expect(server.requests).toHaveLength(2);
  });

  it('reports an answer that scores a document twice', async () => {
    server = await startOpenAITestServer(() => ({
      json: {
        results: [
          { index: 0, relevance_score: 1 },
          { index: 0, relevance_score: 1 },
        ],
      },
    }));
    const client = new RerankClient(
      { baseURL: server.baseURL },
      {
        store: new MemoryCallStore(),
        ...noWait,
        retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      },
    );
    await expect(client.rerank('m', 'q', ['a', 'b'])).rejects.toThrow('malformed result');
  });
});

describe("chat calls and the caller's signal", () => {
  it('keeps one listener on the signal however many requests it carried, and still cuts off on abort', async () => {
    server = await startOpenAITestServer((_body, n) =>
      n <= 12 ? { reply: 'ok' } : { delayMs: 10_000, then: { reply: 'late' } },
    );
    const client = new OpenAIChatClient({ baseURL: server.baseURL, apiKey: 'k' });
    const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    const signal = new AbortController();
    for (let i = 0; i < 12; i++) await client.complete(request, { signal: signal.signal });
    // The openai package leaves its listener on the signal it is given: twelve requests on
    // the caller's signal would leave twelve. Each request has a signal of its own instead.
    expect(getEventListeners(signal.signal, 'abort')).toHaveLength(1);
    // The thirteenth is held by the double: aborting the caller's signal cuts it off.
    const held = client.complete(request, { signal: signal.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(getEventListeners(signal.signal, 'abort')).toHaveLength(1);
    signal.abort();
    await expect(held).rejects.toThrow();
    expect(getEventListeners(signal.signal, 'abort')).toHaveLength(0);
  });
});

describe('chat calls under faults', () => {
  const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

  it('refuses an answer larger than the limit without reading it whole, and does not retry it', async () => {
    server = await startOpenAITestServer(() => ({ hugeBody: 64 * 1024 * 1024 }));
    const store = new MemoryCallStore();
    const client = new OpenAIChatClient({ baseURL: server.baseURL, maxResponseBytes: 1024 * 1024 });
    const error = await chatCall(client, request, { store, ...noWait }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatCallError);
    expect((error as Error).message).toBe(
      `${server.baseURL}: the answer is larger than 1 MiB; it was not read`,
    );
    expect(server.requests).toHaveLength(1);
    expect(store.records.map((r) => r.error)).toEqual([(error as Error).message]);
  });

  it('refuses impossible token usage (negative, too large, fractional) as a failed call, not retried', async () => {
    for (const usage of [
      { promptTokens: -1e12 },
      { completionTokens: 2 ** 31 },
      { promptTokens: 2.5 },
    ]) {
      server = await startOpenAITestServer(() => ({ reply: 'fine', ...usage }));
      const store = new MemoryCallStore();
      const client = new OpenAIChatClient({ baseURL: server.baseURL });
      const error = await chatCall(client, request, { store, ...noWait }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImpossibleUsageError);
      expect(server.requests).toHaveLength(1);
      expect(store.records).toHaveLength(1);
      expect(store.records[0]).toMatchObject({ promptTokens: 0, completionTokens: 0 });
      expect(store.records[0]!.response).toBeUndefined();
      // Nothing answered is stored: a rerun asks again.
      expect(await store.get(store.records[0]!.hash)).toBeUndefined();
      await server.close();
      server = undefined;
    }
  });

  it('names the URL of an endpoint that refuses connections, and marks it unreachable', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const client = new OpenAIChatClient({ baseURL: `http://127.0.0.1:${port}/v1` });
    const error = await client.complete(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatCallError);
    expect((error as ChatCallError).unreachable).toBe(true);
    expect((error as Error).message).toBe(
      `connection failed: cannot reach http://127.0.0.1:${port}/v1 (ECONNREFUSED)`,
    );
  });

  it('postJson refuses a body larger than its limit', async () => {
    server = await startOpenAITestServer(() => ({ hugeBody: 8 * 1024 * 1024 }));
    const error = await postJson(
      { baseURL: server.baseURL, maxResponseBytes: 1024 * 1024 },
      '/embeddings',
      {},
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmHttpError);
    expect((error as LlmHttpError).failure.retryable).toBe(false);
    expect((error as Error).message).toBe(
      '/embeddings: the answer is larger than 1 MiB; it was not read',
    );
  });
});
