// The HTML report of `assay compare`: one self-contained file (inline CSS and SVG drawn
// here; no scripts, fonts or anything fetched). Every string from users' files (run tags,
// topic ids, measure names, paths) goes through escapeHtml.
import { escapeHtml, slopeChartSvg } from '../formats/index.js';
import {
  highlightedPair,
  RBO_P,
  type Comparison,
  type RankCoefficient,
  type RankCorrelation,
} from './compare.js';
import {
  ciLine,
  f4,
  formatP,
  hasJudged,
  legendLine,
  marks,
  orderings,
  runTags,
  testLine,
  type CompareReport,
} from './compare-report.js';

const e = escapeHtml;
const n1 = (x: number) => x.toFixed(1);

/** About five round tick values covering [lo, hi]. */
function ticks(lo: number, hi: number): number[] {
  const span = hi - lo || 1;
  const raw = span / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * magnitude).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    out.push(Number(v.toFixed(12)));
  }
  return out;
}

function tickLabel(v: number): string {
  return Number(v.toPrecision(6)).toString();
}

/** Means with their 95% bootstrap intervals, one row per run in leaderboard order. */
function ciPlot(c: Comparison, measure: string): string {
  const width = 720;
  const rowH = 22;
  const left = 200;
  const right = 24;
  const top = 12;
  const plotH = c.runs.length * rowH;
  const height = top + plotH + 40;
  let lo = Math.min(...c.runs.map((r) => r.ci[measure]![0]));
  let hi = Math.max(...c.runs.map((r) => r.ci[measure]![1]));
  if (hi - lo < 1e-9) {
    lo -= 0.05;
    hi += 0.05;
  }
  const pad = (hi - lo) * 0.04;
  lo -= pad;
  hi += pad;
  const x = (v: number) => left + ((v - lo) / (hi - lo)) * (width - left - right);
  const grid = ticks(lo, hi)
    .map(
      (t) =>
        `<line x1="${n1(x(t))}" x2="${n1(x(t))}" y1="${top}" y2="${top + plotH}" class="grid"/>` +
        `<text x="${n1(x(t))}" y="${top + plotH + 16}" text-anchor="middle">${tickLabel(t)}</text>`,
    )
    .join('');
  const rows = c.runs
    .map((r, i) => {
      const y = top + i * rowH + rowH / 2;
      const [a, b] = r.ci[measure]!;
      const m = r.means[measure]!;
      return (
        `<g><title>${e(r.run)}: mean ${f4(m)}, 95% CI [${f4(a)}, ${f4(b)}]</title>` +
        `<text x="${left - 8}" y="${n1(y + 4)}" text-anchor="end">${e(r.run)}</text>` +
        `<line x1="${n1(x(a))}" x2="${n1(x(b))}" y1="${n1(y)}" y2="${n1(y)}" class="ci"/>` +
        `<line x1="${n1(x(a))}" x2="${n1(x(a))}" y1="${n1(y - 5)}" y2="${n1(y + 5)}" class="ci"/>` +
        `<line x1="${n1(x(b))}" x2="${n1(x(b))}" y1="${n1(y - 5)}" y2="${n1(y + 5)}" class="ci"/>` +
        `<circle cx="${n1(x(m))}" cy="${n1(y)}" r="4.5" class="mean"/></g>`
      );
    })
    .join('');
  const label = `<text x="${n1((left + width - right) / 2)}" y="${height - 6}" text-anchor="middle">mean ${e(measure)} with 95% bootstrap interval</text>`;
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${e(measure)}: means with 95% confidence intervals">${grid}${rows}${label}</svg>`;
}

/** Per-topic differences a − b, sorted, one bar per topic. */
function diffPlot(c: Comparison, measure: string, a: string, b: string): string {
  const xs = c.perTopic[measure]![a]!;
  const ys = c.perTopic[measure]![b]!;
  const diffs = c.topicIds
    .map((q, i) => ({ q, d: xs[i]! - ys[i]!, x: xs[i]!, y: ys[i]! }))
    .sort((p, q) => q.d - p.d || (p.q < q.q ? -1 : 1));
  const width = 720;
  const height = 240;
  const left = 50;
  const right = 10;
  const top = 10;
  const plotH = height - top - 34;
  const max = Math.max(1e-9, ...diffs.map((d) => Math.abs(d.d)));
  const y = (v: number) => top + plotH / 2 - (v / max) * (plotH / 2);
  const barW = (width - left - right) / Math.max(1, diffs.length);
  const bars = diffs
    .map((d, i) => {
      const y0 = Math.min(y(0), y(d.d));
      const h = Math.max(Math.abs(y(d.d) - y(0)), d.d === 0 ? 0 : 0.5);
      return `<rect x="${n1(left + i * barW)}" y="${n1(y0)}" width="${Math.max(0.5, barW - (barW > 3 ? 1 : 0)).toFixed(2)}" height="${n1(h)}" class="${d.d >= 0 ? 'up' : 'down'}"><title>topic ${e(d.q)}: ${e(a)} ${f4(d.x)}, ${e(b)} ${f4(d.y)}, difference ${f4(d.d)}</title></rect>`;
    })
    .join('');
  const axis = ticks(-max, max)
    .map(
      (v) =>
        `<line x1="${left}" x2="${width - right}" y1="${n1(y(v))}" y2="${n1(y(v))}" class="${v === 0 ? 'zero' : 'grid'}"/>` +
        `<text x="${left - 6}" y="${n1(y(v) + 4)}" text-anchor="end">${tickLabel(v)}</text>`,
    )
    .join('');
  const wins = diffs.filter((d) => d.d > 0).length;
  const losses = diffs.filter((d) => d.d < 0).length;
  const caption = `<text x="${n1((left + width - right) / 2)}" y="${height - 8}" text-anchor="middle">${diffs.length} topics sorted by difference: ${e(a)} higher on ${wins}, ${e(b)} higher on ${losses}, equal on ${diffs.length - wins - losses}</text>`;
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="per-topic ${e(measure)} differences">${axis}${bars}${caption}</svg>`;
}

/** Corrected p-values of one measure as a run × run matrix (raw p in each cell's tooltip). */
function pMatrix(c: Comparison, measure: string, tags: Map<string, string>): string {
  const runs = c.runs.map((r) => r.run);
  const tests = new Map<string, Comparison['pairs'][number]>();
  for (const p of c.pairs) {
    if (p.measure !== measure) continue;
    tests.set(`${p.a}\u0000${p.b}`, p);
    tests.set(`${p.b}\u0000${p.a}`, p);
  }
  const head = `<tr><th></th>${runs.map((r) => `<th title="${e(r)}">${e(tags.get(r)!)}</th>`).join('')}</tr>`;
  const rows = runs
    .map((a) => {
      const cells = runs
        .map((b) => {
          if (a === b) return '<td class="diag">–</td>';
          const p = tests.get(`${a}\u0000${b}`);
          if (!p) return '<td></td>';
          const diff = p.a === a ? p.meanDiff : -p.meanDiff;
          const cls = p.significant ? (diff > 0 ? 'sig win' : 'sig loss') : 'ns';
          return `<td class="${cls}" title="${e(a)} − ${e(b)}: ${f4(diff)}; p ${formatP(p.p)}, corrected ${formatP(p.pAdjusted)}">${formatP(p.pAdjusted)}</td>`;
        })
        .join('');
      return `<tr><th class="run">${e(tags.get(a)!)} ${e(a)}</th>${cells}</tr>`;
    })
    .join('');
  return `<table class="matrix">${head}${rows}</table>`;
}

function leaderboardTable(c: Comparison, tags: Map<string, string>): string {
  const best = Object.fromEntries(
    c.measures.map((m) => [m, Math.max(...c.runs.map((r) => r.means[m]!))]),
  );
  const judged = hasJudged(c);
  const head = `<tr><th></th><th class="run">run</th>${c.measures.map((m) => `<th>${e(m)}</th>`).join('')}${judged ? '<th>Judged@10</th>' : ''}</tr>`;
  const body = c.runs
    .map((r) => {
      const cells = c.measures
        .map((m) => {
          const mk = marks(c, tags, r.run, m);
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
  const tags = runTags(c);
  const parts = [
    `<section><h2>${e(heading)}</h2>`,
    `<p class="meta">${e(c.source ?? 'qrels')} <code>${e(qrels)}</code>: ${c.topics} topics, ${c.runs.length} ${hasJudged(c) ? 'runs' : 'systems'}. Topics: ${e(c.topicHandling)}.<br>Test: ${e(testLine(c))}.<br>${e(ciLine(c))}.</p>`,
    leaderboardTable(c, tags),
    `<p class="note">${e(legendLine(c))} Bold: best mean in the column. Hover a mean for its 95% interval.</p>`,
  ];
  for (const m of c.measures) {
    parts.push(`<h3>${e(m)}: means with 95% confidence intervals</h3>`, ciPlot(c, m));
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
  const tags = runTags(c);
  const parts = [`<section><h2>${e(heading)}</h2>`];
  for (const m of c.measures) {
    parts.push(
      `<h3>Corrected p-values, ${e(m)}</h3>`,
      '<p class="note">Row run against column run; green: the row run is significantly better, red: significantly worse. Hover for the difference and the raw p.</p>',
      pMatrix(c, m, tags),
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
.matrix td{font-size:.85em;min-width:4.2em}.matrix .diag{color:#aab}.matrix .ns{color:#667}
.matrix .win{background:#cdebd5}.matrix .loss{background:#f6d2cd}
svg{display:block;margin:.4em 0;max-width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:#1d232b}
svg .head{font-weight:600}svg .grid{stroke:#e4e6ec}svg .zero{stroke:#555}
svg .ci{stroke:#4a6fa5;stroke-width:2}svg .mean{fill:#1f3b63}
svg .up{fill:#3c8d5a}svg .down{fill:#b5483b}
`;

/** The widest significance-mark string of the report, in characters. */
function widestMarks(report: CompareReport): number {
  let widest = 0;
  for (const { comparison: c } of report.leaderboards) {
    const tags = runTags(c);
    for (const r of c.runs)
      for (const m of c.measures) widest = Math.max(widest, marks(c, tags, r.run, m).length);
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
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<style>${style}</style>
</head>
<body>
<h1>${e(title)}</h1>
${sections.join('\n')}
</body>
</html>
`;
}
