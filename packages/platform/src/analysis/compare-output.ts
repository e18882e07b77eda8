import { correlateLeaderboards, type RankCorrelation } from './compare.js';
import { comparisonHtml } from './compare-html.js';
import {
  comparisonCsv,
  comparisonJson,
  comparisonLatex,
  comparisonTable,
  type CompareReport,
} from './compare-report.js';

/** The ways a comparison can be written out. */
export const COMPARE_FORMATS = ['table', 'json', 'csv', 'latex', 'html'] as const;

/** One of COMPARE_FORMATS. */
export type CompareFormat = (typeof COMPARE_FORMATS)[number];

/**
 * A report of one or two leaderboards; with two, the rank correlation of their orderings
 * under each of `measures` (the first leaderboard is the reference).
 */
export function comparisonReport(
  leaderboards: CompareReport['leaderboards'],
  measures: readonly string[],
): CompareReport {
  const report: CompareReport = { leaderboards };
  if (leaderboards.length === 2) {
    const [a, b] = leaderboards as [(typeof leaderboards)[0], (typeof leaderboards)[0]];
    report.rankCorrelation = Object.fromEntries(
      measures.map((m): [string, RankCorrelation] => [
        m,
        correlateLeaderboards(a.comparison, b.comparison, m),
      ]),
    );
  }
  return report;
}

/** A comparison written in one of the formats (`table` is the text of `assay compare`). */
export function renderComparison(report: CompareReport, format: CompareFormat): string {
  switch (format) {
    case 'table':
      return comparisonTable(report);
    case 'json':
      return comparisonJson(report);
    case 'csv':
      return comparisonCsv(report);
    case 'latex':
      return comparisonLatex(report);
    case 'html':
      return comparisonHtml(report);
  }
}
