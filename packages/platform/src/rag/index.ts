// RAG evaluation as the TREC RAG track runs it: nugget banks, nugget assignment, citation
// support and per-topic rubrics, by LLMs and by people, scored into leaderboards.
export {
  formatNuggetAssignments,
  formatNuggetBank,
  formatRubricJudgments,
  formatSupportAssessments,
  parseNuggetAssignments,
  parseNuggetBank,
  parseRubricJudgments,
  parseRubrics,
  parseSupportAssessments,
  type BankNugget,
  type BankTopic,
  type NuggetAssignmentRecord,
  type RubricCriterion,
  type RubricJudgmentRecord,
  type RubricTopic,
  type SupportRecord,
} from './rag-files.js';
export {
  answerScoresCsv,
  axisMeans,
  citationCounts,
  formatAnswerScores,
  nuggetAnswerScores,
  RAG_MEASURES,
  RAG_TOPIC_HANDLING,
  ragLeaderboard,
  rubricAnswerScores,
  supportAnswerScores,
  type AxisMean,
  type CitationCounts,
  type RagAnswerScores,
  type RagKind,
  type RagLeaderboard,
} from './rag-scoring.js';
export { LlmStep, type LlmStepOptions, type LlmStepReport } from './llm-step.js';
export {
  createNuggets,
  NUGGET_CREATION_DEFAULTS,
  type CreatedTopic,
  type CreateNuggetsSettings,
  type NuggetSourceTopic,
} from './nugget-create.js';
export {
  collectionForImport,
  exportNuggetBank,
  listCollectionNuggetBanks,
  nuggetBankDetail,
  removeNuggetBank,
  resolveBankVersion,
  type NuggetBank,
  type NuggetBankRef,
  type NuggetBankVersion,
  type StoredNugget,
} from './nugget-banks.js';
export {
  importNuggetBank,
  type ImportNuggetBankInput,
  type StoredBankVersion,
} from './nugget-bank-versions.js';
export { editNuggetBank, type EditResult, type NuggetEdit } from './nugget-bank-edits.js';
export {
  createNuggetBankWithLlm,
  nuggetBankBatchStep,
  type CreateNuggetBankInput,
  type CreateNuggetBankResult,
} from './nugget-bank-llm.js';
export {
  importRubricSet,
  listCollectionRubricSets,
  rubricSetDetail,
  type ImportRubricSetInput,
  type RubricSet,
  type StoredCriterion,
} from './rubric-sets.js';
export {
  ASSESSMENT_LABELS,
  assessmentRecords,
  type AssessmentItem,
  type AssessmentRecords,
} from './assessment-context.js';
export {
  DEFAULT_ASSESSMENT_JUDGE,
  llmAssessmentBatchStep,
  runLlmAssessment,
  type AssessmentFailure,
  type LlmAssessmentInput,
  type LlmAssessmentResult,
} from './llm-assessments.js';
export {
  assessmentScreen,
  createPeopleAssessmentSet,
  listAssessmentAnswers,
  listAssignedAssessmentSets,
  saveAssessment,
  undoAssessment,
  type AssessmentAnswerSummary,
  type AssessmentScreen,
  type PeopleAssessmentInput,
  type SaveAssessmentInput,
  type ScreenItem,
} from './people-assessments.js';
export {
  addAssessmentAnnotators,
  removeAssessmentAnnotator,
  type AssessmentViewer,
} from './assessment-annotators.js';
export {
  assessmentAgreement,
  assessmentSetDetail,
  createAssessmentReport,
  exportAssessmentSet,
  findCollectionAssessmentSet,
  importAssessmentSet,
  listCollectionAssessmentSets,
  removeAssessmentSet,
  scoreAssessmentSet,
  type AssessmentAgreement,
  type AssessmentReportInput,
  type AssessmentScores,
  type AssessmentSet,
  type ImportAssessmentsInput,
} from './assessment-sets.js';
