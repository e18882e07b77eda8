import { MemoryCallStore, OpenAIChatClient } from '@assay/llm';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAITestServer, type TestServer } from '@assay/test-support/openai-test-server';
import { ask, parseMethodPrompt, renderPrompt, UnusableAnswerError } from '../src/index.js';

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
