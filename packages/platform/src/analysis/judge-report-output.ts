// `assay judge-report` output: aligned text, JSON and one self-contained HTML page (in the
// reports' page shell).
import { agreementText, type AgreementReport, type Interval } from './agreement.js';
import { escapeHtml as e } from '../formats/index.js';
import { f4, htmlPage } from '../presentation/index.js';
import type { RankCorrelation } from './rank-correlation.js';
import type { GradeUsage, JudgeReport } from './judge-report.js';

/** The formats `assay judge-report` writes. */
export const JUDGE_REPORT_FORMATS = ['text', 'json', 'html'] as const;

/** One of {@link JUDGE_REPORT_FORMATS}. */
export type JudgeReportFormat = (typeof JUDGE_REPORT_FORMATS)[number];

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'n/a');
const ci = (v: Interval | undefined) => (v ? ` [${f4(v[0])}, ${f4(v[1])}]` : '');

function usageLine(usage: readonly GradeUsage[]): string {
  return usage.map((u) => `${u.grade}: ${pct(u.share)}${u.rare ? ' (under 2%)' : ''}`).join('   ');
}

function correlationLine(r: RankCorrelation, k: number): string {
  const c = (key: keyof NonNullable<RankCorrelation['ci']>) => ci(r.ci?.[key]);
  return (
    `tau-b ${f4(r.kendallTauB)}${c('kendallTauB')}   tau-AP ${f4(r.tauAP)}${c('tauAP')}   ` +
    `RBO ${f4(r.rbo)}${c('rbo')}   tau@${k} ${f4(r.kendallTauTop ?? Number.NaN)}${c('kendallTauTop')}`
  );
}

function indent(text: string, by = '  '): string[] {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => (l === '' ? '' : `${by}${l}`));
}

/** The report as `assay judge-report` prints it. */
export function judgeReportText(r: JudgeReport): string {
  const lines: string[] = [];
  const against = r.human ? `the human labels ${r.human.name}` : 'each other (no human labels)';
  lines.push(
    `judge report: ${r.judges.length} judge${r.judges.length === 1 ? '' : 's'} against ${against}; scale ${r.scale.min}-${r.scale.max}`,
    `95% intervals: ${r.bootstrap.method}; ${r.bootstrap.samples} resamples, seed ${r.bootstrap.seed}`,
    `a grade used for under ${pct(r.rareGradeShare)} of a label set's items is flagged (a collapsed scale)`,
  );
  for (const note of r.notes) lines.push(`note: ${note}`);
  if (r.human) {
    lines.push('', `human labels ${r.human.name}: ${r.human.labels} labels`);
    lines.push(`  grade usage  ${usageLine(r.human.usage)}`);
  }
  for (const j of r.judges) {
    lines.push(
      '',
      `== judge ${j.judge}: ${j.labels} labels${j.outsideScale ? ` (${j.outsideScale} outside the scale, left out)` : ''}`,
    );
    lines.push(`  grade usage  ${usageLine(j.usage)}`);
    if (j.rareGrades.length > 0)
      lines.push(
        `  collapsed scale: grade${j.rareGrades.length > 1 ? 's' : ''} ${j.rareGrades.join(', ')} used for under 2% of the items`,
      );
    lines.push(
      j.inverted
        ? `  INVERTED POLARITY: agreement below chance (linear kappa ${f4(j.agreement.cohenKappa.linear)}); the grades may run backwards`
        : `  polarity: agreement above chance (linear kappa ${f4(j.agreement.cohenKappa.linear)})`,
    );
    lines.push(`  against ${j.against}:`);
    lines.push(...indent(agreementText(j.agreement, j.against, j.judge, false), '    '));
    if (j.leaderboard && r.measure)
      lines.push(
        `  leaderboard (${r.measure}, ${r.runs} runs): ${correlationLine(j.leaderboard, 10)}`,
      );
    if (j.lengthBias) {
      const b = j.lengthBias;
      lines.push(
        `  length bias: Pearson r of passage length (words) and ${b.difference}: ${f4(b.pearson)}${ci(b.ci)} over ${b.n} items`,
        `    by length: ${b.bands.map((band) => `${band.from}-${band.to} words ${band.meanDifference >= 0 ? '+' : ''}${band.meanDifference.toFixed(3)}`).join('   ')}`,
      );
    }
    if (j.cost)
      lines.push(
        `  cost: $${j.cost.costUsd.toFixed(4)} and ${j.cost.calls} calls for ${j.cost.items} items: ` +
          `$${j.cost.perThousandItems.costUsd.toFixed(4)} and ${j.cost.perThousandItems.calls.toFixed(1)} calls per 1,000 items`,
      );
  }
  if (r.panel) {
    const p = r.panel;
    lines.push('', '== the judges together');
    lines.push(
      `  Fleiss' kappa ${f4(p.fleissKappa.value)}${ci(p.fleissKappa.ci)} over ${p.itemsAll} items every judge labelled`,
      `  Krippendorff's alpha nominal ${f4(p.krippendorffAlpha.nominal)}${ci(p.krippendorffAlpha.ci?.nominal)}   ordinal ${f4(p.krippendorffAlpha.ordinal)}${ci(p.krippendorffAlpha.ci?.ordinal)}   interval ${f4(p.krippendorffAlpha.interval)}${ci(p.krippendorffAlpha.ci?.interval)} over ${p.itemsPaired} items`,
      `  majority consensus: ${p.consensus.items} items; grade usage ${usageLine(p.consensus.usage)}`,
      '  pairs:',
    );
    const width = Math.max(...p.pairwise.map((x) => `${x.a} / ${x.b}`.length));
    lines.push(
      `    ${'pair'.padEnd(width)}  ${'items'.padStart(7)}  agreement  kappa lin  alpha ord      AC1`,
    );
    for (const x of p.pairwise)
      lines.push(
        `    ${`${x.a} / ${x.b}`.padEnd(width)}  ${String(x.n).padStart(7)}  ${f4(x.exactAgreement).padStart(9)}  ${f4(x.kappaLinear).padStart(9)}  ${f4(x.alphaOrdinal).padStart(9)}  ${f4(x.ac1).padStart(7)}`,
      );
  }
  if (r.positionSwap) {
    const p = r.positionSwap;
    lines.push(
      '',
      `== position swap: ${p.topics} topics judged side by side twice, in different orders`,
      '  per criterion, pairs of answers shown in both orders: the same preference both times, or',
      '  the answer shown first (second) winning both times',
    );
    const width = Math.max(9, ...p.criteria.map((c) => c.criterion.length));
    lines.push(`    ${'criterion'.padEnd(width)}  swapped  consistent  first won  second won`);
    for (const c of p.criteria)
      lines.push(
        `    ${c.criterion.padEnd(width)}  ${String(c.swapped).padStart(7)}  ${pct(c.consistency).padStart(10)}  ${String(c.firstWins).padStart(9)}  ${String(c.secondWins).padStart(10)}`,
      );
  }
  for (const d of r.drift) {
    lines.push('', `== drift ${d.from} -> ${d.to}: ${d.n} items both labelled`);
    lines.push(
      `  changed: ${pct(d.changed)} of the items; mean shift ${d.meanShift >= 0 ? '+' : ''}${f4(d.meanShift)} grades`,
    );
    lines.push(...indent(agreementText(d.agreement, d.from, d.to, false), '  '));
  }
  return `${lines.join('\n')}\n`;
}

/** JSON at full precision (non-finite numbers as null). */
export function judgeReportJson(r: JudgeReport): string {
  return `${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`;
}

function usageTable(usage: readonly GradeUsage[]): string {
  return `<table><tr><th>grade</th>${usage.map((u) => `<th>${u.grade}</th>`).join('')}</tr><tr><td class="l">share</td>${usage
    .map((u) => `<td${u.rare ? ' class="rare"' : ''}>${pct(u.share)}</td>`)
    .join(
      '',
    )}</tr><tr><td class="l">items</td>${usage.map((u) => `<td>${u.count}</td>`).join('')}</tr></table>`;
}

function coefficientTable(a: AgreementReport): string {
  const rows: Array<[string, number, Interval | undefined]> = [
    ['exact agreement', a.exactAgreement, a.intervals?.exactAgreement],
    ["Cohen's kappa", a.cohenKappa.unweighted, a.intervals?.cohenKappa.unweighted],
    ["Cohen's kappa, linear", a.cohenKappa.linear, a.intervals?.cohenKappa.linear],
    ["Cohen's kappa, quadratic", a.cohenKappa.quadratic, a.intervals?.cohenKappa.quadratic],
    [
      "Krippendorff's alpha, ordinal",
      a.krippendorffAlpha.ordinal,
      a.intervals?.krippendorffAlpha.ordinal,
    ],
    [
      "Krippendorff's alpha, interval",
      a.krippendorffAlpha.interval,
      a.intervals?.krippendorffAlpha.interval,
    ],
    ["Gwet's AC1", a.gwet.ac1, a.intervals?.gwet.ac1],
    ["Gwet's AC2, quadratic", a.gwet.ac2.quadratic, a.intervals?.gwet.ac2.quadratic],
    ['PABAK', a.pabak, a.intervals?.pabak],
  ];
  const body = rows
    .map(
      ([name, v, iv]) =>
        `<tr><td class="l">${name}</td><td>${f4(v)}</td><td>${iv ? `${f4(iv[0])} – ${f4(iv[1])}` : ''}</td></tr>`,
    )
    .join('');
  const binarized = a.binarized
    .map(
      (b) =>
        `<tr><td>≥ ${b.threshold}</td><td>${f4(b.kappa)}</td><td>${f4(b.alpha)}</td><td>${f4(b.ac1)}</td><td>${f4(b.agreement)}</td></tr>`,
    )
    .join('');
  return (
    `<table><tr><th class="l">coefficient</th><th>value</th><th>95% interval</th></tr>${body}</table>` +
    `<table><tr><th>relevant at</th><th>kappa</th><th>alpha</th><th>AC1</th><th>agreement</th></tr>${binarized}</table>`
  );
}

function matrixTable(a: AgreementReport, rows: string, cols: string): string {
  const { labels, matrix } = a.confusion;
  return `<table class="matrix"><tr><th>${e(rows)} \\ ${e(cols)}</th>${labels.map((l) => `<th>${l}</th>`).join('')}</tr>${matrix
    .map(
      (row, i) =>
        `<tr><th>${labels[i]}</th>${row.map((v, j) => `<td${i === j ? ' class="diag"' : ''}>${v}</td>`).join('')}</tr>`,
    )
    .join('')}</table>`;
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#1d232b}
h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccd}table{border-collapse:collapse;margin:.6em 1em .6em 0;display:inline-table;vertical-align:top}
td,th{padding:3px 8px;border-bottom:1px solid #e2e4ea;text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{background:#f4f5f8}.l{text-align:left}.rare{background:#f6d2cd}.diag{background:#cdebd5}.flag{color:#b5483b;font-weight:600}.meta{color:#4a5260}`;

/** One self-contained HTML page (inline CSS, no scripts); every name is escaped. */
export function judgeReportHtml(r: JudgeReport, title = 'assay judge-report'): string {
  const parts: string[] = [];
  parts.push(
    `<p class="meta">Scale ${r.scale.min}–${r.scale.max}. 95% intervals: ${e(r.bootstrap.method)}; ${r.bootstrap.samples} resamples, seed ${r.bootstrap.seed}. Grades used for under ${pct(r.rareGradeShare)} of the items are marked.</p>`,
  );
  for (const note of r.notes) parts.push(`<p class="meta">${e(note)}</p>`);
  if (r.human)
    parts.push(
      `<h2>Human labels: ${e(r.human.name)}</h2><p>${r.human.labels} labels</p>${usageTable(r.human.usage)}`,
    );
  for (const j of r.judges) {
    parts.push(`<h2>Judge ${e(j.judge)}</h2>`);
    parts.push(
      `<p>${j.labels} labels against ${e(j.against)}${j.outsideScale ? `; ${j.outsideScale} outside the scale, left out` : ''}.</p>`,
    );
    parts.push(usageTable(j.usage));
    if (j.rareGrades.length > 0)
      parts.push(
        `<p class="flag">Collapsed scale: grade${j.rareGrades.length > 1 ? 's' : ''} ${j.rareGrades.join(', ')} used for under 2% of the items.</p>`,
      );
    if (j.inverted)
      parts.push(
        `<p class="flag">Inverted polarity: agreement below chance (linear kappa ${f4(j.agreement.cohenKappa.linear)}).</p>`,
      );
    parts.push(coefficientTable(j.agreement), matrixTable(j.agreement, j.against, j.judge));
    if (j.leaderboard && r.measure)
      parts.push(
        `<p>Leaderboard (${e(r.measure)}, ${r.runs} runs): ${e(correlationLine(j.leaderboard, 10))}</p>`,
      );
    if (j.lengthBias)
      parts.push(
        `<p>Length bias: Pearson r of passage length and ${e(j.lengthBias.difference)} ${f4(j.lengthBias.pearson)}${ci(j.lengthBias.ci)} over ${j.lengthBias.n} items.</p>`,
      );
    if (j.cost)
      parts.push(
        `<p>Cost: $${j.cost.costUsd.toFixed(4)}, ${j.cost.calls} calls for ${j.cost.items} items ($${j.cost.perThousandItems.costUsd.toFixed(4)} and ${j.cost.perThousandItems.calls.toFixed(1)} calls per 1,000 items).</p>`,
      );
  }
  if (r.panel) {
    const p = r.panel;
    parts.push(
      '<h2>The judges together</h2>',
      `<p>Fleiss' kappa ${f4(p.fleissKappa.value)}${ci(p.fleissKappa.ci)} over ${p.itemsAll} items every judge labelled; Krippendorff's alpha (ordinal) ${f4(p.krippendorffAlpha.ordinal)}${ci(p.krippendorffAlpha.ci?.ordinal)} over ${p.itemsPaired} items.</p>`,
      `<table><tr><th class="l">pair</th><th>items</th><th>agreement</th><th>kappa (linear)</th><th>alpha (ordinal)</th><th>AC1</th></tr>${p.pairwise
        .map(
          (x) =>
            `<tr><td class="l">${e(x.a)} / ${e(x.b)}</td><td>${x.n}</td><td>${f4(x.exactAgreement)}</td><td>${f4(x.kappaLinear)}</td><td>${f4(x.alphaOrdinal)}</td><td>${f4(x.ac1)}</td></tr>`,
        )
        .join('')}</table>`,
      `<p>Majority consensus: ${p.consensus.items} items.</p>${usageTable(p.consensus.usage)}`,
    );
  }
  if (r.positionSwap) {
    const p = r.positionSwap;
    parts.push(
      `<h2>Position swap</h2><p>${p.topics} topics judged side by side twice, in different orders: per criterion, the pairs of answers shown in both orders, the share with the same preference both times, and those where the answer shown first (second) won both times.</p>`,
      `<table><tr><th class="l">criterion</th><th>swapped</th><th>consistent</th><th>first won</th><th>second won</th></tr>${p.criteria
        .map(
          (c) =>
            `<tr><td class="l">${e(c.criterion)}</td><td>${c.swapped}</td><td>${pct(c.consistency)}</td><td>${c.firstWins}</td><td>${c.secondWins}</td></tr>`,
        )
        .join('')}</table>`,
    );
  }
  for (const d of r.drift) {
    parts.push(
      `<h2>Drift: ${e(d.from)} → ${e(d.to)}</h2><p>${d.n} items both labelled; ${pct(d.changed)} changed grade; mean shift ${f4(d.meanShift)}.</p>`,
      coefficientTable(d.agreement),
      matrixTable(d.agreement, d.from, d.to),
    );
  }
  return htmlPage({ title, style: STYLE, body: parts.join('\n') });
}

/** The report in one of {@link JUDGE_REPORT_FORMATS}. */
export function renderJudgeReport(
  r: JudgeReport,
  format: JudgeReportFormat,
  title?: string,
): string {
  return format === 'json'
    ? judgeReportJson(r)
    : format === 'html'
      ? judgeReportHtml(r, title)
      : judgeReportText(r);
}
