import { describe, expect, it } from 'vitest';
import { parseCollection, TrecFormatError } from '@assay/trec';

function error(fn: () => unknown): TrecFormatError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TrecFormatError) return e;
    throw e;
  }
  throw new Error('expected a TrecFormatError');
}

describe('parseCollection, JSONL', () => {
  it('reads the id and text under the names common collections use', () => {
    const text = [
      '{"id": "a", "title": "T", "text": "one"}',
      '{"docid": "b", "contents": "two"}', // Pyserini / Anserini
      '{"_id": "c", "body": "three", "url": "http://x"}', // BEIR-style, extra key kept
      '{"docid": 17, "doc": "four"}', // MS MARCO passages as some tools dump them
      '',
    ].join('\n');
    const docs = parseCollection(text, 'c.jsonl', 'jsonl');
    expect(docs.map((d) => [d.id, d.title, d.text])).toEqual([
      ['a', 'T', 'one'],
      ['b', undefined, 'two'],
      ['c', undefined, 'three'],
      ['17', undefined, 'four'],
    ]);
    expect(docs[2]!.metadata).toEqual({ url: 'http://x' });
  });

  it('names file and line for bad JSON, a missing id or text, spaces in ids and duplicates', () => {
    expect(error(() => parseCollection('{"id":"a","text":"x"}\n{oops', 'f', 'jsonl')).message).toBe(
      'f:2: invalid JSON',
    );
    expect(error(() => parseCollection('{"text":"x"}', 'f', 'jsonl')).message).toMatch(
      /^f:1: no document id/,
    );
    expect(error(() => parseCollection('{"id":"a"}', 'f', 'jsonl')).message).toMatch(
      /^f:1: no document text \(one of text, contents, body, doc\)/,
    );
    expect(error(() => parseCollection('{"id":"a b","text":"x"}', 'f', 'jsonl')).message).toMatch(
      /^f:1: document id "a b" is empty or has spaces/,
    );
    expect(
      error(() => parseCollection('{"id":"a","text":"x"}\n{"id":"a","text":"y"}', 'f', 'jsonl'))
        .message,
    ).toBe('f:2: duplicate document id "a" (first at line 1)');
    expect(error(() => parseCollection('\n\n', 'f', 'jsonl')).message).toBe('f:0: no documents');
  });
});

describe('parseCollection, TSV', () => {
  it('reads id<TAB>text and id<TAB>title<TAB>text, CRLF and comments', () => {
    const docs = parseCollection('# header\r\na\tone\r\nb\tTitle\ttwo\r\n', 'c.tsv', 'tsv');
    expect(docs.map((d) => [d.id, d.title, d.text])).toEqual([
      ['a', undefined, 'one'],
      ['b', 'Title', 'two'],
    ]);
  });

  it('refuses a line with one field or four', () => {
    expect(error(() => parseCollection('a\tone\nb\n', 'c.tsv', 'tsv')).message).toBe(
      'c.tsv:2: expected id<TAB>text or id<TAB>title<TAB>text, found 1 fields',
    );
    expect(error(() => parseCollection('a\tb\tc\td\n', 'c.tsv', 'tsv')).message).toMatch(
      /^c\.tsv:1: .*found 4 fields/,
    );
  });
});
