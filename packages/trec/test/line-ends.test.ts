// What a line is: text up to LF (a CR before it is part of the line end, CRLF). A CR-only
// file or a Unicode line separator would otherwise merge many lines into one with extra
// fields; both are refused naming the line, in every parser, whole or streamed. Bytes
// that are not UTF-8 are refused naming the line too.
import { describe, expect, it } from 'vitest';
import {
  QrelsColumnsParser,
  RunColumnsParser,
  Utf8Validator,
  checkUtf8,
  parseCollection,
  parseQrels,
  parseRun,
  parseRunStream,
  parseTopics,
} from '../src/index.js';

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CR = escape('the line holds a carriage return (CR) that does not end it');
const LS = escape('the line holds a Unicode line separator (U+2028)');

/** The run lines `1 Q0 dK K score r` for K = 1..n joined by `end`. */
function run(n: number, end: string): string {
  return Array.from({ length: n }, (_, k) => `1 Q0 d${k + 1} ${k + 1} ${n - k} r`).join(end);
}

async function* chunks(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** Runs the byte-level run parser (assay eval's) over `text` in chunks of `size` bytes. */
function parseRunBytes(text: string, size: number): number {
  const parser = new RunColumnsParser('r.txt');
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) parser.push(bytes.subarray(i, i + size));
  const parsed = parser.end();
  let entries = 0;
  for (const topic of parsed.topics.values()) entries += topic.length;
  return entries;
}

describe('line ends', () => {
  it('reads LF and CRLF lines alike, trailing blanks after the CR included', () => {
    expect(parseRun(run(10, '\n'), 'r.txt').topics.get('1')).toHaveLength(10);
    expect(parseRun(run(10, '\r\n'), 'r.txt').topics.get('1')).toHaveLength(10);
    expect(parseRun(`${run(2, ' \r \n')}\r`, 'r.txt').topics.get('1')).toHaveLength(2);
    expect(parseRunBytes(run(10, '\r\n'), 7)).toBe(10);
  });

  it('refuses a CR-only run (10 lines would be one entry) naming line 1', async () => {
    const text = run(10, '\r');
    expect(errorOf(() => parseRun(text, 'r.txt'))).toMatch(new RegExp(`^r\\.txt:1: ${CR}`));
    await expect(parseRunStream(chunks(text, 5), 'r.txt')).rejects.toThrow(/^r\.txt:1: the line/);
    expect(errorOf(() => parseRunBytes(text, 1 << 20))).toMatch(new RegExp(`^r\\.txt:1: ${CR}`));
    expect(errorOf(() => parseRunBytes(text, 3))).toMatch(new RegExp(`^r\\.txt:1: ${CR}`));
  });

  it('refuses U+2028 and U+2029 between fields or lines, naming the line', async () => {
    const text = `${run(1, '\n')}\n${run(3, '\u2028')}\n`;
    expect(errorOf(() => parseRun(text, 'r.txt'))).toMatch(new RegExp(`^r\\.txt:2: ${LS}`));
    await expect(parseRunStream(chunks(text, 4), 'r.txt')).rejects.toThrow(/^r\.txt:2: /);
    expect(errorOf(() => parseRunBytes(text, 5))).toMatch(new RegExp(`^r\\.txt:2: ${LS}`));
    expect(errorOf(() => parseQrels('1 0 d1 1\n1 0 d\u20292 0\n', 'q'))).toMatch(
      /^q:2: the line holds a Unicode paragraph separator \(U\+2029\)/,
    );
    const qrels = new QrelsColumnsParser('q');
    expect(
      errorOf(() => {
        qrels.push(new TextEncoder().encode('1 0 d1 1\r1 0 d2 0\n'));
        qrels.end();
      }),
    ).toMatch(new RegExp(`^q:1: ${CR}`));
  });

  it('refuses them in TSV topics and collections, and keeps them in JSON Lines text', () => {
    expect(errorOf(() => parseTopics('1\tfirst\r2\tsecond\n', 't.tsv', 'tsv'))).toMatch(
      new RegExp(`^t\\.tsv:1: ${CR}`),
    );
    expect(errorOf(() => parseCollection('d1\tone\rd2\ttwo\n', 'c.tsv', 'tsv'))).toMatch(
      new RegExp(`^c\\.tsv:1: ${CR}`),
    );
    // In JSON, U+2028 is text like any other character.
    const topics = parseTopics('{"id":"1","text":"a\u2028b"}\n', 't.jsonl', 'jsonl');
    expect(topics[0]!.text).toBe('a\u2028b');
    const docs = parseCollection('{"id":"d1","text":"x\u2029y"}\n', 'c.jsonl', 'jsonl');
    expect(docs[0]!.text).toBe('x\u2029y');
    // Two JSON objects on one CR-separated line are not one line's JSON.
    expect(
      errorOf(() => parseTopics('{"id":"1","text":"a"}\r{"id":"2","text":"b"}\n', 't', 'jsonl')),
    ).toMatch(/^t:1: invalid JSON/);
  });
});

describe('document titles (JSON Lines)', () => {
  it('refuse a title that is not text, naming the line; null is no title', () => {
    expect(
      errorOf(() =>
        parseCollection('{"id":"d1","text":"a"}\n{"id":"d2","text":"b","title":7}\n', 'c', 'jsonl'),
      ),
    ).toBe('c:2: "title" must be a string, not a number');
    const [doc] = parseCollection('{"id":"d1","text":"a","title":null}\n', 'c', 'jsonl');
    expect(doc!.title).toBeUndefined();
  });
});

describe('UTF-8', () => {
  const hint = 'declare its encoding';

  it('accepts valid UTF-8 split anywhere, even inside a character', () => {
    const bytes = new TextEncoder().encode('a\né\n€\n😀\n');
    for (let size = 1; size <= 4; size++) {
      const v = new Utf8Validator('f', hint);
      for (let i = 0; i < bytes.length; i += size) v.push(bytes.subarray(i, i + size));
      expect(() => v.end()).not.toThrow();
    }
  });

  it('refuses Latin-1 bytes naming the line and the bytes', () => {
    // "caf\xe9" in ISO-8859-1 on line 3.
    const bytes = Uint8Array.from([...Buffer.from('1 0 a 1\n1 0 b 0\n1 0 caf'), 0xe9, 0x20, 0x31]);
    expect(errorOf(() => checkUtf8(bytes, 'q.txt', hint))).toBe(
      'q.txt:3: the line is not valid UTF-8 (bytes 0xE9 0x20 0x31); declare its encoding',
    );
    const v = new Utf8Validator('q.txt', hint);
    expect(
      errorOf(() => {
        for (const b of bytes) v.push(Uint8Array.of(b));
      }),
    ).toMatch(/^q\.txt:3: /);
  });

  it('is checked by the byte parsers of assay eval, naming the line however chunks fall', () => {
    const bytes = Uint8Array.from([
      ...Buffer.from('1 Q0 d1 1 3 r\n1 Q0 d\u00e92 2 2 r\n1 Q0 caf'),
      0xe9,
      ...Buffer.from(' 3 1 r\n'),
    ]);
    for (const size of [1, 2, 7, 1 << 20]) {
      const parser = new RunColumnsParser('r.txt', { encodingHint: 'use --encoding latin1' });
      expect(
        errorOf(() => {
          for (let i = 0; i < bytes.length; i += size) parser.push(bytes.subarray(i, i + size));
          parser.end();
        }),
      ).toBe(
        'r.txt:3: the line is not valid UTF-8 (bytes 0xE9 0x20 0x33 0x20); use --encoding latin1',
      );
    }
  });

  it('stops a line that never ends at 16 MiB', () => {
    const parser = new QrelsColumnsParser('q.gz');
    const zeros = new Uint8Array(1 << 20);
    expect(
      errorOf(() => {
        for (let i = 0; i < 20; i++) parser.push(zeros);
      }),
    ).toBe('q.gz:1: the line is longer than 16 MiB (no line end?)');
  });

  it('refuses overlong forms, surrogates and a character cut by the end of input', () => {
    expect(errorOf(() => checkUtf8(Uint8Array.of(0x61, 0xc0, 0xaf), 'f', hint))).toMatch(
      /^f:1: .*0xC0 0xAF/,
    );
    expect(errorOf(() => checkUtf8(Uint8Array.of(0x0a, 0xed, 0xa0, 0x80), 'f', hint))).toMatch(
      /^f:2: .*0xED 0xA0 0x80/,
    );
    const v = new Utf8Validator('f', hint);
    v.push(Uint8Array.of(0x61, 0x0a, 0xe2, 0x82));
    expect(errorOf(() => v.end())).toMatch(/^f:2: .*0xE2 0x82/);
  });
});
