import { describe, expect, it } from 'vitest';
import { RunStreamParser, lastRunTag } from '../src/index.js';

/** Streams `pieces` through a parser; the entries it handed on, its tag and scattered flag. */
function stream(pieces: string[]) {
  const entries: [string, string, number, number][] = [];
  const parser = new RunStreamParser('s.run', (q, d, r, s) => entries.push([q, d, r, s]), {
    storage: true,
  });
  for (const piece of pieces) parser.push(piece);
  const tag = parser.end();
  return { entries, tag, scattered: parser.scattered };
}

describe('RunStreamParser', () => {
  it('hands on every entry in file order across pieces cut mid-line', () => {
    const r = stream(['1 Q0 d1 1 2.5 a\n1 Q0 d', '2 2 -1 a\n2 Q0 d1 1 ', '0.5 b']);
    expect(r.entries).toEqual([
      ['1', 'd1', 1, 2.5],
      ['1', 'd2', 2, -1],
      ['2', 'd1', 1, 0.5],
    ]);
    expect(r.tag).toBe('b');
    expect(r.scattered).toBe(false);
  });

  it('refuses a repeat within a stretch of a topic, and marks a topic that comes back', () => {
    expect(() => stream(['1 Q0 d1 1 1 a\n1 Q0 d1 2 1 a\n'])).toThrow(
      's.run:2: duplicate docno "d1" for topic "1" (first at line 1)',
    );
    const back = stream(['1 Q0 d1 1 1 a\n2 Q0 d1 1 1 a\n1 Q0 d2 2 1 a\n']);
    expect(back.scattered).toBe(true);
    expect(back.entries).toHaveLength(3);
  });

  it('fails as parseRun does on a bad line and on an empty run', () => {
    expect(() => stream(['1 Q0 d1 1 1 a\n1 Q0 d2 2 x a\n'])).toThrow(
      's.run:2: score "x" is not a finite number',
    );
    expect(() => stream(['# only a comment\n'])).toThrow('s.run:0: no run lines');
  });
});

describe('lastRunTag', () => {
  it("reads the tag of the last line with fields, past blank and '#' lines", () => {
    expect(lastRunTag('1 Q0 d1 1 1 a\n1 Q0 d2 2 1 b\n\n# c d e f g h\n  \n')).toBe('b');
    expect(lastRunTag(['1 Q0 d1 1 1 a\n1 Q0 ', 'd2 2 1\tlast extra\r\n'])).toBe('last');
    expect(lastRunTag('\uFEFF1 Q0 d1 1 1 tag')).toBe('tag');
  });

  it('gives nothing when the last line with fields has fewer than six, or there is none', () => {
    expect(lastRunTag('1 Q0 d1 1 1 a\n1 Q0 d2 2\n')).toBeUndefined();
    expect(lastRunTag('\n# x\n')).toBeUndefined();
    expect(lastRunTag('')).toBeUndefined();
  });
});
