// The one CSV writer of assay's reports and exports (`assay eval --format csv`, compare and
// answers reports, leaderboard downloads). Cells are RFC 4180: quoted when they hold a comma,
// a quote or a line break. Text that a spreadsheet would run as a formula (a run tag or a
// system name such as `=HYPERLINK(…)`) gets a leading apostrophe, as OWASP advises for CSV
// injection; numbers are written as numbers, so a negative difference stays `-0.25`.

/** What a CSV cell may hold: text, a number, a boolean; null and undefined are empty. */
export type CsvValue = string | number | boolean | null | undefined;

/** Characters that make a spreadsheet read a text cell as a formula when they come first. */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * One CSV cell. Text starting with `=`, `+`, `-`, `@`, a tab or a carriage return (or the
 * full-width `＝＋－＠`) is prefixed with `'`; NaN is an empty cell, infinities are written
 * out (`Infinity`); quotes are doubled inside a quoted cell.
 */
export function csvCell(value: CsvValue): string {
  let s: string;
  if (value === null || value === undefined) s = '';
  else if (typeof value === 'number') s = Number.isNaN(value) ? '' : String(value);
  else if (typeof value === 'boolean') s = String(value);
  else s = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line (without its line end) from its cells. */
export function csvRow(cells: readonly CsvValue[]): string {
  return cells.map(csvCell).join(',');
}
