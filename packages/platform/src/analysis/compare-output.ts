import {
  CORRELATION_DEFAULTS,
  correlateLeaderboards,
  type CorrelationSettings,
  type RankCorrelation,
} from './rank-correlation.js';
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
  correlation: Partial<CorrelationSettings> = {},
): CompareReport {
  const report: CompareReport = { leaderboards };
  if (leaderboards.length === 2) {
    const [a, b] = leaderboards as [(typeof leaderboards)[0], (typeof leaderboards)[0]];
    const settings: CorrelationSettings = {
      ...CORRELATION_DEFAULTS,
      seed: a.comparison.seed,
      ...correlation,
    };
    const paired =
      a.comparison.topicIds.length === b.comparison.topicIds.length &&
      a.comparison.topicIds.every((t, i) => b.comparison.topicIds[i] === t);
    report.rankCorrelationSettings = {
      ...settings,
      level: 0.95,
      resampling: paired
        ? 'topics drawn with replacement, the same draw for both leaderboards'
        : "each leaderboard's topics drawn with replacement on their own",
    };
    report.rankCorrelation = Object.fromEntries(
      measures.map((m): [string, RankCorrelation] => [
        m,
        correlateLeaderboards(a.comparison, b.comparison, m, settings),
      ]),
    );
  }
  return report;
}

/** What a rendering may carry besides the comparison itself. */
interface RenderOptions {
  /**
   * The report's title: the heading and `<title>` of the HTML page, a first `% ` comment
   * line of the LaTeX and a leading `title` section of the CSV. Without it the HTML is
   * headed "assay compare" and the other formats carry no title.
   */
  title?: string;
}

/** A comparison written in one of the formats (`table` is the text of `assay compare`). */
export function renderComparison(
  report: CompareReport,
  format: CompareFormat,
  options: RenderOptions = {},
): string {
  const { title } = options;
  switch (format) {
    case 'table':
      return comparisonTable(report);
    case 'json':
      return comparisonJson(report);
    case 'csv':
      return comparisonCsv(report, title);
    case 'latex':
      return comparisonLatex(report, title);
    case 'html':
      return comparisonHtml(report, title);
  }
}
