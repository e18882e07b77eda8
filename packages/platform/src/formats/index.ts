// `@assay/platform/formats`: one writer or escaper per output format (CSV with its formula
// guard, LaTeX, HTML). Pure and without dependencies, so the light CLI commands and the
// browser can load it alone. A leaderboard's charts and page shell are in ../presentation.
export { csvCell, csvRow, type CsvValue } from './csv.js';
export { escapeHtml } from './html.js';
export { latexComment, latexEscape } from './latex.js';
