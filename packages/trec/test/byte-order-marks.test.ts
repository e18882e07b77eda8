// A byte-order mark (U+FEFF) may start a file, and is then ignored. Anywhere else it is
// what joining files with `cat` leaves where each began: on a line of a TREC or TSV file it
// would become part of an id (a separate topic, a document nobody finds), so it is refused
// naming the line, whole or streamed, string or byte parser. On a JSON line it is refused at
// the line's start; inside a JSON string it is text. A JSON escape of half a surrogate
// pair (`\ud800`) is no character (it would be stored as U+FFFD): refused naming the line.
import { describe, expect, it } from 'vitest';
import {
  QrelsColumnsParser,
  RunColumnsParser,
  parseCollection,
  parseCollectionStream,
  parseQrels,
  parseRun,
  parseRunStream,
  parseTopics,
} from '../src/index.js';
import { byteChunks, formatErrorOf } from './helpers.js';

const BOM = '\ufeff';
const INSIDE =
  'the line holds a byte-order mark (U+FEFF), which may only start a file (joining files with cat leaves one where each began): remove it';

async function rejection(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

/** The byte-level parser over `text` in chunks of `size` bytes (characters split too). */
function bytes(
  parser: { push(chunk: Uint8Array): void; end(): unknown },
  text: string,
  size: number,
) {
  const all = new TextEncoder().encode(text);
  for (let i = 0; i < all.length; i += size) parser.push(all.subarray(i, i + size));
  return parser.end();
}

const RUN = `${BOM}1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n`;
const JOINED_RUN = `${RUN}${BOM}2 Q0 d1 1 2 r\n`;
const QRELS = `${BOM}1 0 d1 1\n`;
const JOINED_QRELS = `${QRELS}${BOM}2 0 d1 1\n`;

describe('a byte-order mark after the start of a file', () => {
  it('is ignored at the start of a file', () => {
    expect([...parseRun(RUN, 'r.txt').topics.keys()]).toEqual(['1']);
    expect([...parseQrels(QRELS, 'q.txt').keys()]).toEqual(['1']);
    expect(parseTopics(`${BOM}1\tquery\n`, 't.tsv', 'tsv')).toEqual([{ id: '1', text: 'query' }]);
    expect([
      ...(
        bytes(new RunColumnsParser('r.txt'), RUN, 5) as { topics: Map<string, unknown> }
      ).topics.keys(),
    ]).toEqual(['1']);
  });

  it('is refused on a run line, naming it, by every run parser', async () => {
    expect(formatErrorOf(() => parseRun(JOINED_RUN, 'r.txt')).message).toBe(`r.txt:3: ${INSIDE}`);
    expect(await rejection(parseRunStream(byteChunks(JOINED_RUN, 4), 'r.txt'))).toBe(
      `r.txt:3: ${INSIDE}`,
    );
    for (const size of [1, 2, 7, 1000])
      expect(
        formatErrorOf(() => bytes(new RunColumnsParser('r.txt'), JOINED_RUN, size)).message,
      ).toBe(`r.txt:3: ${INSIDE}`);
    // Inside a field, not only at the line's start.
    expect(formatErrorOf(() => parseRun(`1 Q0 d${BOM}1 1 2 r\n`, 'r.txt')).message).toBe(
      `r.txt:1: ${INSIDE}`,
    );
    expect(
      formatErrorOf(() =>
        bytes(new RunColumnsParser('r.txt'), `1 Q0 d1 1 2 r\n1 Q0 d${BOM}2 2 1 r`, 3),
      ).message,
    ).toBe(`r.txt:2: ${INSIDE}`);
  });

  it('is refused on a qrels line, by the string and the byte parser', () => {
    expect(formatErrorOf(() => parseQrels(JOINED_QRELS, 'q.txt')).message).toBe(
      `q.txt:2: ${INSIDE}`,
    );
    expect(
      formatErrorOf(() => bytes(new QrelsColumnsParser('q.txt'), JOINED_QRELS, 3)).message,
    ).toBe(`q.txt:2: ${INSIDE}`);
  });

  it('is refused on a TSV topic or document line, the text included', async () => {
    expect(formatErrorOf(() => parseTopics(`1\tone\n${BOM}2\ttwo\n`, 't.tsv', 'tsv')).message).toBe(
      `t.tsv:2: ${INSIDE}`,
    );
    expect(formatErrorOf(() => parseTopics(`1\tone${BOM}\n`, 't.tsv', 'tsv')).message).toBe(
      `t.tsv:1: ${INSIDE}`,
    );
    expect(
      formatErrorOf(() => parseCollection(`d1\tone\n${BOM}d2\ttwo\n`, 'c.tsv', 'tsv')).message,
    ).toBe(`c.tsv:2: ${INSIDE}`);
    expect(
      await rejection(
        parseCollectionStream(byteChunks(`d1\tone\nd2\t${BOM}two\n`, 3), 'c.tsv', 'tsv'),
      ),
    ).toBe(`c.tsv:2: ${INSIDE}`);
  });

  it('is refused at the start of a JSON line, and kept inside a JSON string', () => {
    const joined = `{"id":"1","text":"one"}\n${BOM}{"id":"2","text":"two"}\n`;
    expect(formatErrorOf(() => parseTopics(joined, 't.jsonl', 'jsonl')).message).toBe(
      `t.jsonl:2: ${INSIDE}`,
    );
    expect(formatErrorOf(() => parseCollection(joined, 'c.jsonl', 'jsonl')).message).toBe(
      `c.jsonl:2: ${INSIDE}`,
    );
    expect(parseCollection(`{"id":"d1","text":"a${BOM}b"}\n`, 'c.jsonl', 'jsonl')[0]!.text).toBe(
      `a${BOM}b`,
    );
  });

  it('is refused inside a topic id given by a JSON escape', () => {
    expect(
      formatErrorOf(() => parseTopics('{"id":"1\\ufeff2","text":"q"}\n', 't.jsonl', 'jsonl'))
        .message,
    ).toBe(`t.jsonl:1: topic id "1${BOM}2" holds a byte-order mark (U+FEFF)`);
  });
});

describe('a JSON escape of half a surrogate pair', () => {
  const HALF = (what: string, escape: string) =>
    `the ${what} holds the escape ${escape}, half of a UTF-16 surrogate pair without the other half (no character)`;

  it('is refused in a topic, a document and a key, naming the escape', () => {
    expect(
      formatErrorOf(() => parseTopics('{"id":"1","text":"a\\ud800b"}\n', 't.jsonl', 'jsonl'))
        .message,
    ).toBe(`t.jsonl:1: ${HALF('topic', '\\ud800')}`);
    expect(
      formatErrorOf(() =>
        parseCollection(
          '{"id":"d1","text":"ok"}\n{"id":"d2","text":"x","m":["\\uDFFF"]}\n',
          'c.jsonl',
          'jsonl',
        ),
      ).message,
    ).toBe(`c.jsonl:2: ${HALF('document', '\\udfff')}`);
    expect(
      formatErrorOf(() =>
        parseCollection('{"id":"d1","text":"t","\\ud83d":1}\n', 'c.jsonl', 'jsonl'),
      ).message,
    ).toBe(`c.jsonl:1: ${HALF('document', '\\ud83d')}`);
  });

  it('keeps a whole pair, escaped or not', () => {
    const docs = parseCollection('{"id":"d1","text":"\\ud83d\\ude00 🙂"}\n', 'c.jsonl', 'jsonl');
    expect(docs[0]!.text).toBe('😀 🙂');
  });
});
