// `assay ppi` output: an aligned text report, JSON and CSV of a prediction-powered leaderboard.
import { csvRow } from '../formats/index.js';
import { correctionName, f4, formatP } from '../presentation/index.js';
import type { PpiReport } from './ppi.js';

/** The formats `assay ppi` writes. */
export const PPI_FORMATS = ['text', 'json', 'csv'] as const;

/** One of {@link PPI_FORMATS}. */
export type PpiFormat = (typeof PPI_FORMATS)[number];

function percent(level: number): string {
  return `${Math.round(level * 1000) / 10}%`;
}

function range(lower: number, upper: number): string {
  return `[${f4(lower)}, ${f4(upper)}]`;
}

function align(rows: string[][], right: ReadonlySet<number>): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** The report as `assay ppi` prints it: settings, one table per measure, then the differences. */
export function ppiText(r: PpiReport): string {
  const unit = r.sampling === 'topics' ? 'topics' : 'pairs';
  const lines = [
    `human labels: ${r.n} of ${r.N} ${unit}; LLM labels: all ${r.N} ${unit}${r.sampling === 'pairs' ? ` (${r.topics} topics)` : ''}`,
    `method: ${r.method}`,
    `${percent(r.level)} intervals`,
  ];
  if (r.targetHalfWidth !== undefined && r.needed)
    lines.push(
      `target half-width ${r.targetHalfWidth}: likely needs ${r.needed.units} labelled ${unit} (${r.needed.more} more)`,
    );
  const runs = [...new Set(r.rows.map((row) => row.run))];
  for (const m of r.measures) {
    lines.push('', m);
    const header = ['run', 'PPI', 'interval', '±', 'λ', 'human', 'interval', 'LLM'];
    if (r.targetHalfWidth !== undefined) header.push('needed');
    const body = runs.map((run) => {
      const row = r.rows.find((x) => x.run === run && x.measure === m)!;
      const cells = [
        run,
        f4(row.estimate),
        range(row.ci_lower, row.ci_upper),
        f4((row.ci_upper - row.ci_lower) / 2),
        row.lambda.toFixed(2),
        f4(row.human.estimate),
        range(row.human.ci_lower, row.human.ci_upper),
        f4(row.llm_mean),
      ];
      if (row.needed !== undefined) cells.push(String(row.needed));
      return cells;
    });
    lines.push(...align([header, ...body], new Set([1, 3, 4, 5, 7, 8])).map((l) => `  ${l}`));
  }
  if (r.pairs.length > 0) {
    lines.push(
      '',
      `differences (estimate of mean(a − b), two-sided t; ${correctionName(r.correction)} correction per measure; * corrected p < ${r.alpha})`,
    );
    for (const m of r.measures) {
      lines.push(m);
      const body = r.pairs
        .filter((p) => p.measure === m)
        .map((p) => [
          `${p.a} − ${p.b}`,
          (p.estimate >= 0 ? '+' : '') + f4(p.estimate),
          range(p.ci_lower, p.ci_upper),
          formatP(p.p),
          formatP(p.p_adjusted),
          p.significant ? '*' : '',
        ]);
      lines.push(
        ...align(
          [['pair', 'diff', 'interval', 'p', 'p corrected', ''], ...body],
          new Set([1, 3, 4]),
        ).map((l) => `  ${l}`),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** JSON at full precision (non-finite numbers as null). */
export function ppiJson(r: PpiReport): string {
  return `${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`;
}

/**
 * CSV in two sections separated by a blank line, each with its own header: one row per
 * (run, measure), then one row per pair of runs and measure.
 */
export function ppiCsv(r: PpiReport): string {
  const target = r.targetHalfWidth !== undefined;
  const lines = [
    csvRow([
      'run',
      'measure',
      'estimate',
      'ci_lower',
      'ci_upper',
      'lambda',
      'n',
      'N',
      'human_estimate',
      'human_ci_lower',
      'human_ci_upper',
      'llm_mean',
      'sampling',
      ...(target ? ['needed'] : []),
    ]),
    ...r.rows.map((row) =>
      csvRow([
        row.run,
        row.measure,
        row.estimate,
        row.ci_lower,
        row.ci_upper,
        row.lambda,
        row.n,
        row.N,
        row.human.estimate,
        row.human.ci_lower,
        row.human.ci_upper,
        row.llm_mean,
        r.sampling,
        ...(target ? [row.needed] : []),
      ]),
    ),
    '',
    csvRow([
      'a',
      'b',
      'measure',
      'estimate',
      'ci_lower',
      'ci_upper',
      'lambda',
      'p',
      'p_adjusted',
      'significant',
      'human_estimate',
      'human_ci_lower',
      'human_ci_upper',
    ]),
    ...r.pairs.map((p) =>
      csvRow([
        p.a,
        p.b,
        p.measure,
        p.estimate,
        p.ci_lower,
        p.ci_upper,
        p.lambda,
        p.p,
        p.p_adjusted,
        p.significant,
        p.human.estimate,
        p.human.ci_lower,
        p.human.ci_upper,
      ]),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** The report in one of {@link PPI_FORMATS}. */
export function renderPpi(r: PpiReport, format: PpiFormat): string {
  return format === 'json' ? ppiJson(r) : format === 'csv' ? ppiCsv(r) : ppiText(r);
}
