import { describe, expect, it } from 'vitest';
import {
  RunColumnsParser,
  TrecFormatError,
  docnoAt,
  lineOf,
  parseRun,
  parseRunColumns,
  type RunColumns,
} from '../src/index.js';
import { seededRandom } from '@assay/test-support/seeded';

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

// The lines that continue a topic the parser does not keep take a shorter path (skipLines).
// It must refuse exactly what the full checks refuse, with the same message and line.
describe('parseRunColumns on lines of a topic it does not keep', () => {
  const only2 = { topics: new Set(['2']) };
  /** Topic 1 (not kept) on lines 1-3 with `bad` as line 3, then topic 2. */
  const withLine3 = (bad: string) => `1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n${bad}\n2 Q0 c 1 1 t\n`;
  const refused: [string, string, string][] = [
    [
      'a missing tag',
      '1 Q0 d 3 1',
      'r:3: expected 6 fields (qid Q0 docno rank score tag), found 5',
    ],
    [
      'a missing tag before CRLF',
      '1 Q0 d 3 1\r',
      'r:3: expected 6 fields (qid Q0 docno rank score tag), found 5',
    ],
    ['only the qid', '1', 'r:3: expected 6 fields (qid Q0 docno rank score tag), found 1'],
    ['a rank with a point', '1 Q0 d 3.0 1 t', 'r:3: rank "3.0" is not an integer'],
    ['a bare sign as rank', '1 Q0 d - 1 t', 'r:3: rank "-" is not an integer'],
    ['a rank with a letter', '1 Q0 d 3x 1 t', 'r:3: rank "3x" is not an integer'],
    ['a letter score', '1 Q0 d 3 x t', 'r:3: score "x" is not a finite number'],
    ['a bare point', '1 Q0 d 3 . t', 'r:3: score "." is not a finite number'],
    ['a bare sign as score', '1 Q0 d 3 + t', 'r:3: score "+" is not a finite number'],
    ['two points', '1 Q0 d 3 1.2.3 t', 'r:3: score "1.2.3" is not a finite number'],
    ['two signs', '1 Q0 d 3 --1 t', 'r:3: score "--1" is not a finite number'],
    ['a hex score', '1 Q0 d 3 0x10 t', 'r:3: score "0x10" is not a finite number'],
    ['an infinite score', '1 Q0 d 3 1e999 t', 'r:3: score "1e999" is not a finite number'],
    ['NaN', '1 Q0 d 3 NaN t', 'r:3: score "NaN" is not a finite number'],
    [
      'a CR inside the line',
      '1 Q0 d\r3 1 t',
      "r:3: the line holds a carriage return (CR) that does not end it: lines end with LF (or CRLF); a file with CR-only line ends can be converted with tr '\\r' '\\n'",
    ],
    [
      'a CR after the tag, then more',
      '1 Q0 d 3 1 t\rx',
      "r:3: the line holds a carriage return (CR) that does not end it: lines end with LF (or CRLF); a file with CR-only line ends can be converted with tr '\\r' '\\n'",
    ],
    [
      'a line separator in the docno',
      '1 Q0 d\u2028 3 1 t',
      'r:3: the line holds a Unicode line separator (U+2028), which does not end a line here: lines end with LF (or CRLF)',
    ],
  ];
  it.each(refused)('refuses %s, in one piece and in small pieces', (_name, bad, message) => {
    const text = withLine3(bad);
    expect(errorOf(() => parseRunColumns(text, 'r', only2)).message).toBe(message);
    const bytes = new TextEncoder().encode(text);
    for (let size = 1; size <= 7; size++) {
      const parser = new RunColumnsParser('r', only2);
      expect(
        errorOf(() => {
          for (let i = 0; i < bytes.length; i += size) parser.push(bytes.subarray(i, i + size));
          parser.end();
        }).message,
      ).toBe(message);
    }
  });

  it('refuses a score of 400 digits (Infinity) but takes one of 300', () => {
    expect(
      errorOf(() => parseRunColumns(withLine3(`1 Q0 d 3 ${'9'.repeat(400)} t`), 'r', only2))
        .message,
    ).toMatch(/^r:3: score "9+\.\.\." is not a finite number$/);
    expect(
      entries(parseRunColumns(withLine3(`1 Q0 d 3 ${'9'.repeat(300)} t`), 'r', only2)),
    ).toEqual({
      '2': ['c 1@4'],
    });
  });

  it('refuses bytes that are not UTF-8, naming the line', () => {
    const head = new TextEncoder().encode('1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 d');
    const tail = new TextEncoder().encode(' 3 1 t\n2 Q0 c 1 1 t\n');
    const bytes = new Uint8Array([...head, 0xe9, ...tail]);
    expect(errorOf(() => parseRunColumns(bytes, 'r', only2)).message).toBe(
      'r:3: the line is not valid UTF-8 (bytes 0xE9 0x20 0x33 0x20); convert the file to UTF-8, or declare the encoding it is in',
    );
  });

  it('gives the line of an error on a kept topic after many lines it skipped', () => {
    const skipped = Array.from({ length: 500 }, (_, i) => `1 Q0 d${i} ${i + 1} ${500 - i}.5 t\n`);
    const text = `${skipped.join('')}2 Q0 c 1 1 t\n2 Q0 e 2 x t\n`;
    expect(errorOf(() => parseRunColumns(text, 'r', only2)).message).toBe(
      'r:502: score "x" is not a finite number',
    );
  });

  // What a line may hold and still be accepted: the full checks take what the shorter path
  // does not (exponents, \v and \f, UTF-8, a CR before the line end, blank and comment lines).
  const accepted = [
    '1 Q0 d 3 1 t',
    '  1\tQ0\td\t3\t1\tt',
    '1 Q0 d +3 -1 t',
    '1 Q0 d -3 +1 t',
    '1 Q0 d 3 5. t',
    '1 Q0 d 3 .5 t',
    '1 Q0 d 3 -0 t',
    '1 Q0 d 3 1e5 t',
    '1 Q0 d 3 -2.5E-3 t',
    '1 Q0 d 3 12345678901234567890.5 t',
    '1\vQ0\fd 3 1 t',
    '1 Q0 é 3 1 t',
    '1 Q0 d\u0001 3 1 t',
    '1 Q0 d 3 1 t extra columns here',
    '1 Q0 d 3 1 t\r',
    '1 Q0 d 3 1 t \t\r',
    '1 Q0 d 3 1 t\r\r',
    '# a comment',
    '',
    '   ',
  ];
  it.each(accepted)('accepts %j, keeping only topic 2 at the right line', (line) => {
    const run = parseRunColumns(withLine3(line), 'r', only2);
    expect(entries(run)).toEqual({ '2': ['c 1@4'] });
    expect(run.name).toBe('t');
  });

  it('takes the tag of the last line even when its topic is not kept', () => {
    const run = parseRunColumns('2 Q0 c 1 1 t2\n1 Q0 a 1 3 t1\n1 Q0 b 2 2 last\n', 'r', only2);
    expect(run.name).toBe('last');
    const crlf = parseRunColumns(
      '2 Q0 c 1 1 t2\r\n1 Q0 a 1 3 t1\r\n1 Q0 b 2 2 end\r\n',
      'r',
      only2,
    );
    expect(crlf.name).toBe('end');
  });

  it('does not take a kept topic whose id starts with the skipped one', () => {
    const only10 = { topics: new Set(['10']) };
    const text = '1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n10 Q0 c 1 1 t\n1 Q0 d 3 1 t\n10 Q0 e 2 0.5 t\n';
    expect(entries(parseRunColumns(text, 'r', only10))).toEqual({ '10': ['c 1@3', 'e 0.5@5'] });
  });
});

describe('parseRunColumns against parseRun, keeping one topic of three', () => {
  const PIECES = [
    ' ',
    '\t',
    '\r',
    '\r\n',
    '\v',
    '\f',
    '\n',
    '-',
    '+',
    '.',
    '..',
    'e',
    'E5',
    '0',
    '9',
    'x',
    '#',
    'é',
    '\u2028',
    '\u0001',
    '',
    'Q0',
    '1 ',
    '2 ',
    '10',
  ];
  const outcome = (parse: () => { name: string; kept: string[] }) => {
    try {
      return parse();
    } catch (error) {
      if (error instanceof TrecFormatError) return error.message;
      throw error;
    }
  };

  it('accepts and refuses the same texts, with the same message and line', () => {
    const next = seededRandom(20_261_127);
    const only2 = { topics: new Set(['2']) };
    for (let n = 0; n < 3000; n++) {
      const lines: string[] = [];
      for (const qid of ['1', '2', '3'])
        for (let r = 1; r <= 4; r++)
          lines.push(`${qid}\tQ0\td${qid}-${r}\t${r}\t${(9 - r) / 4}\ttag${qid}`);
      let text = `${lines.join('\n')}\n`;
      for (let k = 1 + Math.floor(next() * 3); k > 0; k--) {
        const at = Math.floor(next() * text.length);
        const cut = next() < 0.3 ? 1 : 0;
        text =
          text.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)] + text.slice(at + cut);
      }
      const columns = outcome(() => {
        const run = parseRunColumns(text, 'r', only2);
        const topic = run.topics.get('2');
        const kept = topic
          ? Array.from(
              { length: topic.length },
              (_, i) => `${docnoAt(topic, i)} ${topic.scores[i]}`,
            )
          : [];
        return { name: run.name, kept };
      });
      const strings = outcome(() => {
        const run = parseRun(text, 'r', only2);
        return {
          name: run.name,
          kept: (run.topics.get('2') ?? []).map((e) => `${e.docno} ${e.score}`),
        };
      });
      expect(columns, JSON.stringify(text)).toEqual(strings);
    }
  });
});
