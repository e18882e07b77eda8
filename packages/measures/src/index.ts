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
  type ParamStyle,
} from './registry.js';
export {
  DEFAULT_MEASURES,
  MeasureSpecError,
  isIrMeasuresName,
  parseParams,
  resolveMeasures,
  type ResolvedMeasure,
} from './resolve.js';
export {
  MISSING_ZSCORE,
  MissingTopicError,
  compareIds,
  evaluateRun,
  prepareQrels,
  type EvaluationColumn,
  type EvaluationOptions,
  type PreparedQrels,
  type RunEvaluation,
  type ZScoreTable,
} from './evaluate.js';
export { formatTrecText, formatTrecValue, type TrecTextOptions } from './trec-output.js';
