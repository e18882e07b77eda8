import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { requestSignal } from '../src/abort-fanout.js';
import { OpenAIChatClient } from '../src/index.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('one stop signal shared by many requests', () => {
  it('carries one listener however many requests hang on it, and aborts them all', () => {
    const stop = new AbortController();
    const requests = Array.from({ length: 25 }, () => requestSignal(stop.signal));
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    // A request that finished is no longer aborted with the others.
    requests[0]!.release();
    stop.abort(new Error('stopped'));
    expect(requests[0]!.signal.aborted).toBe(false);
    expect(requests.slice(1).every((r) => r.signal.aborted)).toBe(true);
    expect((requests[1]!.signal.reason as Error).message).toBe('stopped');
    // Asked for after the stop: aborted at once.
    expect(requestSignal(stop.signal).signal.aborted).toBe(true);
  });

  it('sends 15 chat requests at once on one signal without a listener each', async () => {
    server = await startOpenAITestServer(() => ({ reply: '2', delayMs: 150 }));
    const client = new OpenAIChatClient({ baseURL: server.baseURL, apiKey: 'k' });
    const stop = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const calls = Array.from({ length: 15 }, (_, i) =>
        client.complete(
          { model: 'm', messages: [{ role: 'user', content: `item ${i}` }] },
          { signal: stop.signal },
        ),
      );
      // All 15 are in flight at the double (it answers after 150 ms).
      while (server.requests.length < 15) await new Promise((r) => setTimeout(r, 5));
      expect(getEventListeners(stop.signal, 'abort').length).toBeLessThanOrEqual(1);
      const answers = await Promise.all(calls);
      expect(answers.map((a) => a.content)).toEqual(Array(15).fill('2'));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('still cuts every request off when the shared signal aborts', async () => {
    server = await startOpenAITestServer(() => ({ reply: '1', delayMs: 5_000 }));
    const client = new OpenAIChatClient({ baseURL: server.baseURL, apiKey: 'k' });
    const stop = new AbortController();
    const calls = Array.from({ length: 12 }, (_, i) =>
      client
        .complete(
          { model: 'm', messages: [{ role: 'user', content: `item ${i}` }] },
          { signal: stop.signal },
        )
        .then(
          () => 'answered',
          () => 'cut off',
        ),
    );
    while (server.requests.length < 12) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    stop.abort();
    expect(await Promise.all(calls)).toEqual(Array(12).fill('cut off'));
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
