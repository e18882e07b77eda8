// The HTML page of the answer-quality report: one self-contained file in the reports' page
// shell (inline CSS, bars drawn with inline SVG, no scripts or fetched resources). System and criterion names come
// from users' files and always go through escapeHtml.
import type { AnswerQualityReport } from '@assay/stats';
import { escapeHtml as e } from '../formats/index.js';
import { f4, formatP, htmlPage } from '../presentation/index.js';
import { methodLine, reportCriteria, type AnswersReportSettings } from './answers-report.js';

const COLOURS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1'];

const STYLE = `
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #ddd; text-align: right; }
th[scope="row"], td:first-child { text-align: left; }
.ci { color: #666; font-size: 0.9em; }
tr.sig td { font-weight: 600; }
.key { margin-right: 1rem; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.3em; }
`;

/** Grouped bars: per criterion one bar per system, its normalised win rate (as SRSA's figure). */
function winRateChart(report: AnswerQualityReport, criteria: readonly string[]): string {
  const systems = report.systems;
  const barW = 18;
  const groupW = systems.length * barW + 24;
  const height = 180;
  const top = 10;
  const left = 36;
  const width = left + criteria.length * groupW + 10;
  const parts: string[] = [];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    const y = top + height * (1 - tick);
    parts.push(
      `<line x1="${left}" x2="${width - 10}" y1="${y}" y2="${y}" stroke="#ddd"/>`,
      `<text x="${left - 4}" y="${y + 4}" text-anchor="end">${tick.toFixed(2)}</text>`,
    );
  }
  criteria.forEach((c, ci) => {
    const x0 = left + ci * groupW + 12;
    systems.forEach((s, si) => {
      const v = s.winRateNormalised[c]!;
      const h = Number.isFinite(v) ? v * height : 0;
      const x = x0 + si * barW;
      parts.push(
        `<rect x="${x}" y="${top + height - h}" width="${barW - 3}" height="${h}" fill="${COLOURS[si % COLOURS.length]}"><title>${e(s.system)}, ${e(c)}: ${f4(v)}</title></rect>`,
      );
    });
    parts.push(
      `<text x="${x0 + (systems.length * barW) / 2}" y="${top + height + 16}" text-anchor="middle">${e(c)}</text>`,
    );
  });
  const legend = systems
    .map(
      (s, i) =>
        `<span class="key"><span class="swatch" style="background:${COLOURS[i % COLOURS.length]}"></span>${e(s.system)}</span>`,
    )
    .join(' ');
  return `<svg role="img" aria-label="Normalised win rates per criterion" width="${width}" height="${top + height + 28}" font-size="11">${parts.join('')}</svg><p>${legend}</p>`;
}

/** The self-contained HTML page of an answer-quality report. */
export function answersHtml(report: AnswerQualityReport, settings: AnswersReportSettings): string {
  const criteria = reportCriteria(report);
  const meansRows = report.systems
    .map(
      (s) =>
        `<tr><th scope="row">${e(s.system)}</th><td>${s.n}</td>${criteria
          .map(
            (c) =>
              `<td>${f4(s.means[c]!)} <span class="ci">[${f4(s.ci[c]![0])}, ${f4(s.ci[c]![1])}]</span></td>`,
          )
          .join('')}</tr>`,
    )
    .join('\n');
  const winRows = report.systems
    .map(
      (s) =>
        `<tr><th scope="row">${e(s.system)}</th>${criteria
          .map((c) => `<td>${f4(s.winRate[c]!)} (${f4(s.winRateNormalised[c]!)})</td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  const testRows = report.tests
    .map(
      (t) =>
        `<tr${t.significant ? ' class="sig"' : ''}><td>${e(t.a)} vs ${e(t.b)}</td><td>${e(t.criterion)}</td><td>${f4(t.statistic)}</td><td>${formatP(t.p)}</td><td>${formatP(t.pAdjusted)}</td><td>${t.significant ? 'yes' : 'no'}</td></tr>`,
    )
    .join('\n');
  const spread = settings.spread;
  const spreadSection =
    spread && spread.maxTrials > 1
      ? `<h2>Trial spread</h2>
<p>Mean over topics of the standard deviation of up to ${spread.maxTrials} trials.</p>
<table>
<thead><tr><th scope="col">system</th>${criteria.map((c) => `<th scope="col">${e(c)}</th>`).join('')}</tr></thead>
<tbody>
${report.systems
  .map(
    (s) =>
      `<tr><th scope="row">${e(s.system)}</th>${criteria
        .map((c) => `<td>${f4(spread.meanSd[s.system]?.[c] ?? Number.NaN)}</td>`)
        .join('')}</tr>`,
  )
  .join('\n')}
</tbody>
</table>
`
      : '';
  const heads = criteria.map((c) => `<th scope="col">${e(c)}</th>`).join('');
  return htmlPage({
    title: 'Answer quality',
    style: STYLE,
    body: `<p>${e(methodLine(settings))}</p>
<h2>Win rates (normalised)</h2>
${winRateChart(report, criteria)}
<table>
<thead><tr><th scope="col">system</th>${heads}</tr></thead>
<tbody>
${winRows}
</tbody>
</table>
<h2>Means with 95% intervals</h2>
<table>
<thead><tr><th scope="col">system</th><th scope="col">n</th>${heads}</tr></thead>
<tbody>
${meansRows}
</tbody>
</table>
${spreadSection}<h2>Significance tests</h2>
<table>
<thead><tr><th scope="col">pair</th><th scope="col">criterion</th><th scope="col">t</th><th scope="col">p</th><th scope="col">p adjusted</th><th scope="col">significant</th></tr></thead>
<tbody>
${testRows}
</tbody>
</table>`,
  });
}
