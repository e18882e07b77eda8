// @assay/stats: significance tests, multiple-comparison corrections, inter-rater agreement
// and rank correlation for assay. Pure functions: no I/O, no clock, seeded randomness only.

export { createRng, type Rng } from './rng.js';
export { averageRanks } from './ranks.js';
export {
  pairedTTest,
  welchTTest,
  wilcoxonSignedRank,
  randomizationTest,
  randomizationTestSteps,
  bootstrapCI,
  bootstrapDiffCI,
  cohensD,
  hedgesG,
  type TTestResult,
  type TTestOptions,
  type WilcoxonOptions,
  type WilcoxonResult,
  type RandomizationOptions,
  type RandomizationResult,
  type BootstrapOptions,
  type BootstrapResult,
} from './significance.js';
export {
  bonferroni,
  holm,
  benjaminiHochberg,
  adjustPValues,
  type PValueAdjustment,
} from './corrections.js';
export {
  confusionMatrix,
  exactAgreement,
  cohenKappa,
  krippendorffAlpha,
  fleissKappa,
  fleissCounts,
  fleissKappaFromLabels,
  fleissKappaFromSums,
  fleissKappaFromTable,
  binarizedKappas,
  cohenKappaFromTable,
  gwetAC,
  gwetACFromTable,
  pabak,
  pabakFromTable,
  exactAgreementFromTable,
  krippendorffAlphaFromTable,
  krippendorffAlphaFromCoincidences,
  coincidenceMatrix,
  type AgreementWeights,
  type FleissSums,
  type GwetOptions,
  type ConfusionMatrix,
  type CohenKappaOptions,
  type AlphaLevel,
  type BinarizedKappa,
} from './agreement.js';
export {
  kendallTauB,
  spearmanRho,
  tauAP,
  tauAPSymmetric,
  rankBiasedOverlap,
  kendallTauAtTop,
  gapAwareTau,
} from './rank-correlation.js';
export {
  clusterBootstrap,
  clusterBootstrapSteps,
  CLUSTER_BOOTSTRAP_SAMPLES,
  type ClusterBootstrapOptions,
  type ClusterInterval,
} from './cluster-bootstrap.js';
export { runSteps } from './steps.js';
export {
  predictionPoweredMean,
  type MeanEstimate,
  type Population,
  type PredictionPoweredOptions,
  type PredictionPoweredResult,
} from './prediction-powered.js';
export { quantileSorted } from './quantile.js';
export {
  consensusLabels,
  type ConsensusMethod,
  type ConsensusOptions,
  type ConsensusResult,
  type ConsensusTie,
  type GradeMap,
} from './consensus.js';
export { winRates, type WinRates } from './win-rates.js';
export { keyedSeed, seededPermutation } from './seeded-shuffle.js';
export {
  answerQualityReport,
  averageTrials,
  type AnswerPairTest,
  type AnswerQualityOptions,
  type AnswerQualityReport,
  type AnswerScore,
  type AnswerSystemSummary,
} from './answer-quality.js';
export { trialSpread, type TrialSpread } from './trial-spread.js';
export { answerScoreAgreement, type CriterionAgreement } from './answer-agreement.js';
export {
  NUGGET_ASSIGNMENTS,
  NUGGET_MEASURES,
  NUGGET_WEIGHTS,
  RUBRIC_JUDGMENTS,
  SUPPORT_LABELS,
  SUPPORT_MEASURES,
  nuggetScores,
  rubricScore,
  supportScores,
  type AssessedSentence,
  type AssignedNugget,
  type JudgedCriterion,
  type NuggetAssignment,
  type NuggetImportance,
  type NuggetScores,
  type RubricJudgment,
  type RubricScores,
  type SupportLabel,
  type SupportScoreOptions,
  type SupportScores,
} from './rag-scores.js';
export {
  labelAgreement,
  type LabelAgreementReport,
  type LabelPair,
  type NamedLabelAgreement,
} from './label-agreement.js';
