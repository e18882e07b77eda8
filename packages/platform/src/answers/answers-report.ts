// Renders the answer-quality report (`assay answers report`, stored score sets) as an
// aligned text table, JSON, CSV or LaTeX; the HTML page is in answers-html.ts.
import type { AnswerQualityReport, PValueAdjustment, TrialSpread } from '@assay/stats';
import { f4, formatP } from '../analysis/compare-report.js';
import { answersHtml } from './answers-html.js';
import { csvRow, latexEscape } from '../formats/index.js';

/** The formats of `assay answers report`. */
export type AnswersReportFormat = 'table' | 'json' | 'csv' | 'latex' | 'html';

/** What the report was computed with, stated in the table, LaTeX and HTML renderings. */
export interface AnswersReportSettings {
  test: 'paired' | 'welch';
  correction: PValueAdjustment;
  alpha: number;
  /** The spread of repeated trials, shown by the table and HTML when there were several. */
  spread?: TrialSpread;
}

/** Criteria in report order (as the systems' means list them). */
export function reportCriteria(report: AnswerQualityReport): string[] {
  return Object.keys(report.systems[0]?.means ?? {});
}

/** One sentence on the statistics behind the numbers. */
export function methodLine(settings: AnswersReportSettings): string {
  const test =
    settings.test === 'paired'
      ? 'paired t-test over the topics both systems answered'
      : "Welch's t-test (unequal variances) over each system's topics";
  return (
    `Means over topics (trials averaged first) with 95% percentile bootstrap intervals; ` +
    `win rate = share of the topics every system answered where the system has the top ` +
    `score (ties win for each), normalised to sum to 1; ${test}, ${settings.correction} ` +
    `correction per criterion, significant at ${settings.alpha}.`
  );
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))))
    .map((r) => r.join('  ').trimEnd())
    .join('\n');
}

/**
 * Renders the report. JSON is `{systems, tests}` exactly as answerQualityReport returns it
 * (NaN as null); CSV has a systems section and a tests section separated by a blank line.
 */
export function renderAnswersReport(
  report: AnswerQualityReport,
  format: AnswersReportFormat,
  settings: AnswersReportSettings,
): string {
  const criteria = reportCriteria(report);
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'html':
      return answersHtml(report, settings);
    case 'csv': {
      const lines = ['system,criterion,n,mean,ci_low,ci_high,win_rate,win_rate_normalised'];
      for (const s of report.systems)
        for (const c of criteria)
          lines.push(
            csvRow([
              s.system,
              c,
              s.n,
              s.means[c],
              s.ci[c]![0],
              s.ci[c]![1],
              s.winRate[c],
              s.winRateNormalised[c],
            ]),
          );
      lines.push('', 'a,b,criterion,test,statistic,p,p_adjusted,significant');
      for (const t of report.tests)
        lines.push(
          csvRow([t.a, t.b, t.criterion, t.test, t.statistic, t.p, t.pAdjusted, t.significant]),
        );
      return `${lines.join('\n')}\n`;
    }
    case 'latex': {
      const head = ['System', 'n', ...criteria.map((c) => latexEscape(c))];
      const body = report.systems.map((s) => [
        latexEscape(s.system),
        String(s.n),
        ...criteria.map(
          (c) =>
            `${f4(s.means[c]!)} [${f4(s.ci[c]![0])}, ${f4(s.ci[c]![1])}] (${f4(s.winRateNormalised[c]!)})`,
        ),
      ]);
      const tests = report.tests.map((t) =>
        [
          `${latexEscape(t.a)} vs ${latexEscape(t.b)}`,
          latexEscape(t.criterion),
          f4(t.statistic),
          formatP(t.p),
          `${formatP(t.pAdjusted)}${t.significant ? '*' : ''}`,
        ].join(' & '),
      );
      return [
        `% ${methodLine(settings)}`,
        '% Cells: mean [95% CI] (normalised win rate).',
        `\\begin{tabular}{l r ${criteria.map(() => 'l').join(' ')}}`,
        '\\hline',
        `${head.join(' & ')} \\\\`,
        '\\hline',
        ...body.map((r) => `${r.join(' & ')} \\\\`),
        '\\hline',
        '\\end{tabular}',
        '',
        '\\begin{tabular}{l l r r r}',
        '\\hline',
        'Pair & Criterion & t & p & p (adj.) \\\\',
        '\\hline',
        ...tests.map((r) => `${r} \\\\`),
        '\\hline',
        '\\end{tabular}',
        '',
      ].join('\n');
    }
    case 'table': {
      const out: string[] = [];
      for (const c of criteria) {
        out.push(`${c}:`);
        out.push(
          table([
            ['system', 'n', 'mean', '95% CI', 'win rate', 'normalised'],
            ...report.systems.map((s) => [
              s.system,
              String(s.n),
              f4(s.means[c]!),
              `[${f4(s.ci[c]![0])}, ${f4(s.ci[c]![1])}]`,
              f4(s.winRate[c]!),
              f4(s.winRateNormalised[c]!),
            ]),
          ]),
        );
        const tests = report.tests.filter((t) => t.criterion === c);
        if (tests.length) {
          out.push('');
          out.push(
            table([
              ['pair', 't', 'p', 'p adjusted', ''],
              ...tests.map((t) => [
                `${t.a} vs ${t.b}`,
                f4(t.statistic),
                formatP(t.p),
                formatP(t.pAdjusted),
                t.significant ? '*' : '',
              ]),
            ]),
          );
        }
        out.push('');
      }
      const spread = settings.spread;
      if (spread && spread.maxTrials > 1) {
        out.push(`Trial spread (mean over topics of the SD of up to ${spread.maxTrials} trials):`);
        out.push(
          table([
            ['system', ...criteria],
            ...report.systems.map((s) => [
              s.system,
              ...criteria.map((c) => f4(spread.meanSd[s.system]?.[c] ?? Number.NaN)),
            ]),
          ]),
        );
        out.push('');
      }
      out.push(methodLine(settings));
      return `${out.join('\n')}\n`;
    }
  }
}
