// Renders comparisons (`assay compare`, stored comparison reports) as an aligned text
// table, JSON, CSV and LaTeX; the HTML report is in compare-html.ts. Every format states
// the topic handling and the test.
import { csvRow, latexComment, latexEscape, type CsvValue } from '../formats/index.js';
import {
  bestMeans,
  correctionName,
  f4,
  formatP,
  marksLegend,
  runTags,
  significanceMarks,
  testName,
} from '../presentation/index.js';
import { BOOTSTRAP_SAMPLES, type Comparison } from './compare.js';
import { RBO_P, type RankCoefficient, type RankCorrelation } from './rank-correlation.js';

/** What `assay compare` renders: one leaderboard per qrels file, and with two, their agreement. */
export interface CompareReport {
  /** One or two leaderboards, in --qrels order (the first is ground truth for tau-AP). */
  leaderboards: Array<{ qrels: string; comparison: Comparison }>;
  /** Per measure, with two leaderboards. */
  rankCorrelation?: Record<string, RankCorrelation>;
  /** With two leaderboards: tau at the top k, the gap-aware tau's tolerance, the intervals' bootstrap. */
  rankCorrelationSettings?: RankCorrelationSettings;
}

/** How the rank correlations of a report were computed. */
export interface RankCorrelationSettings {
  topRuns: number;
  tolerance: number;
  samples: number;
  seed: number;
  level: number;
  resampling: string;
}

/** A coefficient with its interval when there is one: `0.8901 [0.7582, 0.9560]`. */
function withCi(r: RankCorrelation, k: RankCoefficient): string {
  const v = r[k];
  const ci = r.ci?.[k];
  return v === undefined ? 'n/a' : ci ? `${f4(v)} [${f4(ci[0])}, ${f4(ci[1])}]` : f4(v);
}

/** One line naming how the coefficients and their intervals were computed. */
function correlationSettingsLine(report: CompareReport): string {
  const s = report.rankCorrelationSettings;
  if (!s) return '';
  const intervals =
    s.samples > 0
      ? `; 95% intervals: percentile bootstrap over topics, ${s.samples} resamples, seed ${s.seed} (${s.resampling})`
      : '';
  return `tau@${s.topRuns}: Kendall tau-b over the first leaderboard's top ${s.topRuns} runs; gap tau: swaps within ${s.tolerance} charged in proportion${intervals}`;
}

/** Whether a comparison has Judged@10 (leaderboards of runs; not of answers' scores). */
export function hasJudged(c: Comparison): boolean {
  return c.runs.every((r) => r.judgedAt10 !== undefined);
}

/** Number of comparisons per measure (the size of each correction family). */
function familySize(c: Comparison): number {
  return c.pairs.filter((p) => p.measure === c.measures[0]).length;
}

/** One line naming the test, its settings and the correction family. */
export function testLine(c: Comparison): string {
  const extra = c.test === 'randomization' ? ` (${c.permutations} sign flips, seed ${c.seed})` : '';
  const scope =
    c.baseline === undefined ? 'every pair of runs' : `each run against the baseline ${c.baseline}`;
  return (
    `${testName(c.test)}${extra}, two-sided, on per-topic values, ${scope}; ` +
    `${correctionName(c.correction)} correction per measure over its ${familySize(c)} ` +
    `comparisons; significant: corrected p < ${c.alpha}`
  );
}

/** How the intervals of the means were computed. */
export function ciLine(c: Comparison): string {
  return `95% intervals: percentile bootstrap of the mean over topics, ${BOOTSTRAP_SAMPLES} resamples, seed ${c.seed}`;
}

// ---------------------------------------------------------------------------------- JSON

function leaderboardJson(c: Comparison) {
  return {
    topics: c.topics,
    runs: c.runs.map((r) => ({
      run: r.run,
      means: r.means,
      ci: r.ci,
      judgedAt10: r.judgedAt10,
      differsFrom: r.differsFrom,
      betterThan: r.betterThan,
    })),
    pairs: c.pairs,
  };
}

function settingsJson(c: Comparison) {
  return {
    topicHandling: c.topicHandling,
    ...(c.source === undefined ? {} : { source: c.source }),
    test: c.test,
    correction: c.correction,
    correctionFamily: 'per measure: all comparisons on that measure',
    alpha: c.alpha,
    ...(c.permutations === undefined ? {} : { permutations: c.permutations }),
    seed: c.seed,
    ...(c.baseline === undefined ? {} : { baseline: c.baseline }),
    bootstrap: { samples: BOOTSTRAP_SAMPLES, level: 0.95, seed: c.seed },
    measures: c.measures,
  };
}

/**
 * JSON at full precision (JavaScript's shortest round-trip form). One leaderboard: the
 * settings, `runs` and `pairs` at top level; two: `leaderboards` (one per qrels, in order)
 * and `rankCorrelation`. Infinite statistics (every topic differs by the same amount) are
 * written as null, as JSON has no Infinity.
 */
export function comparisonJson(report: CompareReport): string {
  return `${JSON.stringify(comparisonJsonValue(report), null, 2)}\n`;
}

/** The value {@link comparisonJson} writes, before JSON turns non-finite numbers into null. */
export function comparisonJsonValue(report: CompareReport) {
  const [first] = report.leaderboards;
  const c = first!.comparison;
  return report.leaderboards.length === 1
    ? { ...settingsJson(c), qrels: first!.qrels, ...leaderboardJson(c) }
    : {
        ...settingsJson(c),
        leaderboards: report.leaderboards.map((l) => ({
          qrels: l.qrels,
          ...leaderboardJson(l.comparison),
        })),
        rankCorrelationMethod: `from full-precision means: Kendall tau-b, tau-AP with the first qrels as ground truth, Spearman's rho, RBO (p = ${RBO_P}) of the two orderings, Kendall tau-b over the first qrels' top runs (kendallTauTop), gap-aware tau (gapAwareTau)`,
        ...(report.rankCorrelationSettings
          ? { rankCorrelationSettings: report.rankCorrelationSettings }
          : {}),
        rankCorrelation: report.rankCorrelation,
      };
}

// ---------------------------------------------------------------------------------- text

function alignRows(header: string[], rows: string[][], right: Set<number>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

function leaderboardText(c: Comparison, qrels: string): string[] {
  const tags = runTags(c.runs.map((r) => r.run));
  const judged = hasJudged(c);
  const header = ['', 'run', ...c.measures, ...(judged ? ['Judged@10'] : [])];
  const rows = c.runs.map((r) => [
    tags.get(r.run)!,
    r.run,
    ...c.measures.map((m) => {
      const mk = significanceMarks(tags, r.betterThan[m]);
      return mk ? `${f4(r.means[m]!)} ${mk}` : f4(r.means[m]!);
    }),
    ...(judged ? [f4(r.judgedAt10!)] : []),
  ]);
  const lines = [
    `${c.source ?? 'qrels'}: ${qrels} (${c.topics} topics; ${c.runs.length} ${judged ? 'runs' : 'systems'})`,
    `topics: ${c.topicHandling}`,
    `test: ${testLine(c)}`,
    ciLine(c),
    '',
    ...alignRows(header, rows, new Set()),
    '',
    marksLegend(c.baseline),
  ];
  if (c.baseline !== undefined) {
    lines.push('');
    for (const m of c.measures) {
      lines.push(`${m} against the baseline ${c.baseline}:`);
      const pairRows = c.pairs
        .filter((p) => p.measure === m)
        .map((p) => [
          p.a,
          (p.meanDiff >= 0 ? '+' : '') + f4(p.meanDiff),
          formatP(p.p),
          formatP(p.pAdjusted),
          p.significant ? '*' : '',
        ]);
      lines.push(
        ...alignRows(['run', 'diff', 'p', 'p corrected', ''], pairRows, new Set([1, 2, 3])).map(
          (l) => `  ${l}`,
        ),
      );
    }
  }
  return lines;
}

/** Both orderings of the runs on one measure, best first (equal means ordered by run tag). */
export function orderings(report: CompareReport, measure: string): Comparison['runs'][] {
  return report.leaderboards.map((l) =>
    [...l.comparison.runs].sort(
      (p, q) => q.means[measure]! - p.means[measure]! || (p.run < q.run ? -1 : 1),
    ),
  );
}

function rankingsText(report: CompareReport, measure: string): string[] {
  const [left, right] = orderings(report, measure) as [Comparison['runs'], Comparison['runs']];
  const rankLeft = new Map(left.map((r, i) => [r.run, i + 1]));
  const rows = left.map((r, i) => {
    const other = right[i]!;
    const moved = rankLeft.get(other.run)! - (i + 1);
    return [
      String(i + 1),
      r.run,
      f4(r.means[measure]!),
      other.run,
      f4(other.means[measure]!),
      moved === 0 ? '=' : moved > 0 ? `+${moved}` : String(moved),
    ];
  });
  const [qa, qb] = report.leaderboards.map((l) => l.qrels);
  return [
    `${measure} rankings: first = ${qa}, second = ${qb} (moved: places gained against the first)`,
    ...alignRows(
      ['rank', 'run (first)', 'mean', 'run (second)', 'mean', 'moved'],
      rows,
      new Set([0, 2, 4, 5]),
    ).map((l) => `  ${l}`),
  ];
}

function correlationText(report: CompareReport): string[] {
  const lines = [
    `rank correlation of the two leaderboards (full-precision means; tau-AP with the first qrels as ground truth; RBO p = ${RBO_P}):`,
  ];
  const settings = correlationSettingsLine(report);
  if (settings) lines.push(settings);
  const k = report.rankCorrelationSettings?.topRuns;
  for (const [m, r] of Object.entries(report.rankCorrelation ?? {})) {
    lines.push(
      `  ${m}: Kendall tau-b ${withCi(r, 'kendallTauB')}   tau-AP ${withCi(r, 'tauAP')}   Spearman ${withCi(r, 'spearman')}   RBO ${withCi(r, 'rbo')}`,
    );
    if (r.kendallTauTop !== undefined)
      lines.push(
        `  ${' '.repeat(m.length)}  tau@${k} ${withCi(r, 'kendallTauTop')}   gap tau ${withCi(r, 'gapAwareTau')}`,
      );
  }
  return lines;
}

/** Aligned text: each leaderboard with significance marks, and with two qrels their agreement. */
export function comparisonTable(report: CompareReport): string {
  const parts: string[] = [];
  report.leaderboards.forEach((l, i) => {
    if (report.leaderboards.length > 1) parts.push(`== leaderboard ${i + 1} ==`);
    parts.push(...leaderboardText(l.comparison, l.qrels), '');
  });
  if (report.leaderboards.length === 2) {
    for (const m of report.leaderboards[0]!.comparison.measures) {
      parts.push(...rankingsText(report, m), '');
    }
    parts.push(...correlationText(report), '');
  }
  return `${parts.join('\n').trimEnd()}\n`;
}

// ---------------------------------------------------------------------------------- CSV

/**
 * CSV in sections separated by one blank line, each with its own header row:
 * 1. one row per (run, measure): mean, interval, Judged@10, marks, topic handling;
 * 2. one row per pairwise test;
 * 3. with two qrels, one row per measure: the rank correlations.
 * With two qrels, sections 1 and 2 start with a `qrels` column. Given a `title`, a first
 * section holds it (header `title`, one row).
 */
export function comparisonCsv(report: CompareReport, title?: string): string {
  const two = report.leaderboards.length === 2;
  const q = (qrels: string) => (two ? [qrels] : []);
  const judged = report.leaderboards.every((l) => hasJudged(l.comparison));
  const j = (value: CsvValue) => (judged ? [value] : []);
  const lines = [
    csvRow([
      ...q('qrels'),
      'run',
      'measure',
      'mean',
      'ci_lower',
      'ci_upper',
      ...j('judged_at_10'),
      'rank',
      'better_than',
      'differs_from',
      'topics',
      'topic_handling',
    ]),
  ];
  for (const { qrels, comparison: c } of report.leaderboards) {
    for (const m of c.measures) {
      const ranked = [...c.runs].sort(
        (x, y) => y.means[m]! - x.means[m]! || (x.run < y.run ? -1 : 1),
      );
      for (const r of c.runs) {
        lines.push(
          csvRow([
            ...q(qrels),
            r.run,
            m,
            r.means[m],
            r.ci[m]![0],
            r.ci[m]![1],
            ...j(r.judgedAt10),
            ranked.indexOf(r) + 1,
            r.betterThan[m]!.join(' '),
            r.differsFrom[m]!.join(' '),
            c.topics,
            c.topicHandling,
          ]),
        );
      }
    }
  }
  lines.push('');
  lines.push(
    csvRow([
      ...q('qrels'),
      'a',
      'b',
      'measure',
      'mean_diff',
      'statistic',
      'p',
      'p_adjusted',
      'significant',
      'test',
      'correction',
      'alpha',
    ]),
  );
  for (const { qrels, comparison: c } of report.leaderboards) {
    for (const p of c.pairs) {
      lines.push(
        csvRow([
          ...q(qrels),
          p.a,
          p.b,
          p.measure,
          p.meanDiff,
          p.statistic,
          p.p,
          p.pAdjusted,
          p.significant,
          c.test,
          c.correction,
          c.alpha,
        ]),
      );
    }
  }
  if (two) {
    const names: Array<[RankCoefficient, string]> = [
      ['kendallTauB', 'kendall_tau_b'],
      ['tauAP', 'tau_ap'],
      ['spearman', 'spearman'],
      ['rbo', 'rbo'],
      ['kendallTauTop', 'kendall_tau_top'],
      ['gapAwareTau', 'gap_aware_tau'],
    ];
    lines.push(
      '',
      csvRow(['measure', ...names.flatMap(([, n]) => [n, `${n}_ci_lower`, `${n}_ci_upper`])]),
    );
    for (const [m, r] of Object.entries(report.rankCorrelation ?? {})) {
      lines.push(
        csvRow([
          m,
          ...names.flatMap(([k]) => [r[k] ?? '', r.ci?.[k][0] ?? '', r.ci?.[k][1] ?? '']),
        ]),
      );
    }
  }
  if (title !== undefined) lines.unshift(csvRow(['title']), csvRow([title]), '');
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------- LaTeX

function leaderboardLatex(c: Comparison, qrels: string): string[] {
  const tags = runTags(c.runs.map((r) => r.run));
  const judged = hasJudged(c);
  const best = bestMeans(c.measures, c.runs);
  const comment = latexComment;
  const baseline = c.baseline === undefined ? {} : { baseline: latexEscape(c.baseline) };
  const lines = [
    comment(
      `assay compare, ${c.source ?? 'qrels'} ${latexEscape(qrels)}: ${c.topics} topics; ${c.topicHandling}`,
    ),
    comment(`${testLine({ ...c, ...baseline })}`),
    comment(ciLine(c)),
    comment(
      'Bold: best mean per column (ties all bold). Superscript letters: significantly better than the run with that tag.',
    ),
    '% needs \\usepackage{booktabs}',
    `\\begin{tabular}{ll${'r'.repeat(c.measures.length + (judged ? 1 : 0))}}`,
    '\\toprule',
    ` & Run & ${c.measures.map(latexEscape).join(' & ')}${judged ? ' & Judged@10' : ''} \\\\`,
    '\\midrule',
  ];
  for (const r of c.runs) {
    const cells = c.measures.map((m) => {
      const value = r.means[m] === best[m] ? `\\textbf{${f4(r.means[m]!)}}` : f4(r.means[m]!);
      const mk = significanceMarks(tags, r.betterThan[m]);
      return mk ? `${value}\\textsuperscript{${mk}}` : value;
    });
    lines.push(
      `(${tags.get(r.run)}) & ${latexEscape(r.run)} & ${cells.join(' & ')}${judged ? ` & ${f4(r.judgedAt10!)}` : ''} \\\\`,
    );
  }
  lines.push('\\bottomrule', '\\end{tabular}');
  return lines;
}

/**
 * booktabs tables: best mean per column bold, significance as superscript run tags. Given a
 * `title`, the first line is a comment naming it.
 */
export function comparisonLatex(report: CompareReport, title?: string): string {
  const parts: string[] = [];
  if (title !== undefined) parts.push(latexComment(title));
  for (const l of report.leaderboards) parts.push(...leaderboardLatex(l.comparison, l.qrels), '');
  if (report.rankCorrelation) {
    parts.push(
      `% Rank correlation of the two leaderboards from full-precision means; tau-AP with the first qrels (${latexEscape(report.leaderboards[0]!.qrels)}) as ground truth; RBO p = ${RBO_P}.`,
      ...(report.rankCorrelationSettings ? [`% ${correlationSettingsLine(report)}`] : []),
      '\\begin{tabular}{lrrrrrr}',
      '\\toprule',
      `Measure & Kendall $\\tau_b$ & $\\tau_{AP}$ & Spearman $\\rho$ & RBO & $\\tau_b$@${report.rankCorrelationSettings?.topRuns ?? 'k'} & gap $\\tau$ \\\\`,
      '\\midrule',
      ...Object.entries(report.rankCorrelation).map(
        ([m, r]) =>
          `${latexEscape(m)} & ${f4(r.kendallTauB)} & ${f4(r.tauAP)} & ${f4(r.spearman)} & ${f4(r.rbo)} & ${r.kendallTauTop === undefined ? '--' : f4(r.kendallTauTop)} & ${r.gapAwareTau === undefined ? '--' : f4(r.gapAwareTau)} \\\\`,
      ),
      '\\bottomrule',
      '\\end{tabular}',
      '',
    );
  }
  return parts.join('\n');
}
