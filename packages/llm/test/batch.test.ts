import { describe, expect, it } from 'vitest';
import { batchCallCost, batchInputLine, readBatchOutput } from '../src/index.js';

describe('batch files', () => {
  it('writes one request a line, keyed by its request hash', () => {
    const request = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
    const line = JSON.parse(batchInputLine(request)) as Record<string, unknown>;
    expect(line).toEqual({
      // sha256 of {"endpoint":"chat.completions","messages":[{"content":"hi","role":"user"}],"model":"m"}
      custom_id: '6d3c6cad4c9b64225f663885f848054737e53db0a949af3e133f1c6cb0eb3d13',
      method: 'POST',
      url: '/v1/chat/completions',
      body: request,
    });
  });

  it('reads answers, failed lines of both kinds and unreadable lines, none dropped', () => {
    const ok = {
      custom_id: 'a',
      response: {
        status_code: 200,
        body: {
          choices: [{ message: { content: 'yes' } }],
          usage: { prompt_tokens: 7, completion_tokens: 2 },
        },
      },
      error: null,
    };
    const text = [
      JSON.stringify(ok),
      JSON.stringify({ custom_id: 'b', response: null, error: { code: 'x', message: 'boom' } }),
      JSON.stringify({
        custom_id: 'c',
        response: { status_code: 400, body: { error: { message: 'bad model' } } },
        error: null,
      }),
      JSON.stringify({
        custom_id: 'd',
        response: {
          status_code: 200,
          body: { choices: [{ message: { content: 'x' } }], usage: { prompt_tokens: -1 } },
        },
      }),
      '',
      '{"custom_id": ',
      JSON.stringify({ response: null }),
    ].join('\n');
    const reading = readBatchOutput(text);
    expect(reading.answers).toEqual([
      { customId: 'a', answer: { response: 'yes', promptTokens: 7, completionTokens: 2 } },
    ]);
    expect(reading.failed).toEqual([
      { customId: 'b', reason: 'x: boom' },
      { customId: 'c', reason: 'HTTP 400: bad model' },
      { customId: 'd', reason: 'impossible token usage (prompt_tokens = -1)' },
    ]);
    expect(reading.malformed).toEqual([
      { line: 6, reason: 'not JSON' },
      { line: 7, reason: 'no custom_id' },
    ]);
  });

  it('prices a batch call at half the list price unless the table gives a batch price', () => {
    const usage = { promptTokens: 1_000_000, completionTokens: 1_000_000 };
    expect(batchCallCost('m', usage, { m: { input: 2, output: 8 } })).toBe(5);
    expect(
      batchCallCost('m', usage, { m: { input: 2, output: 8, batch: { input: 1.5, output: 3 } } }),
    ).toBe(4.5);
    expect(batchCallCost('other', usage, { m: { input: 2, output: 8 } })).toBeUndefined();
  });
});
