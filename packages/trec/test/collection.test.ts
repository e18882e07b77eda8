import { describe, expect, it } from 'vitest';
import {
  forEachCollectionDocument,
  parseCollection,
  parseCollectionStream,
  type CollectionDocument,
  TrecFormatError,
} from '@assay/trec';

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

describe('parseCollectionStream', () => {
  /** `text` in chunks of `size` characters. */
  async function* chunks(text: string, size: number): AsyncGenerator<string> {
    for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
  }

  it('reads the same documents as parseCollection however the text is cut', async () => {
    const files = {
      jsonl: '\ufeff{"id":"a","text":"one"}\r\n\n{"docid":"b","title":"B","contents":"two"}\n',
      tsv: '# comment\na\tone\r\nb\tB\ttwo',
      cranfield: '.I 1\n.T\nfirst\ntitle\n.W\nsome\r\ntext\n.I 2\n.W\nmore',
    } as const;
    for (const [format, text] of Object.entries(files) as Array<[keyof typeof files, string]>) {
      const whole = parseCollection(text, 'f', format);
      expect(whole.length).toBe(2);
      for (const size of [1, 3, 7, 1000])
        expect(await parseCollectionStream(chunks(text, size), 'f', format)).toEqual(whole);
    }
    expect(
      (await parseCollectionStream(chunks(files.cranfield, 2), 'f', 'cranfield')).map((d) => [
        d.id,
        d.title,
        d.text,
      ]),
    ).toEqual([
      ['1', 'first title', 'some text'],
      ['2', undefined, 'more'],
    ]);
  });

  it('names the same file:line as parseCollection', async () => {
    const text = 'a\tone\nb\ttwo\na\tagain\n';
    await expect(parseCollectionStream(chunks(text, 4), 'f', 'tsv')).rejects.toThrow(
      'f:3: duplicate document id "a" (first at line 1)',
    );
    await expect(parseCollectionStream(chunks('\n\n', 1), 'f', 'tsv')).rejects.toThrow(
      'f:0: no documents',
    );
  });
});

describe('forEachCollectionDocument', () => {
  // Byte chunks of `size`, so a multi-byte character and lines are split across chunks.
  const byteChunks = (text: string, size: number) => {
    const bytes = new TextEncoder().encode(text);
    const out: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
    return out;
  };

  it('hands on the documents parseCollection returns, one by one', () => {
    const text = 'd1\tCafé crème\nd2\tTitle\tNaïve text\r\n# comment\n\nd3\tlast';
    const seen: CollectionDocument[] = [];
    const count = forEachCollectionDocument(byteChunks(text, 3), 'f.tsv', 'tsv', (doc) =>
      seen.push(doc),
    );
    expect(count).toBe(3);
    expect(seen).toEqual([
      { id: 'd1', text: 'Café crème', metadata: {} },
      { id: 'd2', title: 'Title', text: 'Naïve text', metadata: {} },
      { id: 'd3', text: 'last', metadata: {} },
    ]);
    expect(seen).toEqual(parseCollection(text, 'f.tsv', 'tsv'));
  });

  it('names file:line of a duplicate id and refuses an empty collection', () => {
    const dup = '{"id":"a","text":"x"}\n{"id":"a","text":"y"}\n';
    expect(() => forEachCollectionDocument(byteChunks(dup, 5), 'f', 'jsonl', () => {})).toThrow(
      'f:2: duplicate document id "a" (first at line 1)',
    );
    expect(() => forEachCollectionDocument([], 'f', 'tsv', () => {})).toThrow('f:0: no documents');
  });
});
