// `@assay/platform/presentation`: the one presentation of a leaderboard, for the web app and
// every HTML report: run tags, significance marks, number and p-value formats, axis ticks,
// the interval, per-topic-difference, p-value-matrix and slope charts, and the page shell of
// the HTML reports. Pure and without dependencies (it imports only the HTML escaper of
// ../formats), so Node and the browser load the same code and draw the same SVG.
//
// Why hand-written SVG rather than a plotting library. Observable Plot builds DOM nodes: in
// Node it needs a document (jsdom or linkedom, a large dependency for the CLI and the server)
// and brings d3; its output carries generated class names and a style element, so a report
// would not be the same bytes twice. Vega-Lite renders SVG headless, but asynchronously
// (every report renderer would become async), weighs about a megabyte in the web bundle, and
// evaluates its expressions with `new Function` unless the interpreter build is used, which
// the web app's Content-Security-Policy (no unsafe-eval) forbids. The charts here are three
// small fixed layouts (a row per run, a bar per topic, a table) whose geometry is a handful
// of lines with unit tests; strings built from escaped text also keep the reports free of
// scripts. A chart with interaction or many kinds of marks would tip the balance.
export { f4, formatP, intervalDomain, linear, tickLabel, ticks } from './numbers.js';
export {
  bestMeans,
  correctionName,
  marksLegend,
  runTags,
  significanceMarks,
  testName,
  type RunTags,
} from './marks.js';
export { intervalPlotLabel, intervalPlotSvg, type IntervalRow } from './interval-plot.js';
export {
  topicDifferences,
  topicDifferencesLabel,
  topicDifferencesSvg,
  winsLosses,
  type TopicDifference,
} from './topic-differences.js';
export { pValueMatrix, pValueMatrixHtml, type MatrixTest, type PCell } from './p-value-matrix.js';
export { slopeChartSvg, type SlopeChartInput, type SlopeChartRow } from './slope-chart.js';
export { htmlPage } from './page.js';
