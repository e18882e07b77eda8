import { describe, expect, it } from 'vitest';
import { answerQualityReport } from '@assay/stats';
import {
  formatScoreLine,
  parseScoreLines,
  renderAnswersReport,
  routeBreakdown,
} from '../src/index.js';

const LINES = [
  { topic: 't1', system: 'srsa', trial: 1, scores: { a: 2 }, justification: '', route: 'direct' },
  { topic: 't1', system: 'srsa', trial: 2, scores: { a: 4 }, justification: '', route: 'direct' },
  { topic: 't2', system: 'srsa', trial: 1, scores: { a: 5 }, justification: '', route: 'direct' },
  { topic: 't3', system: 'srsa', trial: 1, scores: { a: 1 }, justification: '', route: 'planning' },
  { topic: 't1', system: 'bm25', trial: 1, scores: { a: 3 }, justification: '' },
  { topic: 't2', system: 'bm25', trial: 1, scores: { a: 3 }, justification: '' },
  { topic: 't3', system: 'bm25', trial: 1, scores: { a: 3 }, justification: '' },
];

describe('answers by route', () => {
  it("keeps a score line's route through the score file", () => {
    const text = LINES.map((l) => `${formatScoreLine(l)}\n`).join('');
    expect(text.split('\n')[0]).toBe(
      '{"topic":"t1","system":"srsa","trial":1,"scores":{"a":2},"justification":"","route":"direct"}',
    );
    expect(parseScoreLines(text, 'scores.jsonl')).toEqual(LINES);
  });

  it('means per (system, route): trials averaged first, then the topics of the route', () => {
    // direct: t1 (2 + 4) / 2 = 3 and t2 5, mean 4 over 2 topics; planning: t3 1.
    expect(routeBreakdown(LINES)).toEqual([
      { system: 'srsa', route: 'direct', topics: 2, means: { a: 4 } },
      { system: 'srsa', route: 'planning', topics: 1, means: { a: 1 } },
    ]);
    expect(routeBreakdown(LINES.filter((l) => l.system === 'bm25'))).toEqual([]);
  });

  it('the table and CSV reports show the breakdown', () => {
    const report = answerQualityReport(LINES, { samples: 100, seed: 1 });
    const settings = {
      test: 'paired' as const,
      correction: 'holm' as const,
      alpha: 0.05,
      routes: routeBreakdown(LINES),
    };
    expect(renderAnswersReport(report, 'table', settings)).toContain(
      'Means by route (the path each answer took):\n' +
        'system     route  topics       a\n' +
        'srsa      direct       2  4.0000\n' +
        'srsa    planning       1  1.0000\n',
    );
    expect(renderAnswersReport(report, 'csv', settings)).toContain(
      '\nsystem,route,topics,criterion,mean\nsrsa,direct,2,a,4\nsrsa,planning,1,a,1\n',
    );
  });
});
