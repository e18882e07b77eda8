import { describe, expect, it } from 'vitest';
import { parseConversationalTopics, topicConversation, TrecFormatError } from '../src/index.js';

describe('topicConversation', () => {
  it('reads previous turns and background from snake_case or camelCase keys', () => {
    const [first, second] = parseConversationalTopics(
      [
        JSON.stringify({
          id: '3',
          text: 'and in winter?',
          previous_turns: ['where to go in norway', { role: 'assistant', text: 'Bergen.' }],
          user_background: 'I hate the cold',
          context: { session: 's1' },
        }),
        JSON.stringify({
          id: '4',
          query: 'next',
          previousTurns: [{ role: 'user', content: 'hi' }],
          userBackground: ['a', 'b'],
        }),
      ].join('\n'),
      't.jsonl',
    );
    expect(first).toEqual({
      topic: expect.objectContaining({ id: '3', text: 'and in winter?' }),
      conversation: {
        session: 's1',
        previousTurns: [
          { role: 'user', text: 'where to go in norway' },
          { role: 'assistant', text: 'Bergen.' },
        ],
        userBackground: ['I hate the cold'],
      },
    });
    expect(second!.conversation).toEqual({
      previousTurns: [{ role: 'user', text: 'hi' }],
      userBackground: ['a', 'b'],
    });
  });

  it('reads them inside a context object too; the topic fields come first', () => {
    const [topic] = parseConversationalTopics(
      JSON.stringify({
        id: '1',
        text: 'q',
        user_background: 'outer',
        context: { previous_turns: ['earlier'], user_background: 'inner', lang: 'en' },
      }),
      't.jsonl',
    );
    expect(topic!.conversation).toEqual({
      lang: 'en',
      previousTurns: [{ role: 'user', text: 'earlier' }],
      userBackground: ['outer'],
    });
  });

  it('has no context for plain topics (TSV, TREC, JSONL without the keys)', () => {
    expect(parseConversationalTopics('1\tfirst\n', 't.tsv')).toEqual([
      { topic: { id: '1', text: 'first' } },
    ]);
    expect(topicConversation({ id: '1', text: 'q', fields: { lang: 'en' } }, 'f')).toBeUndefined();
  });

  it('names file:line of the topic whose context is malformed', () => {
    const text = [
      '{"id":"1","text":"q"}',
      '',
      '{"id":"5","text":"q","previous_turns":[{"role":"bot","text":"x"}]}',
    ].join('\n');
    expect(() => parseConversationalTopics(text, 't.jsonl')).toThrow(
      new TrecFormatError(
        't.jsonl',
        3,
        'topic "5": "previous_turns" must be an array of strings or {"role": "user"|"assistant", "text"} objects',
      ),
    );
    expect(() =>
      parseConversationalTopics('{"id":"7","text":"q","user_background":[1]}', 'u.jsonl'),
    ).toThrow('u.jsonl:1: topic "7": "user_background" must be a string or an array of strings');
    expect(() =>
      parseConversationalTopics('{"id":"8","text":"q","context":"s1"}', 'c.jsonl'),
    ).toThrow('c.jsonl:1: topic "8": "context" must be an object');
  });
});
