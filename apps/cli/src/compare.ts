// The analysis behind `assay compare` lives in @assay/platform/analysis, where stored
// comparison reports use it too; this module keeps the CLI's imports short.
export {
  BOOTSTRAP_SAMPLES,
  bootstrapMeanIntervals,
  compareRuns,
  CompareError,
  correlateLeaderboards,
  correlateMeans,
  highlightedPair,
  RBO_P,
  TOPIC_HANDLING,
  type CompareSettings,
  type Comparison,
  type LeaderboardRow,
  type PairTest,
  type RankCorrelation,
  type TestName,
} from '@assay/platform/analysis';
