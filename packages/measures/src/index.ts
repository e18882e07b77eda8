export { formatFixed, padName } from './format.js';
export {
  REL_NONPOOL,
  REL_UNJUDGED,
  countRelevant,
  rankTopic,
  summarizeJudgments,
  trecOrder,
  type RankedTopic,
  type RankingOptions,
  type TopicJudgments,
} from './ranking.js';
export * from './trec-measures.js';
export {
  TREC_MEASURES,
  TREC_NICKNAMES,
  findTrecMeasure,
  customMeasure,
  type Aggregate,
  type ComputeContext,
  type MeasureDefinition,
  type MeasureParams,
  type MeasureRelevance,
  type ParamStyle,
} from './registry.js';
export {
  DEFAULT_MEASURES,
  MeasureSpecError,
  checkRelevanceFormat,
  defaultMeasuresFor,
  isIrMeasuresName,
  parseParams,
  resolveMeasures,
  type RelevanceFormat,
  type ResolvedMeasure,
} from './resolve.js';
export {
  MISSING_ZSCORE,
  MissingTopicError,
  compareIds,
  evaluateRun,
  prepareQrels,
  relevanceFormatOf,
  type EvaluationColumn,
  type EvaluationOptions,
  type PreparedQrels,
  type PreparedRelevance,
  type RunEvaluation,
  type ZScoreTable,
} from './evaluate.js';
/** Prepares qrels parsed into columns (QrelsColumnsParser) for evaluation. */
export { prepareQrelsColumns } from './prepare-qrels-columns.js';
export {
  averageOverGroups,
  averagePrecisionOverGroups,
  precisionAtOverGroups,
  prepareJudgmentGroups,
  rPrecisionMultiplesOverGroups,
  type PreparedJudgmentGroups,
} from './judgment-groups.js';
export {
  PreferenceConflictError,
  formPreferenceCounts,
  numPrefsFulfilled,
  numPrefsFulfilledRetrieved,
  numPrefsPossible,
  prefsAverageOverGroups,
  prefsAverageRNonrel,
  prefsPair,
  prefsSimple,
  preparePreferences,
  type EquivalenceClass,
  type PreferenceCounts,
  type PreferenceGroup,
  type PreferenceMatrix,
  type PreferenceScope,
  type PreparedPreferences,
} from './prefs.js';
export { formatTrecText, formatTrecValue, type TrecTextOptions } from './trec-output.js';
