// The corrected p-values of one measure as a run × run table: the compare report and the web
// app show the same HTML. Its colours are inline like the charts', so that it needs no style
// sheet; the table's class `matrix` is left to each page's layout. Every text is escaped.
import { escapeHtml as e } from '../formats/html.js';
import type { RunTags } from './marks.js';
import { f4, formatP } from './numbers.js';

/** What the matrix needs of one paired test between runs a and b on one measure. */
export interface MatrixTest {
  a: string;
  b: string;
  measure: string;
  /** Mean over topics of a − b. */
  meanDiff: number;
  p: number;
  pAdjusted: number;
  significant: boolean;
}

/** One cell of a p-value matrix: the row run against the column run. */
export interface PCell {
  /** Mean difference row − column. */
  diff: number;
  p: number;
  pAdjusted: number;
  significant: boolean;
}

/**
 * The corrected p-values of one measure as a run × run matrix in the given order: null on
 * the diagonal and where the pair was not tested (e.g. only tests against a baseline).
 */
export function pValueMatrix(
  runs: readonly string[],
  pairs: readonly MatrixTest[],
  measure: string,
): (PCell | null)[][] {
  const tests = new Map<string, MatrixTest>();
  for (const p of pairs) {
    if (p.measure !== measure) continue;
    tests.set(`${p.a}\u0000${p.b}`, p);
    tests.set(`${p.b}\u0000${p.a}`, p);
  }
  return runs.map((a) =>
    runs.map((b) => {
      if (a === b) return null;
      const t = tests.get(`${a}\u0000${b}`);
      if (!t) return null;
      return {
        diff: t.a === a ? t.meanDiff : -t.meanDiff,
        p: t.p,
        pAdjusted: t.pAdjusted,
        significant: t.significant,
      };
    }),
  );
}

/** Hidden on screen, read by screen readers: what the cell's colour says. */
const VISUALLY_HIDDEN =
  'position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap';
const CELL = {
  win: 'background:#d7efd9',
  loss: 'background:#f6d6d4',
  ns: 'color:#555',
  diag: 'color:#999;text-align:center',
} as const;

function cellHtml(a: string, b: string, cell: PCell | null): string {
  if (a === b) return `<td class="diag" style="${CELL.diag}">–</td>`;
  if (cell === null) return '<td title="not tested"></td>';
  const title = `${a} − ${b}: ${f4(cell.diff)}; p ${formatP(cell.p)}, corrected ${formatP(cell.pAdjusted)}`;
  const p = formatP(cell.pAdjusted);
  if (!cell.significant) return `<td class="ns" style="${CELL.ns}" title="${e(title)}">${p}</td>`;
  const better = cell.diff > 0;
  return (
    `<td class="sig ${better ? 'win' : 'loss'}" style="${better ? CELL.win : CELL.loss}" title="${e(title)}">${p}` +
    `<span style="${VISUALLY_HIDDEN}"> (row ${better ? 'better' : 'worse'})</span></td>`
  );
}

/**
 * The matrix of {@link pValueMatrix} as an HTML table in a box that scrolls sideways when
 * wide: columns headed by run tags, rows by tag and name; green where the row run is
 * significantly better, red where it is significantly worse; a cell's title gives the
 * difference and the raw p.
 */
export function pValueMatrixHtml(input: {
  measure: string;
  /** The runs in leaderboard order. */
  runs: readonly string[];
  tags: RunTags;
  pairs: readonly MatrixTest[];
}): string {
  const { runs, tags } = input;
  const matrix = pValueMatrix(runs, input.pairs, input.measure);
  const head = runs
    .map((r) => `<th scope="col" title="${e(r)}">${e(tags.get(r) ?? '')}</th>`)
    .join('');
  const rows = runs
    .map((a, i) => {
      const cells = runs.map((b, j) => cellHtml(a, b, matrix[i]![j]!)).join('');
      return `<tr><th scope="row" class="run">${e(tags.get(a) ?? '')} ${e(a)}</th>${cells}</tr>`;
    })
    .join('');
  return (
    `<div style="overflow-x:auto;max-width:100%"><table class="matrix">` +
    `<caption>Corrected p-values, ${e(input.measure)}: row run against column run.</caption>` +
    `<thead><tr><td></td>${head}</tr></thead><tbody>${rows}</tbody></table></div>`
  );
}
