// @assay/platform/analysis: the pure analyses behind `assay compare` and `assay agree` and
// their renderings, shared by the CLI (file mode) and the stored reports of the platform.
// No database, no I/O: importing this never opens anything.

/** Leaderboards with pairwise tests, corrections, bootstrap intervals and rank correlation. */
export {
  BOOTSTRAP_SAMPLES,
  bootstrapMeanIntervals,
  compareRuns,
  compareRunsSteps,
  CompareError,
  correlateMeans,
  type CompareSettings,
  type Comparison,
  type LeaderboardRow,
  type PairTest,
  type RankCorrelation,
  type TestName,
} from './compare.js';
/** Comparison settings: the tests, corrections and defaults, checked in one place. */
export {
  COMPARE_CORRECTIONS,
  COMPARE_DEFAULTS,
  COMPARE_TESTS,
  compareSettings,
  CompareSettingsError,
  type CompareSettingsInput,
} from './compare-settings.js';
/** A report of one or two leaderboards (with their rank correlation) in any output format. */
export {
  COMPARE_FORMATS,
  comparisonReport,
  renderComparison,
  type CompareFormat,
} from './compare-output.js';
/** Comparisons rendered as a text table, JSON, CSV and LaTeX. */
export {
  comparisonCsv,
  comparisonJson,
  comparisonLatex,
  comparisonTable,
  type CompareReport,
} from './compare-report.js';
/** A comparison as one self-contained HTML page. */
export { comparisonHtml } from './compare-html.js';
/** Grades fitted into a scale: clamped, or refused by the caller. */
export {
  fitGradesToScale,
  MAX_SCALE_GRADES,
  outlyingGrade,
  scaleWidth,
  type LocatedGrade,
} from './grade-scale.js';
/** Which measures a comparison can test topic by topic. */
export { testableMeasures, type TestableMeasures } from './measures.js';
/** Agreement between two label sets and its text rendering. */
export {
  agreement,
  agreementText,
  observedScale,
  type AgreementReport,
  type GradeScale,
  type Grades,
} from './agreement.js';
