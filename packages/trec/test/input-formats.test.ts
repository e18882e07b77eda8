import { describe, expect, it } from 'vitest';
import {
  CollectionDocumentStream,
  DOCUMENT_FORMATS,
  InputFormatError,
  TOPIC_FORMATS,
  documentFormatOf,
  parseCollection,
  parseConversationalTopics,
  parseCranfieldQueries,
  parseTopics,
  topicFormatOf,
  type CollectionDocument,
} from '../src/index.js';
import { formatErrorOf } from './helpers.js';

/** The InputFormatError `decide` throws (the test fails if it throws nothing or another). */
function formatError(decide: () => unknown): InputFormatError {
  try {
    decide();
  } catch (error) {
    if (error instanceof InputFormatError) return error;
    throw error;
  }
  throw new Error('expected an InputFormatError');
}

const UNTOLD = 'give --format jsonl, tsv or cranfield (or name it .jsonl, .tsv or cran.all*)';

describe('documentFormatOf', () => {
  it('takes the format given over the name and the content', () => {
    expect(documentFormatOf('docs.jsonl', '{"id":"a","text":"x"}', { given: 'tsv' })).toBe('tsv');
    expect(documentFormatOf('-', '', { given: 'cranfield' })).toBe('cranfield');
  });

  it('refuses a format it does not read, naming the ones it does and the option', () => {
    const e = formatError(() => documentFormatOf('d.jsonl', '', { given: 'xml' }));
    expect(e.message).toBe('--format must be one of jsonl, tsv, cranfield, got "xml"');
    expect(e.accepted).toEqual(['jsonl', 'tsv', 'cranfield']);
    expect(e.file).toBe('d.jsonl');
    expect(
      formatError(() => documentFormatOf('d', '', { given: 'JSONL', option: 'format' })).message,
    ).toBe('format must be one of jsonl, tsv, cranfield, got "JSONL"');
  });

  it.each([
    ['docs.jsonl', 'jsonl'],
    ['docs.json', 'jsonl'],
    ['DOCS.JSONL', 'jsonl'],
    ['corpus.jsonl.gz', 'jsonl'],
    ['data/msmarco/collection.tsv', 'tsv'],
    ['collection.tsv.GZ', 'tsv'],
    ['datasets/cranfield/cran.all.1400', 'cranfield'],
    ['C:\\data\\cran.all.1400.gz', 'cranfield'],
    ['cran.all', 'cranfield'],
  ])('reads the format of %s from its name', (file, format) => {
    // The content says otherwise: the name decides.
    expect(documentFormatOf(file, 'd1 not a tab\n')).toBe(format);
  });

  it('looks through one .gz only, and only at the end of the name', () => {
    expect(() => documentFormatOf('docs.jsonl.gz.gz', 'x')).toThrow(InputFormatError);
    expect(() => documentFormatOf('docs.gz.jsonl.txt', 'x')).toThrow(InputFormatError);
    expect(() => documentFormatOf('my.cran.all.1400', 'x')).toThrow(InputFormatError);
    expect(() => documentFormatOf('docs.tsvx', 'x')).toThrow(InputFormatError);
  });

  it.each([
    ['a JSON object', '{"id": "a", "text": "x"}\n', 'jsonl'],
    ['a JSON object after blank lines', '\n  \r\n\t{"id": "a"}', 'jsonl'],
    ['a .I line', '.I 1\n.T\nexperimental investigation\n', 'cranfield'],
    ['an indented .I line, as the Cranfield reader allows', '   .I 1\r\n.W\r\n', 'cranfield'],
    ['a .I line alone', '.I\n', 'cranfield'],
    ['a tab-separated line', 'd1\tsome text\n', 'tsv'],
    ['a tab-separated line after # comments', '# from the 2024 crawl\n#\nd1\tT\tx\n', 'tsv'],
    ['a line starting with a tab', '\tx\n', 'tsv'],
  ])('reads the format of a file named nothing useful from %s', (_what, text, format) => {
    expect(documentFormatOf('-', text)).toBe(format);
    expect(documentFormatOf('upload.txt', text)).toBe(format);
  });

  it('reads the first line of a text given in parts, cut anywhere', () => {
    expect(documentFormatOf('-', ['', '  ', '\n.', 'I 7\n'])).toBe('cranfield');
    expect(documentFormatOf('-', ['d1', '\tx'])).toBe('tsv');
    expect(documentFormatOf('-', ['\n', '{'])).toBe('jsonl');
  });

  it.each([
    ['an empty file', ''],
    ['blank lines only', '\n \n\t\n'],
    ['comments only', '# a\n# b\n'],
    ['a run line', '1 Q0 d1 1 2 x\n'],
    ['a .Ix line (not a .I marker)', '.Index of terms\n'],
    ['a first line without a tab, though the second has one', 'header\nd1\tx\n'],
  ])('cannot tell the format of %s, and says how to give it', (_what, text) => {
    const e = formatError(() => documentFormatOf('x.run', text));
    expect(e.message).toBe(`cannot tell the format of x.run; ${UNTOLD}`);
    expect(e.accepted).toEqual(DOCUMENT_FORMATS);
  });

  it('names the option the caller gives for the format', () => {
    expect(
      formatError(() => documentFormatOf('p.txt', 'x', { option: '--docs-format' })).message,
    ).toBe(
      'cannot tell the format of p.txt; give --docs-format jsonl, tsv or cranfield (or name it .jsonl, .tsv or cran.all*)',
    );
  });

  it('looks at the first 64 KiB only', () => {
    // 65,536 characters of blank lines, then a JSON object: past what is looked at.
    const late = `${' \n'.repeat(32 * 1024)}{"id":"a","text":"x"}\n`;
    expect(() => documentFormatOf('-', late)).toThrow(InputFormatError);
    const inTime = `${' \n'.repeat(32 * 1024 - 1)}{"id":"a","text":"x"}\n`;
    expect(documentFormatOf('-', inTime)).toBe('jsonl');
  });
});

describe('topicFormatOf', () => {
  it('takes a format given, and refuses one it does not read', () => {
    expect(topicFormatOf('t.tsv', '{"id": 1}', { given: 'tsv' })).toBe('tsv');
    expect(topicFormatOf('q', '1\tx', { given: 'cranfield' })).toBe('cranfield');
    const e = formatError(() => topicFormatOf('q', '', { given: 'qry' }));
    expect(e.message).toBe('--format must be one of tsv, jsonl, trec, cranfield, got "qry"');
    expect(e.accepted).toEqual(TOPIC_FORMATS);
  });

  it.each([
    ['{"id": "1", "text": "q"}', 'jsonl'],
    ['.I 001\n.W\nwhat similarity laws\n', 'cranfield'],
    ['\r\n\r\n.I 001\r\n.W\r\n', 'cranfield'],
    ['<top>\n<num> Number: 301\n', 'trec'],
    ['301\tinternational organized crime\n', 'tsv'],
    // cran.qry's reader wants `.I` in the first column; an indented one is not cran.qry.
    ['  .I 001\n', 'tsv'],
    ['.Introduction\tq\n', 'tsv'],
  ])('tells the format of %j from its content, whatever the name', (text, format) => {
    expect(topicFormatOf('topics.txt', text)).toBe(format);
    expect(topicFormatOf('cran.qry.tsv', text)).toBe(format);
  });
});

describe('topics in the cran.qry layout', () => {
  const QRY = [
    '.I 001',
    '.W',
    'what similarity laws must be obeyed when constructing aeroelastic models',
    'of heated high speed aircraft .',
    '.I 002',
    '.W',
    'what are the structural and aeroelastic problems associated with flight',
    '.I 004',
    '.W what problems of heat conduction in composite slabs',
    '',
  ].join('\n');

  it('numbers the queries by position, as cranqrel does, whatever their .I numbers', () => {
    expect(parseTopics(QRY, 'cran.qry')).toEqual([
      {
        id: '1',
        text: 'what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft .',
      },
      { id: '2', text: 'what are the structural and aeroelastic problems associated with flight' },
      { id: '3', text: 'what problems of heat conduction in composite slabs' },
    ]);
    expect(parseCranfieldQueries(QRY, 'cran.qry').map((q) => [q.position, q.original])).toEqual([
      ['1', '001'],
      ['2', '002'],
      ['3', '004'],
    ]);
  });

  it('reads CRLF files and gives them no conversational context', () => {
    const crlf = QRY.replace(/\n/g, '\r\n');
    expect(parseConversationalTopics(crlf, 'cran.qry')).toEqual(
      parseTopics(QRY, 'q').map((topic) => ({ topic })),
    );
  });

  it.each([
    [
      'a query without text',
      '.I 1\n.W\nfirst\n.I 2\n.W\n\n',
      'q:4: empty query text for topic "2"',
    ],
    ['text before the first .I', 'first\n.I 1\n.W\nx\n', 'q:1: text before the first .I'],
    ['.W before the first .I', '.W\nx\n', 'q:1: .W before the first .I'],
    ['an .I without a number', '.I 1\n.W\nx\n.I\n', 'q:4: .I needs a query number'],
    ['no queries', '\n\n', 'q:0: no queries'],
  ])('refuses %s with file:line', (_what, text, message) => {
    expect(formatErrorOf(() => parseTopics(text, 'q', 'cranfield')).message).toBe(message);
  });
});

describe('CollectionDocumentStream', () => {
  const TSV = 'd1\tÉtude\tthé vert\nd2\tplain text\n# a comment\nd3\tlast one';

  it('reads the documents of chunks cut anywhere, characters split included', () => {
    const bytes = new TextEncoder().encode(TSV);
    const whole = parseCollection(TSV, 'c.tsv', 'tsv');
    for (const size of [1, 2, 3, 7, bytes.length]) {
      const seen: CollectionDocument[] = [];
      const stream = new CollectionDocumentStream('c.tsv', 'tsv', (d) => seen.push(d));
      for (let i = 0; i < bytes.length; i += size) stream.push(bytes.subarray(i, i + size));
      expect(stream.end()).toBe(3);
      expect(seen).toEqual(whole);
    }
    expect(whole.map((d) => [d.id, d.title, d.text])).toEqual([
      ['d1', 'Étude', 'thé vert'],
      ['d2', undefined, 'plain text'],
      ['d3', undefined, 'last one'],
    ]);
  });

  it('fails at the line of a bad document, and on no documents at end', () => {
    const seen: string[] = [];
    const stream = new CollectionDocumentStream('c.tsv', 'tsv', (d) => seen.push(d.id));
    expect(
      formatErrorOf(() => {
        stream.push(new TextEncoder().encode('d1\tx\nd2\ty\nd1\tz\n'));
        stream.end();
      }).message,
    ).toBe('c.tsv:3: duplicate document id "d1" (first at line 1)');
    // The documents before the bad line were handed on as they were read.
    expect(seen).toEqual(['d1', 'd2']);
    const empty = new CollectionDocumentStream('e.jsonl', 'jsonl', () => {});
    expect(formatErrorOf(() => empty.end()).message).toBe('e.jsonl:0: no documents');
  });
});
