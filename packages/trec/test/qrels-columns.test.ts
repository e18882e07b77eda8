import { describe, expect, it } from 'vitest';
import {
  QrelsColumnsParser,
  judgedDocnoAt,
  parseQrelsColumns,
  type QrelsColumns,
} from '../src/index.js';
import { formatErrorOf } from './helpers.js';

/** Each topic as `docno grade` strings. */
function judgments(qrels: QrelsColumns): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [qid, topic] of qrels) {
    out[qid] = Array.from(
      { length: topic.length },
      (_, i) => `${judgedDocnoAt(topic, i)} ${topic.grades[i]}`,
    );
  }
  return out;
}

function inPieces(text: string, size: number): QrelsColumns {
  const bytes = new TextEncoder().encode(text);
  const parser = new QrelsColumnsParser('q');
  for (let i = 0; i < bytes.length; i += size) parser.push(bytes.subarray(i, i + size));
  return parser.end();
}

describe('parseQrelsColumns', () => {
  it('reads qid iter docno rel lines, negatives included, topics in first-seen order', () => {
    const qrels = parseQrelsColumns('301 0 A 1\n301 0 B 0\n302 Q0 A -1\n301 7 C 3\n');
    expect([...qrels.keys()]).toEqual(['301', '302']);
    expect(judgments(qrels)).toEqual({ '301': ['A 1', 'B 0', 'C 3'], '302': ['A -1'] });
  });

  it('accepts tabs, CRLF, comments, blank lines and no final newline, in any chunking', () => {
    const text = '# header\r\n301\t0\tA\t2 \t\r\n\r\n  # note\r\n  301  0  B  +1\r\n   ';
    for (const size of [1, 2, 3, 5, 100])
      expect(judgments(inPieces(text, size))).toEqual({ '301': ['A 2', 'B 1'] });
  });

  // The messages parseQrels gives for the same text.
  const errors: [string, string, string][] = [
    ['three fields', '1 0 a 1\n1 0 b\n', 'q:2: expected 4 fields (qid iter docno rel), found 3'],
    ['five fields', '1 0 a 1 x\n', 'q:1: expected 4 fields (qid iter docno rel), found 5'],
    ['rel 1.5', '\n1 0 a 1.5\n', 'q:2: relevance "1.5" is not an integer'],
    ['rel 1e0', '1 0 a 1e0', 'q:1: relevance "1e0" is not an integer'],
    [
      'duplicate judgment',
      '1 0 a 1\r\n# c\r\n1 0 b 0\r\n1 0 a 2\r\n',
      'q:4: duplicate judgment for topic "1" docno "a" (first at line 1)',
    ],
    [
      'a duplicate before a bad line',
      '1 0 a 1\n1 0 a 2\n1 0 b x\n',
      'q:2: duplicate judgment for topic "1" docno "a" (first at line 1)',
    ],
    ['empty file', '', 'q:0: no qrels lines'],
    ['only comments', '# a\n# b\n\n', 'q:0: no qrels lines'],
  ];
  it.each(errors)('rejects %s, whole and in pieces', (_name, text, message) => {
    expect(formatErrorOf(() => parseQrelsColumns(text, 'q')).message).toBe(message);
    for (const size of [1, 4])
      expect(formatErrorOf(() => inPieces(text, size)).message).toBe(message);
  });

  it('allows the same docno under different topics', () => {
    expect(judgments(parseQrelsColumns('1 0 a 1\n2 0 a 0'))).toEqual({
      '1': ['a 1'],
      '2': ['a 0'],
    });
  });
});
