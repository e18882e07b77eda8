import { describe, expect, it } from 'vitest';
import {
  type Run,
  TrecFormatError,
  compareBytewise,
  formatRun,
  parseRun,
  rankEntries,
} from '../src/index.js';
import { formatErrorOf } from './helpers.js';

describe('parseRun', () => {
  it('groups entries by topic in first-appearance order, entries in file order', () => {
    const run = parseRun('2 Q0 b 1 3.5 tagA\n1 Q0 a 1 2 tagA\n2 Q0 c 2 1.25 tagB\n');
    expect(run.name).toBe('tagB'); // the last line's tag
    expect([...run.topics.keys()]).toEqual(['2', '1']);
    expect(run.topics.get('2')).toEqual([
      { docno: 'b', rank: 1, score: 3.5 },
      { docno: 'c', rank: 2, score: 1.25 },
    ]);
    expect(run.topics.get('1')).toEqual([{ docno: 'a', rank: 1, score: 2 }]);
  });

  it('accepts tabs, runs of spaces, CRLF, comments, blank lines and trailing whitespace', () => {
    const text =
      '\uFEFF# a comment\r\n' +
      '301\tQ0\tD1\t1\t  2.129133\tSTD\r\n' +
      '\r\n' +
      '   # indented comment\r\n' +
      '  301   Q0 D2  2 \t-1e-3   STD  \t\r\n' +
      '   \t \n' +
      '301 Q0 D#3 3 +.5 STD';
    const run = parseRun(text);
    expect(run).toEqual({
      name: 'STD',
      topics: new Map([
        [
          '301',
          [
            { docno: 'D1', rank: 1, score: 2.129133 },
            { docno: 'D2', rank: 2, score: -0.001 },
            { docno: 'D#3', rank: 3, score: 0.5 },
          ],
        ],
      ]),
    });
  });

  it('reports the tag of the last line as the run name, as trec_eval does', () => {
    expect(parseRun('1 Q0 a 1 1 first\n1 Q0 b 2 0 second\n').name).toBe('second');
  });

  it('ignores columns after the tag, as trec_eval does', () => {
    const run = parseRun('1 Q0 a 1 2.5 t more junk\n1 Q0 b 2 1 t\n');
    expect(run.name).toBe('t');
    expect(run.topics.get('1')).toEqual([
      { docno: 'a', rank: 1, score: 2.5 },
      { docno: 'b', rank: 2, score: 1 },
    ]);
  });

  it('reads scores with Number(): exponents, signs and long decimals', () => {
    const scores = [
      '2.5',
      '-1e-3',
      '1E5',
      '0.6898301657029192',
      '-0',
      '123456789012345678901',
      '7',
    ];
    const text = scores.map((s, i) => `q Q0 d${i} ${i + 1} ${s} t`).join('\n');
    expect(
      parseRun(text)
        .topics.get('q')!
        .map((e) => e.score),
    ).toEqual(scores.map(Number));
    expect(Object.is(parseRun('q Q0 d 1 -0 t').topics.get('q')![0]!.score, -0)).toBe(true);
  });

  it('accepts negative and zero ranks', () => {
    expect(
      parseRun('q Q0 a -3 1 t\nq Q0 b 0 1 t')
        .topics.get('q')!
        .map((e) => e.rank),
    ).toEqual([-3, 0]);
  });

  const errors: [string, string, string][] = [
    [
      'too few fields',
      '1 Q0 a 1 1 t\n1 Q0 b 2 1\n',
      'r:2: expected 6 fields (qid Q0 docno rank score tag), found 5',
    ],
    ['one field', 'garbage\n', 'r:1: expected 6 fields (qid Q0 docno rank score tag), found 1'],
    ['score abc', '# c\n1 Q0 a 1 abc t\n', 'r:2: score "abc" is not a finite number'],
    ['score NaN', '1 Q0 a 1 NaN t', 'r:1: score "NaN" is not a finite number'],
    ['score Infinity', '1 Q0 a 1 Infinity t', 'r:1: score "Infinity" is not a finite number'],
    ['score 1abc', '1 Q0 a 1 1abc t', 'r:1: score "1abc" is not a finite number'],
    ['score hex', '1 Q0 a 1 0x1A t', 'r:1: score "0x1A" is not a finite number'],
    ['score lone dot', '1 Q0 a 1 . t', 'r:1: score "." is not a finite number'],
    ['score lone sign', '1 Q0 a 1 - t', 'r:1: score "-" is not a finite number'],
    ['score two dots', '1 Q0 a 1 1.2.3 t', 'r:1: score "1.2.3" is not a finite number'],
    ['rank 1.5', '1 Q0 a 1.5 1 t', 'r:1: rank "1.5" is not an integer'],
    ['rank 1.0', '1 Q0 a 1.0 1 t', 'r:1: rank "1.0" is not an integer'],
    ['rank x', '1 Q0 a x 1 t', 'r:1: rank "x" is not an integer'],
    ['rank 1e3', '1 Q0 a 1e3 1 t', 'r:1: rank "1e3" is not an integer'],
    ['rank sign only', '1 Q0 a - 1 t', 'r:1: rank "-" is not an integer'],
    [
      'duplicate docno',
      '1 Q0 a 1 3 t\n1 Q0 b 2 2 t\r\n\n1 Q0 a 3 1 t\n',
      'r:4: duplicate docno "a" for topic "1" (first at line 1)',
    ],
    [
      'duplicate docno after another topic',
      '1 Q0 a 1 3 t\n2 Q0 a 1 2 t\n1 Q0 a 2 1 t\n',
      'r:3: duplicate docno "a" for topic "1" (first at line 1)',
    ],
    ['empty file', '', 'r:0: no run lines'],
    ['only comments and blanks', '# x\n\n  \r\n#y', 'r:0: no run lines'],
  ];
  it.each(errors)('rejects %s', (_name, text, message) => {
    expect(formatErrorOf(() => parseRun(text, 'r')).message).toBe(message);
  });

  it('names the default file <run>', () => {
    expect(formatErrorOf(() => parseRun('')).message).toBe('<run>:0: no run lines');
  });
});

describe('TrecFormatError', () => {
  it('exposes file, line and reason and formats the message from them', () => {
    const error = new TrecFormatError('a.txt', 7, 'bad thing');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TrecFormatError');
    expect([error.file, error.line, error.reason, error.message]).toEqual([
      'a.txt',
      7,
      'bad thing',
      'a.txt:7: bad thing',
    ]);
  });
});

describe('rankEntries', () => {
  it('sorts by score descending, ties by docno descending, ignoring the rank column', () => {
    const entries = [
      { docno: 'a', rank: 1, score: 1 },
      { docno: 'c', rank: 2, score: 2 },
      { docno: 'b', rank: 3, score: 2 },
      { docno: 'B', rank: 4, score: 2 },
      { docno: 'z', rank: 5, score: -1 },
    ];
    const ranked = rankEntries(entries);
    expect(ranked.map((e) => e.docno)).toEqual(['c', 'b', 'B', 'a', 'z']);
    expect(entries.map((e) => e.docno)).toEqual(['a', 'c', 'b', 'B', 'z']); // input untouched
    expect(ranked).not.toBe(entries);
  });

  it('breaks ties in byte order like strcmp: prefixes first, digits as characters', () => {
    const ranked = rankEntries(
      ['d10', 'd9', 'd1', 'd'].map((docno) => ({ docno, rank: 0, score: 0 })),
    );
    expect(ranked.map((e) => e.docno)).toEqual(['d9', 'd10', 'd1', 'd']);
  });

  it('compares in UTF-8 byte order, also for characters beyond U+FFFF', () => {
    // U+1F600 is F0 9F 98 80 in UTF-8, U+FFFD is EF BF BD: the emoji sorts after it,
    // although its first UTF-16 code unit (D83D) is smaller.
    expect(compareBytewise('\u{1F600}', '\uFFFD')).toBeGreaterThan(0);
    expect(compareBytewise('\uFFFD', '\u{1F600}')).toBeLessThan(0);
    expect(compareBytewise('a\u00e9', 'a\u00e9')).toBe(0);
    expect(compareBytewise('ab', 'a')).toBeGreaterThan(0);
    expect(compareBytewise('Z', 'a')).toBeLessThan(0);
  });
});

describe('formatRun', () => {
  const run: Run = {
    name: 'myrun',
    topics: new Map([
      [
        '2',
        [
          { docno: 'x', rank: 7, score: 0.5 },
          { docno: 'y', rank: 3, score: 1.5 },
          { docno: 'w', rank: 9, score: 1.5 },
        ],
      ],
      ['1', [{ docno: 'a', rank: 1, score: -2e-7 }]],
    ]),
  };

  it('writes one qid Q0 docno rank score tag line per entry, as stored', () => {
    expect(formatRun(run)).toBe(
      '2 Q0 x 7 0.5 myrun\n2 Q0 y 3 1.5 myrun\n2 Q0 w 9 1.5 myrun\n1 Q0 a 1 -2e-7 myrun\n',
    );
  });

  it('re-ranks trec_eval-style and renumbers ranks with rerank, under another tag', () => {
    expect(formatRun(run, { rerank: true, tag: 'other' })).toBe(
      '2 Q0 y 1 1.5 other\n2 Q0 w 2 1.5 other\n2 Q0 x 3 0.5 other\n1 Q0 a 1 -2e-7 other\n',
    );
  });

  it('round-trips through parseRun exactly', () => {
    expect(parseRun(formatRun(run))).toEqual(run);
    const awkward: Run = {
      name: 't',
      topics: new Map([
        [
          'q',
          [
            { docno: 'd1', rank: 1, score: 0.1 + 0.2 },
            { docno: 'd2', rank: 2, score: -0 },
            { docno: 'd3', rank: 3, score: 1e21 },
            { docno: 'd4', rank: 4, score: 5e-324 },
            { docno: 'd5', rank: 5, score: -Number.MAX_VALUE },
          ],
        ],
      ]),
    };
    const back = parseRun(formatRun(awkward));
    expect(back).toEqual(awkward);
    expect(Object.is(back.topics.get('q')![1]!.score, -0)).toBe(true);
  });

  it('refuses values that would not read back', () => {
    const one = (docno: string, score = 1, qid = 'q'): Run => ({
      name: 't',
      topics: new Map([[qid, [{ docno, rank: 1, score }]]]),
    });
    expect(() => formatRun(one('a b'))).toThrow(RangeError);
    expect(() => formatRun(one('a b'))).toThrow('docno "a b" cannot be written as a TREC field');
    expect(() => formatRun(one(''))).toThrow('docno "" cannot be written as a TREC field');
    expect(() => formatRun(one('a', 1, 'q\t1'))).toThrow('qid "q\\t1" cannot be written');
    expect(() => formatRun(one('a'), { tag: 'my tag' })).toThrow('tag "my tag" cannot be written');
    expect(() => formatRun(one('a', NaN))).toThrow('cannot write non-finite number NaN');
    expect(() => formatRun(one('a', Infinity))).toThrow(RangeError);
  });
});

describe('parseRun with a topic filter', () => {
  const text = '1 Q0 a 1 2 t\n2 Q0 b 1 2 t\n2 Q0 b 2 1 t\n1 Q0 c 2 1 t2\n';

  it('keeps only the listed topics but still checks every line and reports the last tag', () => {
    const run = parseRun(text, 'r', { topics: new Set(['1']) });
    expect([...run.topics.keys()]).toEqual(['1']);
    expect(run.topics.get('1')!.map((e) => e.docno)).toEqual(['a', 'c']);
    expect(run.name).toBe('t2');
    expect(() => parseRun('1 Q0 a 1 2 t\n2 Q0 b x 1 t\n', 'r', { topics: new Set(['1']) })).toThrow(
      'r:2: rank "x" is not an integer',
    );
  });

  it('looks for duplicate docnos in kept topics only, as trec_eval does', () => {
    expect(() => parseRun(text, 'r')).toThrow(
      'r:3: duplicate docno "b" for topic "2" (first at line 2)',
    );
    expect(() => parseRun(text, 'r', { topics: new Set(['2']) })).toThrow('r:3: duplicate docno');
  });
});
