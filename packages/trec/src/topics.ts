import { readCranfieldTopics } from './cranfield-queries.js';
import { TrecFormatError, jsonType, quote } from './errors.js';
import { unstorableJson } from './json-depth.js';
import { type LineHandler, splitLines, splitLinesAsync } from './lines.js';
import { TOPIC_ID_KEYS, TOPIC_TEXT_KEYS, TopicList } from './topic-list.js';
import { parseTrecTopics } from './trec-topics.js';
import type { Topic } from './types.js';
import { checkField } from './write.js';

/** The topic file formats parseTopics reads. */
export type TopicFormat = 'tsv' | 'jsonl' | 'trec' | 'cranfield';

/** `id<TAB>text` lines; blank lines and `#` comments are skipped. */
class TsvTopicReader implements LineHandler {
  private readonly file: string;
  private readonly list: TopicList;

  constructor(file: string, list: TopicList) {
    this.file = file;
    this.list = list;
  }

  line(text: string, start: number, end: number, lineNo: number): void {
    const line = text.slice(start, end);
    const content = line.trim();
    if (content.length === 0 || content.charCodeAt(0) === 35 /* # */) return;
    const tab = line.indexOf('\t');
    if (tab === -1) {
      throw new TrecFormatError(this.file, lineNo, 'expected id<TAB>text, found no tab');
    }
    const id = line.slice(0, tab).trim();
    const query = line.slice(tab + 1).trim();
    if (id.length === 0) throw new TrecFormatError(this.file, lineNo, 'empty topic id');
    if (query.length === 0) {
      throw new TrecFormatError(this.file, lineNo, `empty query text for topic ${quote(id)}`);
    }
    this.list.add({ id, text: query }, lineNo);
  }
}

/** One JSON object per line; blank lines are skipped. */
class JsonlTopicReader implements LineHandler {
  private readonly file: string;
  private readonly list: TopicList;

  constructor(file: string, list: TopicList) {
    this.file = file;
    this.list = list;
  }

  line(text: string, start: number, end: number, lineNo: number): void {
    const line = text.slice(start, end).trim();
    if (line.length === 0) return;
    const fail = (reason: string): never => {
      throw new TrecFormatError(this.file, lineNo, reason);
    };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return fail('invalid JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail('expected a JSON object');
    }
    const unstorable = unstorableJson(value, 'topic');
    if (unstorable !== undefined) return fail(unstorable);
    const record = value as Record<string, unknown>;
    const used = new Set<string>();

    const idKey = TOPIC_ID_KEYS.find((key) => record[key] !== undefined);
    if (idKey === undefined) return fail(`missing topic id (one of ${TOPIC_ID_KEYS.join(', ')})`);
    const rawId = record[idKey];
    if (typeof rawId !== 'string' && typeof rawId !== 'number') {
      return fail(`topic id "${idKey}" must be a string or number`);
    }
    const id = String(rawId).trim();
    if (id.length === 0) return fail('empty topic id');
    used.add(idKey);

    const textKey = TOPIC_TEXT_KEYS.find((key) => record[key] !== undefined);
    if (textKey === undefined) {
      return fail(`missing query text (one of ${TOPIC_TEXT_KEYS.join(', ')})`);
    }
    const query = record[textKey];
    if (typeof query !== 'string')
      return fail(`query text "${textKey}" must be a string, not ${jsonType(query)}`);
    if (query.trim().length === 0) return fail(`empty query text for topic ${quote(id)}`);
    used.add(textKey);

    // The other query-text keys (a "title" beside "text") must be text too, or they would
    // be kept as fields nobody reads, without a word.
    for (const key of TOPIC_TEXT_KEYS) {
      const other = record[key];
      if (key !== textKey && other !== undefined && other !== null && typeof other !== 'string')
        return fail(`"${key}" must be a string, not ${jsonType(other)}`);
    }
    const topic: Topic = { id, text: query };
    for (const key of ['description', 'narrative'] as const) {
      const field = record[key];
      if (field === undefined) continue;
      if (typeof field !== 'string')
        return fail(`"${key}" must be a string, not ${jsonType(field)}`);
      topic[key] = field;
      used.add(key);
    }
    const fields: Record<string, unknown> = {};
    let extra = false;
    for (const [key, field] of Object.entries(record)) {
      if (used.has(key)) continue;
      fields[key] = field;
      extra = true;
    }
    if (extra) topic.fields = fields;
    this.list.add(topic, lineNo);
  }
}

/** A TREC topic tag; at most 7 characters long. */
const TREC_TAG = /<top(?:ic)?[\s>/]/i;

/** Cranfield's `cran.qry` starts with its first query's `.I` line. */
const CRANFIELD_QUERY = /^\.I(?:\s|$)/;

/**
 * Guesses a topic file's format: a first non-blank character `{` means JSONL, a first
 * non-blank line `.I …` Cranfield's `cran.qry`, a `<top>` or `<topic` tag TREC SGML/XML,
 * anything else TSV. The text may come whole or as consecutive parts (an upload as it was
 * read), which are never joined.
 */
export function detectTopicFormat(text: string | readonly string[]): TopicFormat {
  const parts = typeof text === 'string' ? [text] : text;
  let start = '';
  for (const part of parts) {
    start += part.slice(0, 4096 - start.length);
    if (start.length >= 4096) break;
  }
  const first = /\S/.exec(start);
  if (first?.[0] === '{') return 'jsonl';
  if (first !== null) {
    const lineStart = start.lastIndexOf('\n', first.index) + 1;
    if (CRANFIELD_QUERY.test(start.slice(lineStart))) return 'cranfield';
  }
  // A tag may straddle two parts: each part is searched with the end of the one before.
  let tail = '';
  for (const part of parts) {
    if (TREC_TAG.test(tail + part.slice(0, 6)) || TREC_TAG.test(part)) return 'trec';
    tail = part.length >= 6 ? part.slice(-6) : (tail + part).slice(-6);
  }
  return 'tsv';
}

/**
 * Parses topics from TSV (`id<TAB>text`), JSONL (one object per line), TREC SGML/XML
 * (`<top>` … `</top>`, or `<topic number="…">`) or Cranfield's `cran.qry` (ids by position,
 * as `cranqrel` numbers them), detecting the format when it is omitted.
 * Throws TrecFormatError on malformed input or repeated topic ids.
 */
export function parseTopics(text: string, file = '<topics>', format?: TopicFormat): Topic[] {
  return readTopicList(text, file, format).finish();
}

/** Topics with the line each starts on, for checks of their fields (see topic-context.ts). */
export function parseTopicLines(
  text: string,
  file: string,
  format?: TopicFormat,
): Array<{ topic: Topic; line: number }> {
  const list = readTopicList(text, file, format);
  return list.finish().map((topic, i) => ({ topic, line: list.lines[i]! }));
}

/**
 * Streaming parseTopicLines for the line formats (TSV and JSONL): the same topics and
 * errors, from chunks of text or UTF-8 bytes.
 */
export async function parseTopicLinesStream(
  input: AsyncIterable<string | Uint8Array>,
  file: string,
  format: 'tsv' | 'jsonl',
): Promise<Array<{ topic: Topic; line: number }>> {
  const list = new TopicList(file);
  await splitLinesAsync(
    input,
    format === 'tsv' ? new TsvTopicReader(file, list) : new JsonlTopicReader(file, list),
    { file, innerBreaks: format === 'tsv' ? 'refuse' : 'keep' },
  );
  return list.finish().map((topic, i) => ({ topic, line: list.lines[i]! }));
}

function readTopicList(text: string, file: string, format?: TopicFormat): TopicList {
  const list = new TopicList(file);
  switch (format ?? detectTopicFormat(text)) {
    case 'tsv':
      splitLines(text, new TsvTopicReader(file, list), { file });
      break;
    case 'jsonl':
      splitLines(text, new JsonlTopicReader(file, list), { file, innerBreaks: 'keep' });
      break;
    case 'trec':
      parseTrecTopics(text, file, list);
      break;
    case 'cranfield':
      readCranfieldTopics(text, file, list);
      break;
  }
  return list;
}

/**
 * Writes topics as `id<TAB>text` lines ending in `\n` (other fields are not written). Runs of
 * tabs and line breaks in a query become one space and the query is trimmed; an id that is
 * empty or contains whitespace throws RangeError.
 */
export function formatTopicsTsv(topics: readonly Topic[]): string {
  let out = '';
  for (const topic of topics) {
    checkField('topic id', topic.id);
    out += `${topic.id}\t${topic.text.replace(/[\t\r\n]+/g, ' ').trim()}\n`;
  }
  return out;
}
