// Renders the answer-quality report (`assay answers report`, stored score sets) as an
// aligned text table, JSON, CSV or LaTeX; the HTML page is in answers-html.ts.
import type { AnswerQualityReport, PValueAdjustment, TrialSpread } from '@assay/stats';
import { f4, formatP } from '../presentation/index.js';
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
  /** Means by the route each answer took (SRSA's strategies), when the answers say. */
  routes?: RouteMeans[];
}

/** One system's answers that took one route: how many topics, and the mean per criterion. */
export interface RouteMeans {
  system: string;
  route: string;
  topics: number;
  means: Record<string, number>;
}

/**
 * Means per (system, route) for the answers that name their route (SRSA's direct,
 * parallel, planning, direct-fallback): each topic's trials averaged first, then the
 * topics of a route; systems and routes in the order first seen. Empty when no answer
 * names a route.
 */
export function routeBreakdown(
  lines: ReadonlyArray<{
    topic: string;
    system: string;
    route?: string;
    scores: Readonly<Record<string, number>>;
  }>,
): RouteMeans[] {
  const perTopic = new Map<
    string,
    { system: string; route: string; sums: Record<string, number>; n: number }
  >();
  for (const l of lines) {
    if (l.route === undefined) continue;
    const key = JSON.stringify([l.system, l.topic]);
    let t = perTopic.get(key);
    if (!t) perTopic.set(key, (t = { system: l.system, route: l.route, sums: {}, n: 0 }));
    t.n++;
    for (const [c, v] of Object.entries(l.scores)) t.sums[c] = (t.sums[c] ?? 0) + v;
  }
  const groups = new Map<
    string,
    { system: string; route: string; sums: Record<string, number>; topics: number }
  >();
  for (const t of perTopic.values()) {
    const key = JSON.stringify([t.system, t.route]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { system: t.system, route: t.route, sums: {}, topics: 0 }));
    g.topics++;
    for (const [c, v] of Object.entries(t.sums)) g.sums[c] = (g.sums[c] ?? 0) + v / t.n;
  }
  return [...groups.values()].map((g) => ({
    system: g.system,
    route: g.route,
    topics: g.topics,
    means: Object.fromEntries(Object.entries(g.sums).map(([c, v]) => [c, v / g.topics])),
  }));
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
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'html':
      return answersHtml(report, settings);
    case 'csv':
      return answersCsv(report, settings);
    case 'latex':
      return answersLatex(report, settings);
    case 'table':
      return answersTable(report, settings);
  }
}

/** The CSV: systems, then means by route (when there are routes), then the tests. */
function answersCsv(report: AnswerQualityReport, settings: AnswersReportSettings): string {
  const criteria = reportCriteria(report);
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
  if (settings.routes?.length) {
    lines.push('', 'system,route,topics,criterion,mean');
    for (const r of settings.routes)
      for (const c of criteria) lines.push(csvRow([r.system, r.route, r.topics, c, r.means[c]]));
  }
  lines.push('', 'a,b,criterion,test,statistic,p,p_adjusted,significant');
  for (const t of report.tests)
    lines.push(
      csvRow([t.a, t.b, t.criterion, t.test, t.statistic, t.p, t.pAdjusted, t.significant]),
    );
  return `${lines.join('\n')}\n`;
}

/** The LaTeX tables: systems with intervals and win rates, routes, then the tests. */
function answersLatex(report: AnswerQualityReport, settings: AnswersReportSettings): string {
  const criteria = reportCriteria(report);
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
    ...(settings.routes?.length
      ? [
          '% Means by route (the path each answer took).',
          `\\begin{tabular}{l l r ${criteria.map(() => 'r').join(' ')}}`,
          '\\hline',
          `System & Route & Topics & ${criteria.map((c) => latexEscape(c)).join(' & ')} \\\\`,
          '\\hline',
          ...settings.routes.map(
            (r) =>
              `${latexEscape(r.system)} & ${latexEscape(r.route)} & ${r.topics} & ${criteria.map((c) => f4(r.means[c]!)).join(' & ')} \\\\`,
          ),
          '\\hline',
          '\\end{tabular}',
          '',
        ]
      : []),
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

/** The terminal tables, one per criterion, then the trial spread and the routes. */
function answersTable(report: AnswerQualityReport, settings: AnswersReportSettings): string {
  const criteria = reportCriteria(report);
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
  if (settings.routes?.length) {
    out.push('Means by route (the path each answer took):');
    out.push(
      table([
        ['system', 'route', 'topics', ...criteria],
        ...settings.routes.map((r) => [
          r.system,
          r.route,
          String(r.topics),
          ...criteria.map((c) => f4(r.means[c]!)),
        ]),
      ]),
    );
    out.push('');
  }
  out.push(methodLine(settings));
  return `${out.join('\n')}\n`;
}
