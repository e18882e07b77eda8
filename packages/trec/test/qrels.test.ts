import { describe, expect, it } from 'vitest';
import { type Qrels, formatQrels, parseQrels } from '../src/index.js';
import { formatErrorOf } from './helpers.js';

describe('parseQrels', () => {
  it('reads qid iter docno rel lines into topic → docno → grade, negatives included', () => {
    const qrels = parseQrels('301 0 A 1\n301 0 B 0\n302 Q0 A -1\n301 7 C 3\n');
    expect(qrels).toEqual(
      new Map([
        [
          '301',
          new Map([
            ['A', 1],
            ['B', 0],
            ['C', 3],
          ]),
        ],
        ['302', new Map([['A', -1]])],
      ]),
    );
    expect([...qrels.keys()]).toEqual(['301', '302']);
  });

  it('accepts tabs, CRLF, comments, blank lines, trailing whitespace and no final newline', () => {
    const text = '# header\r\n301\t0\tA\t2 \t\r\n\r\n  # note\r\n  301  0  B  +1\r\n   ';
    expect(parseQrels(text)).toEqual(
      new Map([
        [
          '301',
          new Map([
            ['A', 2],
            ['B', 1],
          ]),
        ],
      ]),
    );
  });

  const errors: [string, string, string][] = [
    ['three fields', '1 0 a 1\n1 0 b\n', 'q:2: expected 4 fields (qid iter docno rel), found 3'],
    ['five fields', '1 0 a 1 x\n', 'q:1: expected 4 fields (qid iter docno rel), found 5'],
    ['rel 1.5', '\n1 0 a 1.5\n', 'q:2: relevance "1.5" is not an integer'],
    ['rel x', '1 0 a x', 'q:1: relevance "x" is not an integer'],
    ['rel 1e0', '1 0 a 1e0', 'q:1: relevance "1e0" is not an integer'],
    [
      'duplicate judgment',
      '1 0 a 1\r\n# c\r\n1 0 b 0\r\n1 0 a 2\r\n',
      'q:4: duplicate judgment for topic "1" docno "a" (first at line 1)',
    ],
    ['empty file', '', 'q:0: no qrels lines'],
    ['only comments', '# a\n# b\n\n', 'q:0: no qrels lines'],
  ];
  it.each(errors)('rejects %s', (_name, text, message) => {
    expect(formatErrorOf(() => parseQrels(text, 'q')).message).toBe(message);
  });

  it('names the default file <qrels>', () => {
    expect(formatErrorOf(() => parseQrels('x')).message).toBe(
      '<qrels>:1: expected 4 fields (qid iter docno rel), found 1',
    );
  });

  it('allows the same docno under different topics', () => {
    expect(parseQrels('1 0 a 1\n2 0 a 0').get('2')!.get('a')).toBe(0);
  });
});

describe('formatQrels', () => {
  const qrels: Qrels = new Map([
    [
      'b',
      new Map([
        ['d2', 2],
        ['d1', -1],
      ]),
    ],
    ['a', new Map([['d1', 0]])],
  ]);

  it('writes qid 0 docno rel lines in map order', () => {
    expect(formatQrels(qrels)).toBe('b 0 d2 2\nb 0 d1 -1\na 0 d1 0\n');
  });

  it('round-trips through parseQrels', () => {
    expect(parseQrels(formatQrels(qrels))).toEqual(qrels);
  });

  it('refuses values that would not read back', () => {
    expect(() => formatQrels(new Map([['q', new Map([['a b', 1]])]]))).toThrow(
      'docno "a b" cannot be written as a TREC field',
    );
    expect(() => formatQrels(new Map([['q', new Map([['a', 1.5]])]]))).toThrow(
      'relevance 1.5 of "a" is not an integer',
    );
  });
});
