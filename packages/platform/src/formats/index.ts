// `@assay/platform/formats`: one writer or escaper per output format (CSV with its formula
// guard, LaTeX, HTML) and the SVG charts the reports share with the web app. Pure and
// without dependencies, so the light CLI commands and the browser can load it alone.
export { csvCell, csvRow, type CsvValue } from './csv.js';
export { escapeHtml } from './html.js';
export { latexComment, latexEscape } from './latex.js';
export { slopeChartSvg, type SlopeChartInput, type SlopeChartRow } from './slope-chart.js';
