import { MemoryCallStore, OpenAIChatClient } from '@assay/llm';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import {
  ask,
  askPrompt,
  firstAttemptOf,
  parseMethodPrompt,
  renderPrompt,
  UnusableAnswerError,
} from '../src/index.js';

const PROMPT = `---
id: pick
method: demo
step: choose
paper: A paper (2024)
description: Picks a word
variables: [query]
model: { temperature: 0, max_tokens: 20 }
output:
  schema:
    type: object
    additionalProperties: false
    required: [word]
    properties:
      word: { type: string }
system: Answer with JSON.
---
Pick one word from: {{query}}
`;

const noWait = { sleep: async () => {}, random: () => 0 };
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('method prompt files', () => {
  it('parses the front matter and renders values verbatim', () => {
    const prompt = parseMethodPrompt(PROMPT, 'pick.md');
    expect(prompt).toMatchObject({
      id: 'pick',
      method: 'demo',
      step: 'choose',
      source: 'A paper (2024)',
    });
    expect(prompt.model).toEqual({ temperature: 0, maxTokens: 20 });
    expect(renderPrompt(prompt, { query: 'a $& {{query}}' }).user).toBe(
      'Pick one word from: a $& {{query}}',
    );
    expect(() => renderPrompt(prompt, {})).toThrow('no value for {{query}}');
    expect(() => renderPrompt(prompt, { query: 'x', other: 'y' })).toThrow('no variable {{other}}');
  });

  it('rejects a prompt that uses an undeclared variable', () => {
    expect(() =>
      parseMethodPrompt(PROMPT.replace('{{query}}', '{{query}} {{topic}}'), 'p.md'),
    ).toThrow("p.md: the prompt uses '{{topic}}' but does not declare it");
  });
});

describe('rounds of asking', () => {
  it('numbers the attempts of each round after the last round stopped', () => {
    // n attempts a round: round r starts at r·n + 1.
    expect(firstAttemptOf({})).toBe(1);
    expect(firstAttemptOf({}, 1)).toBe(4);
    expect(firstAttemptOf({}, 2)).toBe(7);
    expect(firstAttemptOf({ maxParseAttempts: 2 }, 2)).toBe(5);
  });

  it('asks a later round anew: new seeds, none of the stored unusable answers read again', async () => {
    server = await startOpenAITestServer(() => ({ reply: 'not json' }));
    const store = new MemoryCallStore();
    const client = new OpenAIChatClient({ baseURL: server.baseURL });
    const prompt = parseMethodPrompt(PROMPT);
    const read = () => ({ ok: false as const, reason: 'unusable' });
    const deps = { store, ...noWait };
    const values = { query: 'red blue' };
    await expect(askPrompt(client, prompt, values, { model: 'm' }, deps, read)).rejects.toThrow(
      'after 3 attempts',
    );
    // Round 0 again: every request is stored, nothing is sent.
    await expect(askPrompt(client, prompt, values, { model: 'm' }, deps, read)).rejects.toThrow(
      'after 3 attempts',
    );
    expect(server.requests).toHaveLength(3);
    // Round 1: attempts 4 to 6; with a seed of its own (10), 10 + 3 … 10 + 5.
    await expect(askPrompt(client, prompt, values, { model: 'm' }, deps, read, 1)).rejects.toThrow(
      'after 3 attempts',
    );
    await expect(
      askPrompt(client, prompt, values, { model: 'm', seed: 10 }, deps, read, 1),
    ).rejects.toThrow('after 3 attempts');
    expect(server.requests.map((r) => r.body.seed)).toEqual([undefined, 2, 3, 4, 5, 6, 13, 14, 15]);
  });
});

describe('ask against the test double', () => {
  it('re-asks a malformed answer with a new seed, then reports the topic-level reason', async () => {
    server = await startOpenAITestServer(() => ({ reply: 'not json' }));
    const store = new MemoryCallStore();
    const client = new OpenAIChatClient({ baseURL: server.baseURL });
    const prompt = parseMethodPrompt(PROMPT);
    const failure = ask(
      client,
      prompt,
      { query: 'red blue' },
      { model: 'm' },
      { store, ...noWait },
    );
    await expect(failure).rejects.toBeInstanceOf(UnusableAnswerError);
    await expect(failure).rejects.toThrow(
      'pick: unusable answer after 3 attempts: answer is not JSON',
    );
    expect(server.requests.map((r) => r.body.seed)).toEqual([undefined, 2, 3]);
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'Answer with JSON.' },
      { role: 'user', content: 'Pick one word from: red blue' },
    ]);
  });

  it('accepts the second answer when the first misses the schema; a rerun sends nothing', async () => {
    server = await startOpenAITestServer((_, n) =>
      n === 1 ? { reply: '{"words": 1}' } : { reply: '```json\n{"word": "red"}\n```' },
    );
    const store = new MemoryCallStore();
    const client = new OpenAIChatClient({ baseURL: server.baseURL });
    const prompt = parseMethodPrompt(PROMPT);
    const answer = await ask(
      client,
      prompt,
      { query: 'red blue' },
      { model: 'm' },
      { store, ...noWait },
    );
    expect(answer.json).toEqual({ word: 'red' });
    expect(server.requests).toHaveLength(2);
    const again = await ask(
      client,
      prompt,
      { query: 'red blue' },
      { model: 'm' },
      { store, ...noWait },
    );
    expect(again).toMatchObject({ json: { word: 'red' }, cached: true });
    expect(server.requests).toHaveLength(2);
  });
});
