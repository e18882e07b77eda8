import { compareBytewise, rankEntries as trecRankEntries } from '@assay/trec';
import { describe, expect, it } from 'vitest';
import { compareDocno, rankEntries } from '../src/index.js';
import { runA, runB, runC } from './fixtures.js';
import { parseRun } from './trec-text.js';

const docnos = (run: typeof runA, topic: string) =>
  rankEntries(run.topics.get(topic)!).map((e) => e.docno);

describe('trec_eval ranking', () => {
  it('sorts by score descending and breaks ties by docno descending, ignoring the rank column', () => {
    expect(docnos(runA, '1')).toEqual(['d1', 'd3', 'd2', 'd4']);
    expect(docnos(runB, '1')).toEqual(['d5', 'd1', 'd2', 'd6']);
    expect(docnos(runC, '1')).toEqual(['d9', 'd3', 'd10', 'd7']);
    expect(docnos(runB, '2')).toEqual(['e3', 'e2']);
  });

  it('compares scores as doubles, as trec_eval 10.0 stores them: no float32 tie', () => {
    // 1.00000001 and 1.00000002 differ by 1e-8, below float32 precision near 1 (spacing 2^-23
    // ≈ 1.19e-7), so as floats they would tie and docno descending would put b above a.
    // As doubles they differ, and the higher score (a) ranks first.
    const run = parseRun(`
1 Q0 b 1 1.00000001 F
1 Q0 a 2 1.00000002 F
1 Q0 c 3 1.5 F
`);
    expect(docnos(run, '1')).toEqual(['c', 'a', 'b']);
  });

  it('ranks exactly as @assay/trec does', () => {
    for (const run of [runA, runB, runC]) {
      for (const entries of run.topics.values()) {
        expect(rankEntries(entries)).toEqual(trecRankEntries(entries));
      }
    }
  });

  it('orders docnos as strcmp orders their UTF-8 bytes', () => {
    expect(compareDocno).toBe(compareBytewise);
    expect(compareDocno('d9', 'd10')).toBeGreaterThan(0);
    expect(compareDocno('d1', 'd10')).toBeLessThan(0);
    expect(compareDocno('abc', 'abc')).toBe(0);
    expect(compareDocno('Z', 'a')).toBeLessThan(0);
    // U+FFFF (EF BF BF) sorts before U+10000 (F0 90 80 80), unlike UTF-16 code units.
    expect('\u{10000}' < '\uffff').toBe(true);
    expect(compareDocno('\uffff', '\u{10000}')).toBeLessThan(0);
    expect(compareDocno('\u00e9', '\u{1f600}')).toBeLessThan(0);
  });

  it('refuses a topic that retrieves the same document twice, as trec_eval does', () => {
    const run = parseRun(`
7 Q0 x 1 2 R
7 Q0 x 2 1 R
`);
    expect(() => rankEntries(run.topics.get('7')!, 'run R topic 7')).toThrow(
      'run R topic 7: document "x" is retrieved twice',
    );
  });
});
