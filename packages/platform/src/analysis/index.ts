// @assay/platform/analysis: the pure analyses behind `assay compare` and `assay agree` and
// their renderings, shared by the CLI (file mode) and the stored reports of the platform.
// No database, no I/O: importing this never opens anything.

/** Leaderboards with pairwise tests, corrections and bootstrap intervals. */
export {
  BOOTSTRAP_SAMPLES,
  bootstrapMeanIntervals,
  compareRuns,
  compareRunsSteps,
  compareTopicValues,
  CompareError,
  type CompareSettings,
  type Comparison,
  type LeaderboardRow,
  type PairTest,
  type TestName,
  type TopicValues,
} from './compare.js';
/** Rank correlation of two leaderboards of the same runs, with bootstrap intervals. */
export {
  CORRELATION_DEFAULTS,
  correlateLeaderboards,
  correlateLeaderboardsSteps,
  correlateMeans,
  leaderboardOf,
  type CorrelatedLeaderboard,
  type CorrelationSettings,
  type RankCoefficient,
  type RankCorrelation,
} from './rank-correlation.js';
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
  comparisonReportSteps,
  renderComparison,
  type CompareFormat,
} from './compare-output.js';
/** Comparisons rendered as a text table, JSON, CSV and LaTeX. */
export {
  comparisonCsv,
  comparisonJson,
  comparisonJsonValue,
  comparisonLatex,
  comparisonTable,
  type CompareReport,
  type RankCorrelationSettings,
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
  agreementCoefficients,
  agreementIntervals,
  agreementIntervalsSteps,
  agreementSteps,
  AGREEMENT_BOOTSTRAP_METHOD,
  agreementText,
  observedScale,
  type AgreementBootstrap,
  type AgreementCoefficients,
  type AgreementOptions,
  type Interval,
  type AgreementReport,
  type GradeScale,
  type Grades,
} from './agreement.js';
/** Prediction-powered leaderboards (PPI++) from a few human labels and LLM labels on everything. */
export {
  pairUnits,
  PPI_DEFAULTS,
  PPI_SAMPLINGS,
  PpiError,
  ppiLeaderboard,
  ppiMethod,
  topicUnits,
  type PpiInterval,
  type PpiPair,
  type PpiReport,
  type PpiRow,
  type PpiSampling,
  type PpiSettings,
  type PpiUnits,
  type UnitValues,
} from './ppi.js';
export { PPI_FORMATS, ppiCsv, ppiJson, ppiText, renderPpi, type PpiFormat } from './ppi-output.js';
/** The topics or pairs people label for an estimate: seeded, uniform or stratified. */
export { sampleSize, sampleUnits } from './ppi-sample.js';
/** The judge-quality report: judges against human labels or each other, drift, bias probes. */
export {
  gradeUsage,
  judgeReport,
  judgeReportSteps,
  JudgeReportError,
  RARE_GRADE_SHARE,
  type GradeUsage,
  type JudgeCost,
  type JudgeDrift,
  type JudgePanel,
  type JudgeReport,
  type JudgeReportInput,
  type JudgeSection,
  type NamedGrades,
} from './judge-report.js';
export type { LengthBias } from './length-bias.js';
export {
  JUDGE_REPORT_FORMATS,
  judgeReportHtml,
  judgeReportJson,
  judgeReportText,
  renderJudgeReport,
  type JudgeReportFormat,
} from './judge-report-output.js';
/** Position-swap consistency of comparative answer judging. */
export {
  positionSwapConsistency,
  type PositionSwapReport,
  type SwapCriterion,
} from './position-swap.js';
