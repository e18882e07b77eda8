import { describe, expect, it } from 'vitest';
import {
  RunColumnsParser,
  TrecFormatError,
  docnoAt,
  lineOf,
  parseRunColumns,
  type RunColumns,
} from '../src/index.js';

/** Parses `text` fed in pieces of `size` bytes (every split point a line may straddle). */
function inPieces(text: string, size: number, file = 'r'): RunColumns {
  const bytes = new TextEncoder().encode(text);
  const parser = new RunColumnsParser(file);
  for (let i = 0; i < bytes.length; i += size) parser.push(bytes.subarray(i, i + size));
  return parser.end();
}

/** Each topic as `docno score@line` strings, for compact expectations. */
function entries(run: RunColumns): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [qid, topic] of run.topics) {
    out[qid] = Array.from(
      { length: topic.length },
      (_, i) => `${docnoAt(topic, i)} ${topic.scores[i]}@${lineOf(topic, i)}`,
    );
  }
  return out;
}

function errorOf(fn: () => unknown): TrecFormatError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TrecFormatError) return error;
    throw error;
  }
  throw new Error('expected a TrecFormatError');
}

// A byte-order mark, CRLF, tabs and runs of blanks, comments, a blank line, topic 1 split
// in two, a UTF-8 docno and the last line without \n.
const TEXT =
  '\uFEFF1 Q0 a 1 2.5 t1\r\n' +
  '# a comment\n' +
  '1\tQ0\tb   2 -1e2 t1 extra\n' +
  '\n' +
  '2 Q0 é 1 0.125 t2\n' +
  '1 Q0 c 3 7 last';

describe('parseRunColumns', () => {
  it('reads topics, docnos, scores, line numbers and the last tag', () => {
    const run = parseRunColumns(TEXT, 'r');
    expect(run.name).toBe('last');
    expect(entries(run)).toEqual({
      '1': ['a 2.5@1', 'b -100@3', 'c 7@6'],
      '2': ['é 0.125@5'],
    });
  });

  it('gives the same result whatever the chunk size', () => {
    for (let size = 1; size <= 9; size++) {
      const run = inPieces(TEXT, size);
      expect(run.name).toBe('last');
      expect(entries(run)).toEqual({
        '1': ['a 2.5@1', 'b -100@3', 'c 7@6'],
        '2': ['é 0.125@5'],
      });
    }
  });

  it('keeps only the topics asked for but still checks every line', () => {
    const run = parseRunColumns('1 Q0 a 1 2 t\n2 Q0 b 1 1 t\n', 'r', { topics: new Set(['2']) });
    expect(entries(run)).toEqual({ '2': ['b 1@2'] });
    expect(
      errorOf(() => parseRunColumns('1 Q0 a x 2 t\n', 'r', { topics: new Set(['2']) })).message,
    ).toBe('r:1: rank "x" is not an integer');
  });

  it('checks the scores of topics it does not keep as it checks kept ones', () => {
    const only2 = { topics: new Set(['2']) };
    const scoreError = (score: string) =>
      errorOf(() => parseRunColumns(`1 Q0 a 1 ${score} t\n2 Q0 b 1 1 t\n`, 'r', only2)).message;
    for (const bad of ['.', '-', '1.2.3', '1e', '0x10', 'inf'])
      expect(scoreError(bad)).toBe(`r:1: score "${bad}" is not a finite number`);
    // 400 digits overflow to Infinity (the message shortens the field).
    expect(scoreError('1'.repeat(400))).toMatch(/^r:1: score "1+\.\.\." is not a finite number$/);
    // Exponents, 20-digit mantissas, bare points and signs are numbers.
    for (const good of ['1e5', '-2.5E-3', '12345678901234567890.5', '5.', '.5', '+3'])
      expect(entries(parseRunColumns(`1 Q0 a 1 ${good} t\n2 Q0 b 1 1 t\n`, 'r', only2))).toEqual({
        '2': ['b 1@2'],
      });
  });

  // The same messages parseRun gives for the same text.
  const errors: [string, string, string][] = [
    [
      'too few fields',
      '1 Q0 a 1 1 t\n1 Q0 b 2 1\n',
      'r:2: expected 6 fields (qid Q0 docno rank score tag), found 5',
    ],
    ['score abc', '# c\n1 Q0 a 1 abc t\n', 'r:2: score "abc" is not a finite number'],
    ['score Infinity', '1 Q0 a 1 Infinity t', 'r:1: score "Infinity" is not a finite number'],
    ['score hex', '1 Q0 a 1 0x1A t', 'r:1: score "0x1A" is not a finite number'],
    ['score two dots', '1 Q0 a 1 1.2.3 t', 'r:1: score "1.2.3" is not a finite number'],
    ['rank 1.0', '1 Q0 a 1.0 1 t', 'r:1: rank "1.0" is not an integer'],
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
    [
      'a duplicate before a bad line wins, as it comes first',
      '1 Q0 a 1 3 t\n1 Q0 a 2 2 t\n1 Q0 b x 1 t\n',
      'r:2: duplicate docno "a" for topic "1" (first at line 1)',
    ],
    [
      'the earliest of two duplicates',
      '1 Q0 a 1 3 t\n2 Q0 b 1 3 t\n2 Q0 b 2 3 t\n1 Q0 a 2 2 t\n',
      'r:3: duplicate docno "b" for topic "2" (first at line 2)',
    ],
    ['empty file', '', 'r:0: no run lines'],
    ['only comments and blanks', '# x\n\n  \r\n#y', 'r:0: no run lines'],
  ];
  it.each(errors)('rejects %s, in one piece and in small pieces', (_name, text, message) => {
    expect(errorOf(() => parseRunColumns(text, 'r')).message).toBe(message);
    for (let size = 1; size <= 5; size++)
      expect(errorOf(() => inPieces(text, size)).message).toBe(message);
  });
});
