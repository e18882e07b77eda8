import { TrecFormatError, quote } from './errors.js';
import { parseTopicLines, parseTopicLinesStream, type TopicFormat } from './topics.js';
import type { Topic } from './types.js';

/** A turn of the conversation before a conversational topic's query. */
export interface ConversationTurn {
  role: 'user' | 'assistant';
  text: string;
}

/**
 * The conversational context of a topic: the keys of its `context` object as given, with
 * `previousTurns` (oldest first) and `userBackground` checked and normalised.
 */
export interface TopicConversation {
  previousTurns?: ConversationTurn[];
  userBackground?: string[];
  /** A reference (canonical) answer to the request, for judges that show one. */
  referenceAnswer?: string;
  [key: string]: unknown;
}

/** A parsed topic with its conversational context (undefined when it has none). */
export interface ConversationalTopic {
  topic: Topic;
  conversation?: TopicConversation;
}

const TURN_KEYS = ['previous_turns', 'previousTurns'] as const;
const BACKGROUND_KEYS = ['user_background', 'userBackground'] as const;
const ANSWER_KEYS = ['reference_answer', 'referenceAnswer'] as const;
const TURNS_EXPECTED = 'an array of strings or {"role": "user"|"assistant", "text"} objects';

/**
 * The conversational context of a parsed topic (TREC CAsT/iKAT-style JSONL): a `context`
 * object kept as given, `previous_turns`/`previousTurns` (strings are user turns; objects
 * `{role: user|assistant, text}` or `content`), `user_background`/`userBackground` (a
 * string or strings) and `reference_answer`/`referenceAnswer` (a string), read from the
 * topic's fields or from its `context` object, the fields first. Undefined when the topic has none. A malformed value throws
 * TrecFormatError at `file:line`.
 */
export function topicConversation(
  topic: Topic,
  file: string,
  line = 0,
): TopicConversation | undefined {
  const fields = topic.fields ?? {};
  const bad = (key: string, expected: string): never => {
    throw new TrecFormatError(file, line, `topic ${quote(topic.id)}: "${key}" must be ${expected}`);
  };
  const conversation: TopicConversation = {};
  let inner: Record<string, unknown> = {};
  if (fields.context !== undefined) {
    const raw = fields.context;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) bad('context', 'an object');
    inner = raw as Record<string, unknown>;
    Object.assign(conversation, inner);
    for (const key of [...TURN_KEYS, ...BACKGROUND_KEYS, ...ANSWER_KEYS]) delete conversation[key];
  }
  const pick = (keys: readonly string[]) => {
    for (const source of [fields, inner]) {
      const key = keys.find((k) => source[k] !== undefined);
      if (key !== undefined) return { key, value: source[key] };
    }
    return undefined;
  };

  const turns = pick(TURN_KEYS);
  if (turns) {
    if (!Array.isArray(turns.value)) bad(turns.key, TURNS_EXPECTED);
    conversation.previousTurns = (turns.value as unknown[]).map((turn): ConversationTurn => {
      if (typeof turn === 'string') return { role: 'user', text: turn };
      const o = turn as Record<string, unknown> | null;
      const text = o?.text ?? o?.content;
      if (
        typeof o === 'object' &&
        o !== null &&
        (o.role === 'user' || o.role === 'assistant') &&
        typeof text === 'string'
      )
        return { role: o.role, text };
      return bad(turns.key, TURNS_EXPECTED);
    });
  }
  const background = pick(BACKGROUND_KEYS);
  if (background) {
    const value = background.value;
    if (typeof value === 'string') conversation.userBackground = [value];
    else if (Array.isArray(value) && value.every((s) => typeof s === 'string'))
      conversation.userBackground = value as string[];
    else bad(background.key, 'a string or an array of strings');
  }
  const answer = pick(ANSWER_KEYS);
  if (answer) {
    if (typeof answer.value !== 'string') bad(answer.key, 'a string');
    else if (answer.value.trim() !== '') conversation.referenceAnswer = answer.value;
  }
  return Object.keys(conversation).length > 0 ? conversation : undefined;
}

/**
 * Parses topics (TSV, JSONL or TREC, as parseTopics) with each one's conversational
 * context; a malformed context fails at the topic's `file:line`.
 */
export function parseConversationalTopics(
  text: string,
  file = '<topics>',
  format?: TopicFormat,
): ConversationalTopic[] {
  return withConversations(parseTopicLines(text, file, format), file);
}

/**
 * Streaming parseConversationalTopics for TSV and JSONL topics: the same topics and
 * errors, from chunks of text or UTF-8 bytes.
 */
export async function parseConversationalTopicsStream(
  input: AsyncIterable<string | Uint8Array>,
  file: string,
  format: 'tsv' | 'jsonl',
): Promise<ConversationalTopic[]> {
  return withConversations(await parseTopicLinesStream(input, file, format), file);
}

function withConversations(
  topics: Array<{ topic: Topic; line: number }>,
  file: string,
): ConversationalTopic[] {
  return topics.map(({ topic, line }) => {
    const conversation = topicConversation(topic, file, line);
    return conversation ? { topic, conversation } : { topic };
  });
}
