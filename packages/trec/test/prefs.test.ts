import { describe, expect, it } from 'vitest';
import { parsePrefs, parseQrelsJg, parseQrelsPrefs } from '../src/index.js';
import { formatErrorOf } from './helpers.js';

describe('parsePrefs', () => {
  it('reads qid jg jsg docno level lines per topic, in file order, levels as reals', () => {
    const prefs = parsePrefs(
      '# users\n1 u1 s1 d1 3.0\r\n1 u1 s1 d2\t2.5\n\n2 u2 s 0 -1\n1 u2 s d1 0',
    );
    expect(prefs).toEqual(
      new Map([
        [
          '1',
          [
            { jg: 'u1', jsg: 's1', docno: 'd1', rel: 3 },
            { jg: 'u1', jsg: 's1', docno: 'd2', rel: 2.5 },
            { jg: 'u2', jsg: 's', docno: 'd1', rel: 0 },
          ],
        ],
        ['2', [{ jg: 'u2', jsg: 's', docno: '0', rel: -1 }]],
      ]),
    );
  });

  const errors: [string, string, string][] = [
    [
      'four fields',
      '1 u s d 1\n1 u s d\n',
      'p:2: expected 5 fields (qid jg jsg docno rel), found 4',
    ],
    ['six fields', '1 u s d 1 x\n', 'p:1: expected 5 fields (qid jg jsg docno rel), found 6'],
    ['level x', '1 u s d x', 'p:1: relevance "x" is not a number'],
    ['empty file', '# only\n', 'p:0: no prefs lines'],
  ];
  it.each(errors)('rejects %s', (_name, text, message) => {
    expect(formatErrorOf(() => parsePrefs(text, 'p')).message).toBe(message);
  });
});

describe('parseQrelsPrefs', () => {
  it('reads qrels as preferences: the iter column is the group, one sub-group 0', () => {
    expect(parseQrelsPrefs('301 0 A 1\n301 7 B 0.5\n')).toEqual(
      new Map([
        [
          '301',
          [
            { jg: '0', jsg: '0', docno: 'A', rel: 1 },
            { jg: '7', jsg: '0', docno: 'B', rel: 0.5 },
          ],
        ],
      ]),
    );
  });

  it('names the file and line of a bad line', () => {
    expect(formatErrorOf(() => parseQrelsPrefs('1 0 a 1\n1 0 b\n', 'q')).message).toBe(
      'q:2: expected 4 fields (qid iter docno rel), found 3',
    );
  });
});

describe('parseQrelsJg', () => {
  it('reads qid group docno rel lines into topic → group → docno → grade', () => {
    expect(parseQrelsJg('301 0 A 1\n301 1 A 0\n301 0 B -1\n')).toEqual(
      new Map([
        [
          '301',
          new Map([
            [
              '0',
              new Map([
                ['A', 1],
                ['B', -1],
              ]),
            ],
            ['1', new Map([['A', 0]])],
          ]),
        ],
      ]),
    );
  });

  const errors: [string, string, string][] = [
    ['three fields', '1 0 a 1\n1 0 b\n', 'q:2: expected 4 fields (qid group docno rel), found 3'],
    ['rel 1.5', '1 0 a 1.5', 'q:1: relevance "1.5" is not an integer'],
    [
      'a document judged twice by one group',
      '1 g a 1\n1 h a 0\n1 g a 1\n',
      'q:3: duplicate judgment for topic "1" group "g" docno "a" (first at line 1)',
    ],
    ['empty file', '', 'q:0: no qrels lines'],
  ];
  it.each(errors)('rejects %s', (_name, text, message) => {
    expect(formatErrorOf(() => parseQrelsJg(text, 'q')).message).toBe(message);
  });
});
