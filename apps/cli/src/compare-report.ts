// Renders comparisons as text tables, JSON, CSV, LaTeX and one self-contained HTML file.
import type { Comparison, RankCorrelation } from './compare.js';

const letter = (i: number) => (i < 26 ? String.fromCharCode(97 + i) : `r${i + 1}`);
const f4 = (x: number) => (Number.isFinite(x) ? x.toFixed(4) : 'n/a');

function letters(c: Comparison): Map<string, string> {
  return new Map(c.runs.map((r, i) => [r.run, letter(i)]));
}

function settingsLine(c: Comparison): string {
  const test = {
    t: 'paired t-test',
    wilcoxon: 'Wilcoxon signed-rank test',
    randomization: 'randomization test',
  }[c.test];
  return `${test}, ${c.correction === 'none' ? 'no' : c.correction} correction, alpha ${c.alpha}; ${c.topics} topics: ${c.topicHandling}`;
}

/** The comparison as JSON (per-topic values left out). */
export function comparisonJson(c: Comparison): unknown {
  return {
    topicHandling: c.topicHandling,
    topics: c.topics,
    test: c.test,
    correction: c.correction,
    alpha: c.alpha,
    measures: c.measures,
    runs: c.runs,
    pairs: c.pairs,
  };
}

/** Aligned text table; each mean carries the letters of the runs it is significantly better than. */
export function comparisonTable(c: Comparison, title = 'leaderboard'): string {
  const tags = letters(c);
  const header = ['', 'run', ...c.measures, 'Judged@10'];
  const rows = c.runs.map((r) => [
    tags.get(r.run)!,
    r.run,
    ...c.measures.map((m) => {
      const marks = r.betterThan[m]!.map((x) => tags.get(x))
        .sort()
        .join('');
      return marks ? `${f4(r.means[m]!)} ${marks}` : f4(r.means[m]!);
    }),
    f4(r.judgedAt10),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    `${title}: ${settingsLine(c)}`,
    line(header),
    ...rows.map(line),
    'A letter after a mean: significantly better than the run with that letter on that measure.',
    '',
  ].join('\n');
}

/** CSV: one row per (run, measure), a blank line, then one row per pairwise test. */
export function comparisonCsv(c: Comparison): string {
  const cell = (v: unknown) => {
    const s = String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = ['run,measure,mean,ci_lower,ci_upper,judged_at_10,better_than,topic_handling'];
  for (const r of c.runs) {
    for (const m of c.measures) {
      lines.push(
        [
          r.run,
          m,
          r.means[m],
          r.ci[m]![0],
          r.ci[m]![1],
          r.judgedAt10,
          r.betterThan[m]!.join(' '),
          c.topicHandling,
        ]
          .map(cell)
          .join(','),
      );
    }
  }
  lines.push('', 'a,b,measure,mean_diff,statistic,p,p_adjusted,significant,test,correction');
  for (const p of c.pairs) {
    lines.push(
      [
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
      ]
        .map(cell)
        .join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

function latexEscape(s: string): string {
  return s.replace(/[\\{}$&#^_%~]/g, (ch) =>
    ch === '\\'
      ? '\\textbackslash{}'
      : ch === '~'
        ? '\\textasciitilde{}'
        : ch === '^'
          ? '\\textasciicircum{}'
          : `\\${ch}`,
  );
}

/** A booktabs table: best mean per column in bold, significance as superscript letters. */
export function comparisonLatex(c: Comparison): string {
  const tags = letters(c);
  const best = Object.fromEntries(
    c.measures.map((m) => [m, Math.max(...c.runs.map((r) => r.means[m]!))]),
  );
  const lines = [
    `% ${settingsLine(c)}`,
    `\\begin{tabular}{ll${'r'.repeat(c.measures.length + 1)}}`,
    '\\toprule',
    ` & Run & ${c.measures.map(latexEscape).join(' & ')} & Judged@10 \\\\`,
    '\\midrule',
  ];
  for (const r of c.runs) {
    const cells = c.measures.map((m) => {
      const value = r.means[m] === best[m] ? `\\textbf{${f4(r.means[m]!)}}` : f4(r.means[m]!);
      const marks = r.betterThan[m]!.map((x) => tags.get(x))
        .sort()
        .join('');
      return marks ? `${value}\\textsuperscript{${marks}}` : value;
    });
    lines.push(
      `(${tags.get(r.run)}) & ${latexEscape(r.run)} & ${cells.join(' & ')} & ${f4(r.judgedAt10)} \\\\`,
    );
  }
  lines.push('\\bottomrule', '\\end{tabular}', '');
  return lines.join('\n');
}

/** Escapes text for HTML: run names and topic ids come from users' files. */
export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );
}

function ciPlot(c: Comparison, measure: string): string {
  const width = 640;
  const rowH = 22;
  const left = 180;
  const height = c.runs.length * rowH + 40;
  const lo = Math.min(...c.runs.map((r) => r.ci[measure]![0]));
  const hi = Math.max(...c.runs.map((r) => r.ci[measure]![1]));
  const span = hi - lo || 1;
  const x = (v: number) => left + ((v - lo) / span) * (width - left - 20);
  const parts = c.runs.map((r, i) => {
    const y = 20 + i * rowH;
    const [a, b] = r.ci[measure]!;
    return (
      `<text x="${left - 8}" y="${y + 4}" text-anchor="end">${escapeHtml(r.run)}</text>` +
      `<line x1="${x(a).toFixed(1)}" x2="${x(b).toFixed(1)}" y1="${y}" y2="${y}" stroke="#4a6fa5" stroke-width="2"/>` +
      `<circle cx="${x(r.means[measure]!).toFixed(1)}" cy="${y}" r="4" fill="#1f3b63"><title>${escapeHtml(r.run)}: ${f4(r.means[measure]!)} [${f4(a)}, ${f4(b)}]</title></circle>`
    );
  });
  const axis = `<text x="${left}" y="${height - 6}">${f4(lo)}</text><text x="${width - 20}" y="${height - 6}" text-anchor="end">${f4(hi)}</text>`;
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(measure)} means with 95% confidence intervals">${parts.join('')}${axis}</svg>`;
}

function diffPlot(c: Comparison, measure: string, a: string, b: string): string {
  const xs = c.perTopic[measure]![a]!;
  const ys = c.perTopic[measure]![b]!;
  const diffs = c.topicIds.map((q, i) => ({ q, d: xs[i]! - ys[i]! })).sort((p, q) => q.d - p.d);
  const width = 640;
  const height = 200;
  const max = Math.max(1e-9, ...diffs.map((d) => Math.abs(d.d)));
  const barW = (width - 20) / Math.max(1, diffs.length);
  const mid = height / 2;
  const bars = diffs.map((d, i) => {
    const h = (Math.abs(d.d) / max) * (mid - 10);
    const y = d.d >= 0 ? mid - h : mid;
    return `<rect x="${(10 + i * barW).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, barW - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${d.d >= 0 ? '#3c8d5a' : '#b5483b'}"><title>topic ${escapeHtml(d.q)}: ${f4(d.d)}</title></rect>`;
  });
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="per-topic differences">${bars.join('')}<line x1="10" x2="${width - 10}" y1="${mid}" y2="${mid}" stroke="#555"/></svg>`;
}

/** One self-contained HTML page: table, confidence-interval plot, per-topic differences, p-values. */
export function comparisonHtml(
  c: Comparison,
  correlations?: { other: Comparison; byMeasure: Record<string, RankCorrelation> },
): string {
  const tags = letters(c);
  const m0 = c.measures[0]!;
  const header = `<tr><th></th><th>run</th>${c.measures.map((m) => `<th>${escapeHtml(m)}</th>`).join('')}<th>Judged@10</th></tr>`;
  const body = c.runs
    .map((r) => {
      const cells = c.measures
        .map((m) => {
          const marks = r.betterThan[m]!.map((x) => tags.get(x))
            .sort()
            .join('');
          return `<td>${f4(r.means[m]!)}${marks ? `<sup>${marks}</sup>` : ''}</td>`;
        })
        .join('');
      return `<tr><td>${tags.get(r.run)}</td><td>${escapeHtml(r.run)}</td>${cells}<td>${f4(r.judgedAt10)}</td></tr>`;
    })
    .join('');
  const pMatrix = (() => {
    const runs = c.runs.map((r) => r.run);
    const find = (a: string, b: string) =>
      c.pairs.find(
        (p) => p.measure === m0 && ((p.a === a && p.b === b) || (p.a === b && p.b === a)),
      );
    const rows = runs
      .map((a) => {
        const cells = runs
          .map((b) => {
            const p = a === b ? undefined : find(a, b);
            if (!p) return '<td></td>';
            const shade = p.significant ? '#cfe8d5' : '#f3f3f3';
            return `<td style="background:${shade}">${p.pAdjusted.toPrecision(3)}</td>`;
          })
          .join('');
        return `<tr><th>${escapeHtml(a)}</th>${cells}</tr>`;
      })
      .join('');
    return `<table><tr><th></th>${runs.map((r) => `<th>${escapeHtml(r)}</th>`).join('')}</tr>${rows}</table>`;
  })();
  const [top, second] = [c.runs[0]!.run, c.runs[1]?.run];
  const correlationSection = correlations
    ? `<h2>Leaderboard agreement</h2><table><tr><th>measure</th><th>Kendall tau-b</th><th>tau-AP</th><th>Spearman</th><th>RBO</th></tr>${Object.entries(
        correlations.byMeasure,
      )
        .map(
          ([m, r]) =>
            `<tr><td>${escapeHtml(m)}</td><td>${f4(r.kendallTauB)}</td><td>${f4(r.tauAP)}</td><td>${f4(r.spearman)}</td><td>${f4(r.rbo)}</td></tr>`,
        )
        .join('')}</table>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>assay comparison</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}td:nth-child(2),th:nth-child(2){text-align:left}sup{color:#1f3b63}svg text{font:12px system-ui,sans-serif}</style>
</head><body>
<h1>Leaderboard</h1>
<p>${escapeHtml(settingsLine(c))}. A letter after a mean: significantly better than the run with that letter.</p>
<table>${header}${body}</table>
<h2>${escapeHtml(m0)}: means with 95% confidence intervals</h2>
${ciPlot(c, m0)}
${second ? `<h2>Per-topic ${escapeHtml(m0)} differences: ${escapeHtml(top)} − ${escapeHtml(second)}</h2>${diffPlot(c, m0, top, second)}` : ''}
<h2>Corrected p-values (${escapeHtml(m0)})</h2>
${pMatrix}
${correlationSection}
</body></html>
`;
}
