// @assay/platform: use-cases over the database shared by the CLI and the API (no HTTP, no argv).

/** Keyset paging of lists: a page and its cursor, how to ask for one, the page sizes. */
export {
  LARGE_PAGE,
  SMALL_PAGE,
  type Page,
  type PageOptions,
  type PageSize,
} from './core/paging.js';
/** Configuration from the environment; opening and migrating the configured database. */
export {
  ConfigError,
  loadConfig,
  migrateDatabase,
  openDatabase,
  pgliteDataDir,
  type AssayConfig,
} from './core/config.js';
/** The stored shapes the use-cases return (apps take them from here, never from the database package). */
export type {
  AssayDb,
  Collection,
  CollectionSummary,
  Label,
  LabelSet,
  LabelSetSummary,
  Queryable,
  Run,
  RunEntry,
  RunSummary,
  StoredDocument,
  Topic,
  User,
} from '@assay/db';
/** Another process holds the embedded data directory and does not share it. */
export { DatabaseInUseError } from '@assay/db';
/** Finding the data directory (`.assay` here or in a parent folder, as git finds `.git`). */
export { DATA_DIR_NAME, findDataDir } from './core/data-dir.js';
/** A health check's view of the database (ok, busy behind a long statement, down), within ~25 ms. */
export { checkDatabaseHealth, type DatabaseHealth } from './core/database-health.js';
/** Sliced computations that stop once whoever asked for them has gone (a server's request). */
export { ComputationStoppedError, whileWanted } from './core/work-slices.js';
/** A dry run's work in a transaction always rolled back: what it had to store is never kept. */
export { withDiscardedTransaction } from '@assay/db';
/** Whether an error means the database cannot be reached right now (down, restarting): try again later. */
export { isDatabaseUnavailable } from '@assay/db';
/** The use-case error with a stable code. */
export { PlatformError, type PlatformErrorCode } from './core/errors.js';
/** Words for a database's refusal of data by SQLSTATE (out of range, too long, NUL), naming no SQL. */
export { describeDataError } from './core/errors.js';
/** The one naming rule: collections, runs and label sets by id when numeric and it exists, else by name. */
export {
  refToIdOrName,
  resolveCollection,
  resolveLabelSet,
  resolveRun,
  type CollectionRef,
  type ItemRef,
} from './core/resolve.js';
/** Imports: collection, topics, qrels (as a human label set), runs — parse fully, then one transaction. */
export {
  DOCUMENT_FORMATS,
  TOPIC_FORMATS,
  importCollection,
  importDocuments,
  importQrels,
  importRun,
  importTopics,
  type ImportCollectionInput,
  type ImportCollectionResult,
  type ImportDocumentsInput,
  type ImportDocumentsResult,
  type ImportQrelsInput,
  type ImportQrelsResult,
  type ImportRunInput,
  type ImportRunResult,
  type ImportTopicsInput,
  type ImportTopicsResult,
} from './catalog/imports.js';
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
} from './catalog/datasets.js';
/** The bootstrap admin and token authentication. */
export { authenticate, ensureAdmin, type EnsureAdminResult } from './people/auth.js';
/** Evaluating stored runs against a stored label set. */
export {
  evaluateRuns,
  type EvaluateRunsInput,
  type EvaluateRunsResult,
  type RunMeasures,
} from './analysis/evaluate.js';
/** Collections, documents and topics: list, get, delete, by the one naming rule. */
export {
  deleteCollection,
  getCollectionSummary,
  listCollections,
  listCollectionsPage,
  type DeletedCollection,
} from './catalog/collections.js';
/** The naming rule of new names (not empty, not all digits), and a run's name from its tag. */
export { checkNewName, NAME_RULE, runNameFromTag } from './core/names.js';
export {
  DOCUMENT_PAGE,
  getDocument,
  listDocuments,
  listDocumentsPage,
} from './catalog/documents.js';
export { getTopic, listTopics, listTopicsPage } from './catalog/topics.js';
/** Stored runs: list, entries, delete, names already taken, a stored run as a TREC run. */
export {
  deleteRun,
  exportRun,
  getRunSummary,
  listRunEntries,
  listRuns,
  listRunsPage,
  readTrecRun,
  RUN_ENTRY_PAGE,
  takenRunNames,
} from './catalog/runs.js';
/** Label sets: list, labels, delete, a label set as qrels text. */
export {
  deleteLabelSet,
  exportLabelSet,
  exportLabelsAsQrels,
  getLabelSetSummary,
  listLabels,
  listLabelsPage,
  listLabelSets,
  listLabelSetsPage,
} from './catalog/label-sets.js';
/** The assay version reports record. */
export { ASSAY_VERSION } from './core/version.js';
/** Reports: evaluations, comparisons and agreement reports stored as immutable snapshots. */
export {
  deleteReport,
  getReport,
  listReports,
  listReportsPage,
  type Actor,
  type NamedRef,
  type ReportProvenance,
  type StoredReport,
  type StoredReportSummary,
} from './reports/reports.js';
export {
  createComparisonReport,
  type ComparisonReportInput,
} from './reports/comparison-reports.js';
export { createAgreementReport, type AgreementReportInput } from './reports/agreement-reports.js';
export {
  createEvaluationReport,
  type EvaluationReportInput,
} from './reports/evaluation-reports.js';
/** How a report's result is kept in jsonb (non-finite numbers tagged) and read back. */
export { fromJson, toJson } from './reports/report-codec.js';
/** Leaderboards: publish a comparison under a slug, list, read, render for download, unpublish. */
export {
  getPublishedLeaderboard,
  listPublishedLeaderboardsPage,
  publishLeaderboard,
  renderLeaderboard,
  unpublishLeaderboard,
  type LeaderboardFormat,
  type PublishedLeaderboard,
  type PublishedLeaderboardSummary,
  type RenderedLeaderboard,
} from './reports/leaderboards.js';
/** Prediction-powered leaderboards of stored runs (PPI++), a campaign's finished topics counting. */
export {
  estimateLeaderboard,
  type PpiEstimate,
  type PpiEstimateInput,
} from './analysis/ppi-estimates.js';
/** The judge-quality report of stored label sets, with the cost of assay's own judging. */
export { reportOnJudges, type JudgeReportRequest } from './analysis/judge-reports.js';
/** The pure analyses behind `assay compare` and `assay agree`, and their renderings. */
export * from './analysis/index.js';
/** The consensus (majority, mean or median) of several stored label sets, stored as a new one. */
export {
  createConsensusLabelSet,
  type CreateConsensusInput,
  type CreateConsensusResult,
} from './catalog/consensus.js';
/** Pools of a collection's stored runs, in judging priority order, with their statistics. */
export {
  buildCollectionPool,
  POOL_ORDERS,
  type CollectionPool,
  type CollectionPoolItem,
  type CollectionPoolSpec,
} from './catalog/pools.js';
/** What pools and campaigns leave out: pairs whose topic or document the collection lacks. */
export { type LeftOutPairs } from './catalog/held-pairs.js';
/** Judge jobs over a stored collection: jobs, status, progress, pause, failures, retry. */
export {
  createCollectionJudgeJob,
  judgeJobFailuresPage,
  judgeJobProgress,
  judgeJobsWithWork,
  judgeJobStatus,
  listCollectionJudgeJobsPage,
  listJudgeFailures,
  retryJudgeJobFailures,
  setJudgeJobPaused,
  type CreateCollectionJudgeJobInput,
  type CreateCollectionJudgeJobResult,
  type JudgeJobSettings,
  type JudgeJobSummary,
} from './judging/jobs.js';
/** What a worker that ran out of work leaves: items other workers hold, jobs it does not take. */
export { judgeWorkLeft, type JudgeWorkLeftSummary, type NotTakenWhy } from './judging/work-left.js';
/** A worker's model endpoint client and pacing from the configuration; the endpoint a job records. */
export {
  hasJudgeEndpoint,
  judgeEndpointIdentity,
  judgeEndpointName,
  judgeBatchClient,
  judgeWorkerDeps,
  type JudgeEndpointOptions,
} from './judging/endpoint.js';
/** LLM steps through the Batch API or batch files: collect, export, import, submit and poll. */
export {
  batchesDir,
  batchInputFile,
  collectStepRequests,
  dryRunStep,
  importBatchOutput,
  judgeJobStep,
  refusingClient,
  runBatch,
  type BatchImport,
  type BatchProgress,
  type BatchRunOptions,
  type BatchRunResult,
  type LlmStep,
  type LlmStepDeps,
} from './judging/batch.js';
/** The database call store: every LLM call kept, an answered one found again by its hash. */
export { DbCallStore } from './llm/call-store.js';
/** How many tasks a judge worker claims at a time and holds at most. */
export { claimBatchSize, maxHeldTasks } from './judging/claims.js';
/** Model prices for costs and budgets: list prices, the data directory's prices.json, a command's own; a budget's refusal of a model without a price. */
export {
  checkBudgetPrices,
  loadPrices,
  pricesFile,
  PRICES_FILE,
  type BudgetSpelling,
} from './llm/prices.js';
/** An LLM step's model, prices, budget, endpoint client and call store, for the CLI and the API alike. */
export {
  API_STEP_SPELLING,
  llmStepClients,
  prepareLlmStep,
  type LlmStepClients,
  type LlmStepRequest,
  type LlmStepSpelling,
  type PreparedLlmStep,
} from './llm/llm-step-setup.js';
/** A model's price: USD per million prompt (input) and completion (output) tokens. */
export type { ModelPrice } from '@assay/llm';
/** Judge templates: the shipped folder, the list of them, a template's hash, the values it renders, the relevance check. */
export {
  checkRelevanceTemplate,
  checkRequiredSlots,
  defaultJudgesDir,
  JUDGE_KINDS,
  judgeValues,
  slotCoverage,
  listJudgeTemplates,
  loadJudgeTemplate,
  templateHash,
  type JudgeDocument,
  type JudgeTemplateSummary,
  type JudgeTopic,
} from './judging/templates.js';
/** Finding or creating the judge job of a label set, with its pool items as tasks. */
export {
  ensureJudgeJob,
  type EnsureJudgeJobInput,
  type EnsureJudgeJobResult,
  type JudgeItemInput,
} from './judging/ensure-job.js';
/** What a judging run would send and cost, without sending anything. */
export { estimateJudgeRun, type JudgeEstimate } from './judging/estimate.js';
/** Worker identities and the leases of workers that stopped. */
export { newWorkerId, releaseDeadLocalLeases, releaseWorkerTasks } from './core/worker-leases.js';
/** The judge worker: claims tasks under a lease, judges them, writes labels and calls. */
export {
  type JudgeWorkerDeps,
  type JudgeWorkerOptions,
  type JudgeWorkerProgress,
  type JudgeWorkerResult,
} from './judging/worker.js';
/**
 * The one way to start a judge worker (the `assay judge` run, `assay worker`, the server):
 * on the configured endpoint, claiming only the jobs it is configured for.
 */
export { startJudgeWorker, type StartJudgeWorkerOptions } from './judging/start-worker.js';
/** Which jobs a worker may claim from: those it names, else those open to workers; its endpoint and models. */
export type { JudgeClaimScope } from '@assay/db';
/** Answer-quality evaluation: response/gold/example/score files, scoring answers, the report. */
export * from './answers/index.js';
/** RAG evaluation: nugget banks, nugget assignment, citation support, rubrics, their scores. */
export * from './rag/index.js';
/** Retrieval over stored collections: an index per collection, runs made by BM25, PRF, fusion. */
export {
  collectionIndex,
  describeMissing,
  describeRetrieval,
  getRetrieveJob,
  retrieveStoredRun,
  startRetrieveJob,
  type RetrieveJob,
  type RetrieveParams,
  type RetrieveProgress,
  type RetrieveStoredRunInput,
  type RetrieveStoredRunResult,
} from './retrieval/retrieval-runs.js';
/**
 * A stored collection's on-disk BM25 index, built under the data directory and searched by
 * its retrievals instead of an index in memory while it matches the collection's documents.
 */
export {
  buildCollectionDiskIndex,
  getCollectionDiskIndexState,
  startCollectionDiskIndexBuild,
  type CollectionDiskIndexState,
  collectionIndexFile,
  type BuildCollectionDiskIndexInput,
  type CollectionDiskIndexBuilt,
} from './retrieval/disk-index.js';
/** The retrieval methods a stored retrieval accepts. */
export { RETRIEVAL_METHODS, type RetrievalMethod } from '@assay/retrieval';

/** The grades a label set stores (checked on every way in: uploads, templates, campaigns). */
export { MAX_GRADE, MIN_GRADE } from '@assay/trec';

/** Checks uploaded bytes as UTF-8, naming the line of the first invalid byte. */
export { Utf8Validator } from '@assay/trec';
/** Retrieval with methods that call models (LLMs, embeddings) over stored collections. */
export {
  isModelMethod,
  retrieveStoredModelRun,
  startModelRetrieveJob,
  type RetrieveStoredModelRunInput,
  type RetrieveStoredModelRunResult,
} from './retrieval/model-retrieval.js';
/** Checking a retrieval with models and building its clients, prices and prompts (CLI and API). */
export {
  methodPrompts,
  MODEL_REQUEST_FIELDS,
  modelEndpoints,
  modelResources,
  prepareModelRetrieval,
  SAMPLING,
  type EndpointOverrides,
  type ModelRetrievalRequest,
  type PreparedModelRetrieval,
} from './llm/model-resources.js';
/** The methods that call models, and the API body's `settings` made from their definitions. */
export { methodSettingsSchema, MODEL_METHODS, type ModelMethod } from '@assay/methods';
/** The stored trace of a run made with models. */
export { RUN_TRACE_PAGE, runTrace } from './retrieval/run-traces.js';
/** Users with roles and API tokens: add (token shown once), list, issue, list, revoke and rotate tokens. */
export {
  addUser,
  findTokenOwner,
  issueUserToken,
  listUserSummaries,
  listUserSummariesPage,
  listUserTokens,
  resolveUser,
  revokeUserToken,
  revokeUserTokens,
  rotateUserToken,
  type CreatedUser,
  type IssuedToken,
  type TokenActor,
  type UserSummary,
} from './people/users.js';
/** A stored API token's record (id, label, times; never the secret). */
export type { ApiToken } from '@assay/db';
/** Annotation campaigns: creation from a pool or an item list, sampling, summaries. */
export {
  campaignSummary,
  createCampaign,
  DEFAULT_INPUT_LOCK_MS,
  listCollectionCampaignsPage,
  MAX_CAMPAIGN_ITEMS,
  MAX_INPUT_LOCK_MS,
  requireCampaign,
  type CampaignSamplingSpec,
  type CampaignSummary,
  type CreateCampaignInput,
} from './campaigns/campaigns.js';
/** Campaign sampling and assignment (pure). */
export {
  assignAnnotators,
  disagreement,
  groupByTopic,
  interleave,
  sampleCampaignItems,
  type CampaignCandidate,
  type CampaignSampling,
} from './campaigns/sampling.js';
/** The annotator's side of a campaign: next item, save, undo, skip; admin adjudication. */
export {
  adjudicateItem,
  annotationItem,
  listMyCampaignsPage,
  MAX_NEXT_ITEMS,
  nextAnnotationItem,
  nextAnnotationItems,
  saveAnnotationLabel,
  skipAnnotationItem,
  undoAnnotationLabel,
  UNDO_REVISION,
  type AnnotationItem,
  type AnnotatorCampaign,
  type NextAnnotationItems,
  type SavedLabel,
} from './campaigns/annotation.js';
/** An annotator's history of labelled items, and notes and flags on items. */
export {
  ITEM_FLAGS,
  listCampaignNotes,
  listMyLabelledItemsPage,
  MAX_NOTE_LENGTH,
  myItemNote,
  saveMyItemNote,
  type CampaignNote,
  type HistoryItem,
  type ItemNoteView,
} from './campaigns/annotator-history.js';
/** Agreement of a campaign: among annotators and against compared label sets. */
export {
  campaignAgreement,
  MIN_TOPIC_ITEMS,
  type CampaignAgreement,
  type PairAgreement,
  type TopicAgreement,
} from './campaigns/agreement.js';
/** The items a campaign's annotators disagree on, for an admin to adjudicate. */
export {
  adjudicationItem,
  ballotStatus,
  listCampaignDisagreements,
  type AdjudicationItem,
  type Disagreement,
} from './campaigns/disagreements.js';
/** Campaigns as objects: close, reopen, add and remove annotators, delete. */
export {
  addCampaignAnnotators,
  campaignDeletionPreview,
  closeCampaign,
  deleteCampaign,
  removeCampaignAnnotator,
  reopenCampaign,
  type AddedAnnotators,
  type CampaignDeletion,
  type RemovedAnnotator,
} from './campaigns/admin.js';
export { ANNOTATOR_REMOVED, CAMPAIGN_CLOSED } from './campaigns/state.js';
/** The first-start demo's runs: Cranfield retrieved by bm25, rm3 and rocchio. */
export { storeDemoRuns } from './catalog/demo.js';
