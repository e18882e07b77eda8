import { runSteps } from '@assay/stats';
import {
  CORRELATION_DEFAULTS,
  correlateLeaderboardsSteps,
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
  return runSteps(comparisonReportSteps(leaderboards, measures, correlation));
}

/**
 * {@link comparisonReport} one step at a time (a step every few resamples of the rank
 * correlations' intervals), with the same report, so that a server can compute it a slice
 * at a time (see work-slices.ts).
 */
export function* comparisonReportSteps(
  leaderboards: CompareReport['leaderboards'],
  measures: readonly string[],
  correlation: Partial<CorrelationSettings> = {},
): Generator<void, CompareReport, void> {
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
    const correlations: Record<string, RankCorrelation> = {};
    for (const m of measures)
      correlations[m] = yield* correlateLeaderboardsSteps(a.comparison, b.comparison, m, settings);
    report.rankCorrelation = correlations;
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
