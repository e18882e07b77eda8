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
/** Finding the data directory (`.assay` here or in a parent folder, as git finds `.git`). */
export { DATA_DIR_NAME, findDataDir } from './data-dir.js';
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
/** How many tasks a judge worker claims at a time and holds at most. */
export { claimBatchSize, maxHeldTasks } from './judge-claims.js';
/** Model prices for costs and budgets: list prices, the data directory's prices.json, a command's own. */
export { loadPrices, pricesFile, PRICES_FILE } from './prices.js';
/** A model's price: USD per million prompt (input) and completion (output) tokens. */
export type { ModelPrice } from '@assay/judge';
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
