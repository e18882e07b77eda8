import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCallStore, OpenAIChatClient, RateLimiter } from '@assay/llm';
import { loadJudgeTemplates, judgeItem, type JudgeDeps } from '../src/index.js';
import {
  startOpenAITestServer,
  type Behaviour,
  type TestServer,
} from '@assay/test-support/openai-test-server';

const JUDGES = fileURLToPath(new URL('../../../judges/', import.meta.url));
const templates = loadJudgeTemplates(JUDGES);
const umbrela = templates.get('graded-0-3')!;
const item = {
  query: 'how long do tortoises live',
  passage: 'Tortoises often live 80 to 150 years.',
};
const settings = { model: 'gpt-4o-mini' };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(
  script: (body: Record<string, unknown>, n: number) => Behaviour,
  timeoutMs = 2000,
) {
  server = await startOpenAITestServer(script);
  const sleeps: number[] = [];
  const deps: JudgeDeps = {
    client: new OpenAIChatClient({ baseURL: server.baseURL, apiKey: 'test-key', timeoutMs }),
    store: new MemoryCallStore(),
    // Record waits instead of sleeping them, so retry tests are fast and exact.
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
  };
  return { server, deps, sleeps };
}

const ok = (grade: number): Behaviour => ({
  reply: JSON.stringify({ intent_match: 2, trustworthiness: 2, grade }),
});

describe('judging against an OpenAI-compatible endpoint (test double)', () => {
  it('labels an item with structured output and records the call', async () => {
    const { server, deps } = await setup(() => ok(3));
    const outcome = await judgeItem(umbrela, item, settings, deps);
    expect(outcome.status).toBe('labelled');
    if (outcome.status !== 'labelled') return;
    expect(outcome.judgment.grade).toBe(3);
    expect(outcome.cached).toBe(false);
    const sent = server.requests[0]!;
    expect(sent.authorization).toBe('Bearer test-key');
    expect((sent.body.response_format as { type: string }).type).toBe('json_schema');
    const user = (sent.body.messages as Array<{ content: string }>)[1]!.content;
    expect(user).toContain(item.passage);
    // gpt-4o-mini: 100 prompt tokens at $0.15/M + 10 completion tokens at $0.60/M
    expect(outcome.call.costUsd).toBeCloseTo((100 * 0.15 + 10 * 0.6) / 1e6, 15);
  });

  it('never pays twice: a rerun of the same request is answered from the store', async () => {
    const { server, deps } = await setup(() => ok(2));
    await judgeItem(umbrela, item, settings, deps);
    const again = await judgeItem(umbrela, item, settings, deps);
    expect(server.requests).toHaveLength(1);
    expect(again.status === 'labelled' && again.cached).toBe(true);
    expect(again.paidCalls).toHaveLength(0);
  });

  it('retries 429 honouring Retry-After, and 500 with backoff', async () => {
    const { server, deps, sleeps } = await setup((_b, n) =>
      n === 1 ? { status: 429, retryAfter: '2' } : n === 2 ? { status: 500 } : ok(1),
    );
    const outcome = await judgeItem(umbrela, item, settings, deps);
    expect(outcome.status).toBe('labelled');
    expect(server.requests).toHaveLength(3);
    // 2 s from Retry-After; then full jitter over 500·2^1 ms with random() = 0.5 → 500 ms.
    expect(sleeps).toEqual([2000, 500]);
  });

  it('retries a dropped connection, a malformed body and an answer past the timeout', async () => {
    const { server, deps } = await setup(
      (_b, n) =>
        n === 1
          ? { drop: true }
          : n === 2
            ? { malformedBody: true }
            : n === 3
              ? { delayMs: 1000, then: ok(2) }
              : ok(2),
      300,
    );
    const outcome = await judgeItem(umbrela, item, settings, deps);
    expect(outcome.status).toBe('labelled');
    expect(server.requests.length).toBe(4);
  });

  it('asks again when the answer cannot be read, then fails with the raw text — never a 0', async () => {
    const { server, deps } = await setup(() => ({ reply: 'I think this passage is quite good.' }));
    const outcome = await judgeItem(umbrela, item, { ...settings, maxParseAttempts: 3 }, deps);
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.raw).toBe('I think this passage is quite good.');
    expect(outcome.reason).toMatch(/unreadable answer after 3 attempts/);
    expect(server.requests).toHaveLength(3);
    // Each re-ask is a different request (seed), so the store does not return the bad answer.
    expect(server.requests.map((r) => r.body.seed)).toEqual([undefined, 2, 3]);
  });

  it('an unreadable answer whose re-ask fails is reported as the unreadable answer, with it', async () => {
    const { server, deps } = await setup((_b, n) =>
      n === 1 ? { reply: '{"grade": 0}' } : { status: 401, message: 'bad key' },
    );
    const outcome = await judgeItem(umbrela, item, settings, deps);
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.reason).toMatch(
      /^unreadable answer: the answer does not match the schema: \$\.intent_match is missing; asked again: HTTP 401: /,
    );
    expect(outcome.raw).toBe('{"grade": 0}');
    // The endpoint ended it: callers that tell the two apart see an endpoint failure.
    expect(outcome.cause).toBe('endpoint');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up on errors that retrying cannot fix, recording the failure', async () => {
    const { server, deps } = await setup(() => ({ status: 401, message: 'bad key' }));
    const outcome = await judgeItem(umbrela, item, settings, deps);
    expect(outcome.status).toBe('failed');
    expect(server.requests).toHaveLength(1);
    expect((deps.store as MemoryCallStore).records[0]!.error).toMatch(/401/);
  });

  it('falls back to text when the endpoint rejects response_format', async () => {
    const { server, deps } = await setup((body) =>
      body.response_format
        ? { status: 400, message: 'response_format is not supported' }
        : { reply: 'Reasoning...\nfinal score: 2' },
    );
    const outcome = await judgeItem(umbrela, item, settings, deps);
    expect(outcome.status === 'labelled' && outcome.judgment).toMatchObject({
      grade: 2,
      via: 'text',
    });
    expect(server.requests).toHaveLength(2);
    expect((deps.client as OpenAIChatClient).usesStructuredOutput).toBe(false);
  });

  it('keeps the grade distribution from log-probabilities', async () => {
    const tokens = [
      '{"',
      'intent',
      '_match',
      '":',
      '2',
      ',"',
      'trust',
      'worthiness',
      '":',
      '2',
      ',"',
      'grade',
      '":',
      '3',
      '}',
    ];
    const logprobs = tokens.map((token, i) => ({
      token,
      logprob: i === 13 ? Math.log(0.6) : 0,
      bytes: null,
      top_logprobs:
        i === 13
          ? [
              { token: '3', logprob: Math.log(0.6), bytes: null },
              { token: '2', logprob: Math.log(0.3), bytes: null },
              { token: '1', logprob: Math.log(0.05), bytes: null },
              { token: 'x', logprob: Math.log(0.05), bytes: null },
            ]
          : [],
    }));
    const { deps } = await setup(() => ({ reply: tokens.join(''), logprobs }));
    const outcome = await judgeItem(umbrela, item, { ...settings, logprobs: true }, deps);
    expect(outcome.status).toBe('labelled');
    if (outcome.status !== 'labelled') return;
    // 0.6 : 0.3 : 0.05 over the grades seen, normalised by 0.95 ('x' is not a grade).
    expect(outcome.distribution![3]).toBeCloseTo(0.6 / 0.95, 12);
    expect(outcome.distribution![2]).toBeCloseTo(0.3 / 0.95, 12);
    expect(outcome.distribution![1]).toBeCloseTo(0.05 / 0.95, 12);
  });

  it('never has more calls in flight than the concurrency limit', async () => {
    let inFlight = 0;
    let most = 0;
    server = await startOpenAITestServer(() => ({
      delayMs: 30,
      reply: JSON.stringify({ intent_match: 1, trustworthiness: 1, grade: 1 }),
    }));
    const limiter = new RateLimiter({ concurrency: 3 });
    const client = new OpenAIChatClient({ baseURL: server.baseURL });
    const counting = {
      complete: async (req: Parameters<OpenAIChatClient['complete']>[0]) => {
        most = Math.max(most, ++inFlight);
        try {
          return await client.complete(req);
        } finally {
          inFlight--;
        }
      },
    };
    const deps: JudgeDeps = { client: counting, store: new MemoryCallStore(), limiter };
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        judgeItem(umbrela, { ...item, passage: `passage ${i}` }, settings, deps),
      ),
    );
    expect(outcomes.every((o) => o.status === 'labelled')).toBe(true);
    expect(most).toBe(3);
    expect(server.requests).toHaveLength(12);
  });
});
