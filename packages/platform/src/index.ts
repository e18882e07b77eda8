// @assay/platform: use-cases over the database shared by the CLI and the API (no HTTP, no argv).

/** Configuration from the environment; opening and migrating the configured database. */
export {
  ConfigError,
  loadConfig,
  migrateDatabase,
  openDatabase,
  pgliteDataDir,
  type AssayConfig,
} from './config.js';
/** The use-case error with a stable code. */
export { PlatformError, type PlatformErrorCode } from './errors.js';
/** Resolving a collection by name or id. */
export { resolveCollection, type CollectionRef } from './resolve.js';
/** Imports: collection, topics, qrels (as a human label set), runs — parse fully, then one transaction. */
export {
  importCollection,
  importQrels,
  importRun,
  importTopics,
  type ImportCollectionInput,
  type ImportCollectionResult,
  type ImportQrelsInput,
  type ImportQrelsResult,
  type ImportRunInput,
  type ImportRunResult,
  type ImportTopicsInput,
  type ImportTopicsResult,
} from './imports.js';
/** Shipped datasets (Cranfield): list, load, and the Cranfield query and judgment parsers. */
export {
  defaultDatasetsDir,
  listDatasets,
  loadDataset,
  parseCranfieldQrels,
  parseCranfieldQueries,
  type CranfieldLabel,
  type CranfieldQuery,
  type DatasetManifest,
  type LoadDatasetResult,
} from './datasets.js';
/** The bootstrap admin and token authentication. */
export { authenticate, ensureAdmin, type EnsureAdminResult } from './auth.js';
/** Evaluating stored runs against a stored label set. */
export {
  evaluateRuns,
  type EvaluateRunsInput,
  type EvaluateRunsResult,
  type RunMeasures,
} from './evaluate.js';
/** Looking up a stored label set or run by name or id; a stored run as a TREC run. */
export { readTrecRun, resolveLabelSet, resolveRun } from './evaluate.js';
/** Reports: evaluations, comparisons and agreement reports stored as immutable snapshots. */
export {
  ASSAY_VERSION,
  createAgreementReport,
  createComparisonReport,
  createEvaluationReport,
  deleteReport,
  fromJson,
  getPublishedLeaderboard,
  getReport,
  listReports,
  publishLeaderboard,
  renderLeaderboard,
  toJson,
  unpublishLeaderboard,
  type Actor,
  type AgreementReportInput,
  type ComparisonReportInput,
  type EvaluationReportInput,
  type LeaderboardFormat,
  type NamedRef,
  type PublishedLeaderboard,
  type RenderedLeaderboard,
  type ReportProvenance,
  type StoredReport,
  type StoredReportSummary,
} from './reports.js';
/** The pure analyses behind `assay compare` and `assay agree`, and their renderings. */
export * from './analysis/index.js';
/** The consensus (majority, mean or median) of several stored label sets, stored as a new one. */
export {
  createConsensusLabelSet,
  type CreateConsensusInput,
  type CreateConsensusResult,
} from './consensus.js';
/** Judge jobs over a stored collection: pools of stored runs, jobs, status, pause, retry. */
export {
  buildCollectionPool,
  createCollectionJudgeJob,
  judgeJobFailures,
  judgeJobStatus,
  listCollectionJudgeJobs,
  POOL_ORDERS,
  retryJudgeJobFailures,
  setJudgeJobPaused,
  type CollectionPool,
  type CollectionPoolItem,
  type CollectionPoolSpec,
  type CreateCollectionJudgeJobInput,
  type CreateCollectionJudgeJobResult,
  type JudgeJobSettings,
  type JudgeJobSummary,
} from './judge-jobs.js';
/** A worker's model endpoint client and pacing from the configuration. */
export { hasJudgeEndpoint, judgeWorkerDeps, type JudgeEndpointOptions } from './judge-endpoint.js';
/** Judging: the database call store, judge jobs and tasks, the worker, estimates, export. */
export {
  checkRelevanceTemplate,
  DbCallStore,
  defaultJudgesDir,
  ensureJudgeJob,
  estimateJudgeRun,
  exportLabelsAsQrels,
  judgeJobProgress,
  judgeValues,
  listJudgeFailures,
  newWorkerId,
  releaseDeadLocalLeases,
  runJudgeWorker,
  templateHash,
  type EnsureJudgeJobInput,
  type EnsureJudgeJobResult,
  type JudgeDocument,
  type JudgeEstimate,
  type JudgeItemInput,
  type JudgeTopic,
  type JudgeWorkerDeps,
  type JudgeWorkerOptions,
  type JudgeWorkerProgress,
  type JudgeWorkerResult,
} from './judging.js';
/** Answer-quality evaluation: response/gold/example/score files, scoring answers, the report. */
export * from './answers/index.js';
/** Retrieval over stored collections: an index per collection, runs made by BM25, PRF, fusion. */
export {
  collectionIndex,
  describeRetrieval,
  getRetrieveJob,
  retrieveStoredRun,
  startRetrieveJob,
  type RetrieveJob,
  type RetrieveParams,
  type RetrieveProgress,
  type RetrieveStoredRunInput,
  type RetrieveStoredRunResult,
} from './retrieval-runs.js';
/** The retrieval methods a stored retrieval accepts. */
export { RETRIEVAL_METHODS, type RetrievalMethod } from '@assay/retrieval';
/** Users with roles and API tokens: add (token shown once), list, issue a new token, revoke. */
export {
  addUser,
  issueUserToken,
  listUserSummaries,
  resolveUser,
  revokeUserTokens,
  type CreatedUser,
  type UserSummary,
} from './users.js';
/** Annotation campaigns: creation from a pool or an item list, sampling, summaries. */
export {
  campaignSummary,
  createCampaign,
  listCollectionCampaigns,
  requireCampaign,
  type CampaignSamplingSpec,
  type CampaignSummary,
  type CreateCampaignInput,
} from './campaigns.js';
/** Campaign sampling and assignment (pure). */
export {
  assignAnnotators,
  disagreement,
  interleave,
  sampleCampaignItems,
  type CampaignCandidate,
  type CampaignSampling,
} from './campaign-sampling.js';
/** The annotator's side of a campaign: next item, save, undo, skip; admin adjudication. */
export {
  adjudicateItem,
  annotationItem,
  isBlindAnnotator,
  listMyCampaigns,
  nextAnnotationItem,
  saveAnnotationLabel,
  skipAnnotationItem,
  undoAnnotationLabel,
  UNDO_REVISION,
  type AnnotationItem,
  type AnnotatorCampaign,
  type SavedLabel,
} from './annotation.js';
/** Agreement of a campaign: among annotators and against compared label sets. */
export {
  campaignAgreement,
  type CampaignAgreement,
  type TopicAgreement,
} from './campaign-agreement.js';
