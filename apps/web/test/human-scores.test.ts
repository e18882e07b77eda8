import { describe, expect, it } from 'vitest';
import { answerKey, scoreFile } from '../src/lib/human-scores';

describe('scoreFile', () => {
  it('writes one score line per fully scored answer, criteria in rubric order', () => {
    const scores: Record<string, Record<string, number>> = {
      [answerKey('q2', 'b')]: { correctness: 3, informativeness: 1 },
      [answerKey('q1', 'a')]: { informativeness: 4, correctness: 5 },
      // Left out: correctness was not given.
      [answerKey('q1', 'b')]: { informativeness: 2 },
    };
    expect(scoreFile(scores, ['informativeness', 'correctness'])).toBe(
      '{"topic":"q1","system":"a","trial":1,"scores":{"informativeness":4,"correctness":5},"justification":""}\n' +
        '{"topic":"q2","system":"b","trial":1,"scores":{"informativeness":1,"correctness":3},"justification":""}\n',
    );
  });

  it('is empty when no answer is fully scored or there is no rubric', () => {
    expect(
      scoreFile({ [answerKey('q1', 'a')]: { informativeness: 2 } }, ['informativeness', 'x']),
    ).toBe('');
    expect(scoreFile({ [answerKey('q1', 'a')]: { informativeness: 2 } }, [])).toBe('');
  });

  it('keeps topics and systems with spaces or quotes apart', () => {
    const key = answerKey('topic "1"', 'sys tem');
    expect(scoreFile({ [key]: { a: 0 } }, ['a'])).toBe(
      '{"topic":"topic \\"1\\"","system":"sys tem","trial":1,"scores":{"a":0},"justification":""}\n',
    );
  });
});
