// The HTML report of `assay compare`: one self-contained file (inline CSS and SVG; no
// scripts, fonts or anything fetched) in the reports' page shell, with the charts and marks
// the web app shows (../presentation). Every string from users' files (run tags, topic ids,
// measure names, paths) goes through escapeHtml.
import { escapeHtml } from '../formats/index.js';
import {
  bestMeans,
  f4,
  htmlPage,
  intervalPlotLabel,
  intervalPlotSvg,
  marksLegend,
  pValueMatrixHtml,
  runTags,
  significanceMarks,
  slopeChartSvg,
  topicDifferences,
  topicDifferencesSvg,
  type RunTags,
} from '../presentation/index.js';
import { highlightedPair, type Comparison } from './compare.js';
import { RBO_P, type RankCoefficient, type RankCorrelation } from './rank-correlation.js';
import { ciLine, hasJudged, orderings, testLine, type CompareReport } from './compare-report.js';

const e = escapeHtml;

const tagsOf = (c: Comparison) => runTags(c.runs.map((r) => r.run));

/** Means with their 95% bootstrap intervals, one row per run in leaderboard order. */
function ciPlot(c: Comparison, measure: string): string {
  const rows = c.runs.map((r) => {
    const [lo, hi] = r.ci[measure]!;
    return { run: r.run, mean: r.means[measure]!, lo, hi };
  });
  return intervalPlotSvg(measure, rows);
}

/** Per-topic differences a − b, sorted, one bar per topic. */
function diffPlot(c: Comparison, measure: string, a: string, b: string): string {
  const values = c.perTopic[measure]!;
  return topicDifferencesSvg(measure, a, b, topicDifferences(c.topicIds, values[a]!, values[b]!));
}

function leaderboardTable(c: Comparison, tags: RunTags): string {
  const best = bestMeans(c.measures, c.runs);
  const judged = hasJudged(c);
  const head = `<tr><th></th><th class="run">run</th>${c.measures.map((m) => `<th>${e(m)}</th>`).join('')}${judged ? '<th>Judged@10</th>' : ''}</tr>`;
  const body = c.runs
    .map((r) => {
      const cells = c.measures
        .map((m) => {
          const mk = significanceMarks(tags, r.betterThan[m]);
          const [lo, hi] = r.ci[m]!;
          const value = r.means[m] === best[m] ? `<b>${f4(r.means[m]!)}</b>` : f4(r.means[m]!);
          // Marks sit in a slot as wide as the longest, so the numbers stay aligned.
          return `<td title="95% CI [${f4(lo)}, ${f4(hi)}]">${value}<sup class="mk">${e(mk)}</sup></td>`;
        })
        .join('');
      return `<tr><td>${e(tags.get(r.run)!)}</td><td class="run">${e(r.run)}</td>${cells}${judged ? `<td>${f4(r.judgedAt10!)}</td>` : ''}</tr>`;
    })
    .join('');
  return `<table class="board">${head}${body}</table>`;
}

function leaderboardSection(c: Comparison, qrels: string, heading: string): string {
  const tags = tagsOf(c);
  const parts = [
    `<section><h2>${e(heading)}</h2>`,
    `<p class="meta">${e(c.source ?? 'qrels')} <code>${e(qrels)}</code>: ${c.topics} topics, ${c.runs.length} ${hasJudged(c) ? 'runs' : 'systems'}. Topics: ${e(c.topicHandling)}.<br>Test: ${e(testLine(c))}.<br>${e(ciLine(c))}.</p>`,
    leaderboardTable(c, tags),
    `<p class="note">${e(marksLegend(c.baseline))} Bold: best mean in the column. Hover a mean for its 95% interval.</p>`,
  ];
  for (const m of c.measures) {
    parts.push(`<h3>${e(intervalPlotLabel(m))}</h3>`, ciPlot(c, m));
  }
  const pair = highlightedPair(c);
  if (pair) {
    const [a, b] = pair;
    const why =
      c.baseline === undefined ? 'the two best runs' : 'the best run against the baseline';
    for (const m of c.measures) {
      parts.push(
        `<h3>Per-topic ${e(m)} differences: ${e(a)} − ${e(b)} (${why})</h3>`,
        diffPlot(c, m, a, b),
      );
    }
  }
  parts.push('</section>');
  return parts.join('\n');
}

/** The corrected p-value matrices of one leaderboard (large: they come last on the page). */
function pValueSection(c: Comparison, heading: string): string {
  const runs = c.runs.map((r) => r.run);
  const tags = runTags(runs);
  const parts = [`<section><h2>${e(heading)}</h2>`];
  for (const m of c.measures) {
    parts.push(
      `<h3>Corrected p-values, ${e(m)}</h3>`,
      '<p class="note">Row run against column run; green: the row run is significantly better, red: significantly worse. Hover for the difference and the raw p.</p>',
      pValueMatrixHtml({ measure: m, runs, tags, pairs: c.pairs }),
    );
  }
  parts.push('</section>');
  return parts.join('\n');
}

/** Two rankings of the same runs as a slope chart: a line joins each run's two places. */
function slopeChart(report: CompareReport, measure: string): string {
  const [left, right] = orderings(report, measure) as [Comparison['runs'], Comparison['runs']];
  const [qa, qb] = report.leaderboards.map((l) => l.qrels) as [string, string];
  const row = (r: Comparison['runs'][number]) => ({ run: r.run, value: f4(r.means[measure]!) });
  return slopeChartSvg({
    label: `${measure} rankings under ${qa} and ${qb}`,
    leftHead: qa,
    rightHead: qb,
    left: left.map(row),
    right: right.map(row),
  });
}

function agreementSection(report: CompareReport): string {
  const [qa, qb] = report.leaderboards.map((l) => l.qrels);
  const settings = report.rankCorrelationSettings;
  const cell = (r: RankCorrelation, k: RankCoefficient) => {
    const v = r[k];
    const ci = r.ci?.[k];
    if (v === undefined) return '<td>n/a</td>';
    return `<td>${f4(v)}${ci ? `<br><span class="meta">[${f4(ci[0])}, ${f4(ci[1])}]</span>` : ''}</td>`;
  };
  const keys: RankCoefficient[] = [
    'kendallTauB',
    'tauAP',
    'spearman',
    'rbo',
    'kendallTauTop',
    'gapAwareTau',
  ];
  const rows = Object.entries(report.rankCorrelation ?? {})
    .map(([m, r]) => `<tr><td class="run">${e(m)}</td>${keys.map((k) => cell(r, k)).join('')}</tr>`)
    .join('');
  const intervals =
    settings && settings.samples > 0
      ? ` Under each coefficient, its 95% interval from a percentile bootstrap over topics (${settings.samples} resamples, seed ${settings.seed}; ${e(settings.resampling)}).`
      : '';
  const parts = [
    '<section><h2>Leaderboard agreement</h2>',
    `<p class="meta">Leaderboards <code>${e(qa!)}</code> and <code>${e(qb!)}</code>, computed from full-precision means; tau-AP takes <code>${e(qa!)}</code> as ground truth; RBO (p = ${RBO_P}) compares the two orderings, best first; tau@k is Kendall tau-b over the top ${settings?.topRuns ?? 'k'} runs of <code>${e(qa!)}</code>; the gap-aware tau charges a swap of runs within ${settings?.tolerance ?? 'the tolerance'} of each other in proportion to their gap.${intervals}</p>`,
    `<table class="board"><tr><th class="run">measure</th><th>Kendall tau-b</th><th>tau-AP</th><th>Spearman</th><th>RBO</th><th>tau@${settings?.topRuns ?? 'k'}</th><th>gap tau</th></tr>${rows}</table>`,
  ];
  for (const m of report.leaderboards[0]!.comparison.measures) {
    parts.push(`<h3>${e(m)} rankings</h3>`, slopeChart(report, m));
  }
  parts.push('</section>');
  return parts.join('\n');
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#1d232b}
h1{font-size:1.5em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccd}h3{font-size:1.05em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0}td,th{padding:3px 8px;border-bottom:1px solid #e2e4ea;text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.run{text-align:left}th{background:#f4f5f8}sup{color:#2d5d9f;font-weight:600;margin-left:1px}
.meta,.note{color:#4a5260;max-width:70em}.note{font-size:.92em}code{font-size:.95em}
.matrix td{font-size:.85em;min-width:4.2em}.matrix caption{text-align:left;color:#4a5260}
svg{display:block;margin:.4em 0}
`;

/** The widest significance-mark string of the report, in characters. */
function widestMarks(report: CompareReport): number {
  let widest = 0;
  for (const { comparison: c } of report.leaderboards) {
    const tags = tagsOf(c);
    for (const r of c.runs)
      for (const m of c.measures)
        widest = Math.max(widest, significanceMarks(tags, r.betterThan[m]).length);
  }
  return widest;
}

/**
 * One self-contained HTML page, summary first: with two qrels, the rank correlations and
 * both rankings; then per leaderboard the table with significance marks, the means with
 * confidence intervals and the sorted per-topic differences of the highlighted pair; the
 * corrected p-value matrices come last. `title` (escaped) heads the page; without it,
 * "assay compare".
 */
export function comparisonHtml(report: CompareReport, title = 'assay compare'): string {
  const two = report.leaderboards.length === 2;
  const sections: string[] = [];
  if (two) sections.push(agreementSection(report));
  report.leaderboards.forEach((l, i) =>
    sections.push(
      leaderboardSection(
        l.comparison,
        l.qrels,
        two ? `Leaderboard ${i + 1}: ${l.qrels}` : 'Leaderboard',
      ),
    ),
  );
  report.leaderboards.forEach((l) =>
    sections.push(
      pValueSection(l.comparison, two ? `Corrected p-values: ${l.qrels}` : 'Corrected p-values'),
    ),
  );
  const style = `${STYLE}sup.mk{display:inline-block;min-width:${widestMarks(report)}ch;text-align:left}\n`;
  return htmlPage({ title, style, body: sections.join('\n') });
}
