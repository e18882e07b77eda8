// Answer-quality evaluation: reading response, gold, example and score files; scoring
// answers with a judge; rendering the report.
export {
  formatScoreLine,
  parseGoldAnswers,
  type AnswerSentence,
  parseResponses,
  parseScoredExamples,
  parseScoreLines,
  type AnswerResponse,
  type AnswerScoreLine,
  type ScoredExample,
} from './answer-files.js';
export {
  answerLabel,
  comparativeOrder,
  renderExamples,
  splitExamples,
} from './answer-evaluations.js';
export {
  scoreAnswers,
  type AnswerScoreFailure,
  type AnswerScoringMode,
  type AnswerTopic,
  type ScoreAnswersInput,
  type ScoreAnswersResult,
} from './score-answers.js';
export {
  methodLine,
  renderAnswersReport,
  routeBreakdown,
  type AnswersReportFormat,
  type AnswersReportSettings,
  type RouteMeans,
} from './answers-report.js';
export { answersHtml } from './answers-html.js';
export {
  answerJudgeTemplate,
  checkAnswerTemplate,
  ensureResponseSet,
  resolveResponseSet,
  getResponseSetDetail,
  importResponseSet,
  listStoredResponseSets,
  listStoredResponseSetsPage,
  removeResponseSet,
  type ImportResponseSetInput,
  type ResponseSet,
  type ResponseSetRef,
  type StoredResponse,
} from './answer-sets.js';
export {
  getScoreSetDetail,
  importScoreSet,
  removeScoreSet,
  scoreResponseSet,
  scoreSetAgreement,
  scoreSetPositionSwap,
  scoreSetReport,
  type AnswerScoreRow,
  type ImportScoreSetInput,
  type ScoreResponseSetInput,
  type ScoreSet,
} from './score-sets.js';
export {
  getHandScores,
  giveHandScore,
  type HandRubric,
  type HandScore,
  type HandScoreInput,
  type HandScores,
} from './hand-scores.js';
