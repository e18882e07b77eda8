// @assay/db: the assay database – schema types, createDb() over PGlite or postgres.js,
// the migrator, and repository functions (the only place with SQL).

/** Table interfaces, the `Database` type and row helper types. */
export type {
  ApiTokensTable,
  CollectionsTable,
  ConversationTurn,
  CreatedAt,
  Database,
  DocumentsTable,
  JsonObject,
  JsonObjectWithDefault,
  JsonValue,
  JudgeJobsTable,
  JudgeTaskStatus,
  JudgeTasksTable,
  LabelRevisionsTable,
  LabelSetKind,
  LabelSetsTable,
  LabelsTable,
  LlmCallsTable,
  NewRow,
  NullableTimestamp,
  PublicationsTable,
  ReportKind,
  ReportsTable,
  Row,
  RowUpdate,
  RunEntriesTable,
  RunsTable,
  SchemaMigrationsTable,
  Timestamp,
  TopicContext,
  TopicsTable,
  UserRole,
  UsersTable,
} from './schema.js';

/** Opens the database (postgres.js on a URL, else embedded PGlite) and migrates it. */
export { createDb, DEFAULT_PGLITE_DATA_DIR } from './create-db.js';
/** Options of createDb and the handle it returns. */
export type { AssayDb, CreateDbOptions } from './create-db.js';

/** The exclusive lock of an embedded data folder, and the error a second process gets. */
export { DatabaseInUseError, describeThisProcess, lockDataDir } from './data-dir-lock.js';
/** Whether a process of this machine still runs (a zombie, killed but not reaped, does not). */
export { processAlive } from './data-dir-lock.js';
/** A data folder lock held by this process. */
export type { DataDirLock } from './data-dir-lock.js';

/** Applies pending `migrations/NNNN_verb_noun.sql` files, one transaction each. */
export { migrate } from './migrate.js';
/** Reads and validates migration files from a folder. */
export { loadMigrations } from './migrate.js';
/** Finds the repository's `migrations/` folder. */
export { defaultMigrationsDir } from './migrate.js';
/** Names of the migrations recorded in `schema_migrations`. */
export { listAppliedMigrations } from './migrate.js';
/** Migration file, migrator options and result. */
export type { Migration, MigrateOptions, MigrateResult } from './migrate.js';

/** Kysely dialect over embedded PGlite (one connection, lent to one user at a time). */
export { PGliteDialect, PGliteDriver } from './drivers/pglite-dialect.js';
/** Options of the PGlite dialect. */
export type { PGliteDialectConfig } from './drivers/pglite-dialect.js';
/** Embedded PGlite on a worker thread of its own (what createDb opens). */
export { PGliteThread } from './drivers/pglite-thread.js';
/** The part of PGlite the PGlite dialect uses. */
export type { PGliteHandle } from './drivers/pglite-thread.js';
/** Kysely dialect over postgres.js (one connection of its own per Kysely connection). */
export { PostgresJsDialect, PostgresJsDriver } from './drivers/postgres-js-dialect.js';
/** Whether an error means the database cannot be reached right now (down, restarting). */
export { ConnectionLostError, isDatabaseUnavailable } from './drivers/connection-errors.js';
/** Options of the postgres.js dialect. */
export type { PostgresJsDialectConfig, PostgresJsSql } from './drivers/postgres-js-dialect.js';

/** Runs a function in a transaction: the one given, or a new one. */
export { withTransaction } from './bulk.js';
/** Runs a function in a new transaction that is always rolled back (a dry run's writes). */
export { withDiscardedTransaction } from './bulk.js';
/** A transaction-scoped advisory lock on a name, so writers of one name take turns. */
export { lockName } from './name-lock.js';
/** Batched multi-row `INSERT … SELECT FROM unnest(…)` used by the bulk repository calls. */
export { bulkInsert, DEFAULT_BULK_BATCH_SIZE } from './bulk.js';
/** The database or a transaction; bulk-insert column and option types. */
export type { BulkColumn, BulkInsertOptions, Queryable } from './bulk.js';
/** A row named by id and name, as findCollection, findRun and findLabelSet take it. */
export type { IdOrName } from './id-or-name.js';
/** Keyset paging: a page request and the values of a sort key a cursor carries. */
export type { KeyValue, Seek } from './keyset.js';

/**
 * Collections: create, list with counts, get by id or name, hold while writing, delete
 * (cascades), the recorded fingerprint of their documents.
 */
export {
  createCollection,
  deleteCollection,
  findCollection,
  getCollectionSummary,
  getCollection,
  getCollectionByName,
  getDocumentsFingerprint,
  holdCollection,
  listCollections,
  lockCollectionContents,
  recordDocumentsFingerprint,
} from './repositories/collections.js';
/** A collection, with or without its counts, and the fields of a new one. */
export type {
  Collection,
  CollectionContents,
  CollectionSummary,
  DocumentsFingerprint,
  NewCollection,
} from './repositories/collections.js';

/** Documents: bulk insert, get one or many by docno, list a page. */
export {
  getDocument,
  getDocuments,
  heldDocIds,
  insertDocuments,
  listDocuments,
} from './repositories/documents.js';
/** A document to store, a stored one, and paging options. */
export type { DocumentInput, DocumentPage, StoredDocument } from './repositories/documents.js';

/** Topics: bulk insert, list, get by qid. */
export { getTopic, heldTopicIds, insertTopics, listTopics } from './repositories/topics.js';
/** A topic to store and a stored one. */
export type { Topic, TopicInput } from './repositories/topics.js';

/** Runs: create with entries, add entries, list with counts, get, find by name, delete. */
export {
  createRun,
  deleteRun,
  findRunByName,
  findRun,
  getRun,
  getRunEntries,
  listRunTopicIds,
  getRunEntryPage,
  getRunSummary,
  getRunWithEntries,
  insertRunEntries,
  listRuns,
} from './repositories/runs.js';
/** A run, its summary, its entries, and the fields of a new one. */
export type {
  AddRunEntry,
  NewRun,
  Run,
  RunEntry,
  RunEntryKey,
  RunSummary,
  RunWithEntries,
  StreamedEntries,
} from './repositories/runs.js';

/** Label sets and labels: create, list, qrels map, human revisions, delete. */
export {
  createLabelSet,
  deleteLabelSet,
  findLabelSetByName,
  findLabelSet,
  getLabelGrades,
  getLabelSet,
  getLabelSetSummary,
  listLabels,
  listLabelSets,
  userProducer,
} from './repositories/labels.js';
/**
 * The one writer of labels: bulk inserts, one label set or removed, an item's campaign
 * label recomputed by the campaign majority rule (ties to the lower grade).
 */
export { insertLabels, refreshCampaignLabel, setLabel } from './repositories/label-writer.js';
export type { LabelChange } from './repositories/label-writer.js';
/**
 * The one writer of label revisions (the append-only history of human labels): a revision
 * appended, or recorded with the label it makes; the revisions of a label set.
 */
export {
  appendLabelRevision,
  listLabelRevisions,
  recordLabelRevision,
} from './repositories/label-revisions.js';
export type { LabelRevision, NewLabelRevision } from './repositories/label-revisions.js';
/** Label set and label shapes, and the topic → docno → grade map. */
export type {
  Label,
  LabelGrades,
  LabelInput,
  LabelSet,
  LabelSetSummary,
  NewLabelSet,
} from './repositories/labels.js';

/** Reports (immutable snapshots) and their publications under slugs. */
export {
  createPublication,
  createReport,
  deletePublication,
  deleteReport,
  getPublication,
  getReport,
  listPublications,
  listPublicationSummaries,
  listReports,
  lockReport,
  SLUG_PATTERN,
} from './repositories/reports.js';
/** A report, its summary, a publication, and the fields of new ones. */
export type {
  ListReportsOptions,
  NewPublication,
  NewReport,
  Publication,
  PublicationSummary,
  Report,
  ReportSummary,
} from './repositories/reports.js';

/** Users and API tokens (only SHA-256 hashes stored): create, find, list, revoke. */
export {
  API_TOKEN_PREFIX,
  createApiToken,
  createUser,
  findUserByName,
  findUserByToken,
  isLiveToken,
  getApiToken,
  getUser,
  hashApiToken,
  listApiTokens,
  listUsers,
  revokeApiToken,
} from './repositories/users.js';
/** A user, a stored token record, and a freshly created token. */
export type { ApiToken, CreatedApiToken, User } from './repositories/users.js';

/** LLM calls: every call recorded; an answered one found again by its request hash (the cache). */
export {
  findAnsweredLlmCall,
  findAnsweredLlmCalls,
  insertLlmCall,
  insertLlmCalls,
  listLlmCalls,
} from './repositories/llm-calls.js';
/** A recorded LLM call and the fields of a new one. */
export type { LlmCall, LlmCallInput } from './repositories/llm-calls.js';

/**
 * Judge jobs: create, get, find by label set, list (optionally those with work, or those a
 * worker may claim from), set status, endpoint and openness; the rule of what a worker may
 * claim.
 */
export {
  claimableJob,
  createJudgeJob,
  findJudgeJobByLabelSet,
  getJudgeJob,
  listJudgeJobs,
  recordJudgeJobEndpoints,
  setJudgeJobEndpoint,
  setJudgeJobOpenToWorkers,
  setJudgeJobStatus,
} from './repositories/judge-jobs.js';
/** A judge job, the fields of a new one, and what a worker may claim. */
export type { JudgeClaimScope, JudgeJob, NewJudgeJob } from './repositories/judge-jobs.js';

/**
 * Judge tasks: insert, list, count, claim under a lease, renew, release, complete, fail,
 * retry; what is left of every job once a worker runs out of work.
 */
export {
  judgeJobUsage,
  claimJudgeTasks,
  completeJudgeTask,
  completeJudgeTasks,
  countJudgeTasks,
  failJudgeTask,
  insertJudgeTasks,
  listJudgeLeaseOwners,
  listJudgeTasks,
  listJudgeWorkLeft,
  listRetriedJudgeTasks,
  noteJudgeTaskTimeout,
  releaseJudgeTasks,
  renewJudgeTaskLeases,
  retryFailedJudgeTasks,
} from './repositories/judge-tasks.js';
/** When a judge job's items were finished (for its rate, ETA and finish time). */
export { getJudgeJobTiming } from './repositories/judge-job-timing.js';
/** A judge job's finish times. */
export type { JudgeJobTiming } from './repositories/judge-job-timing.js';
/** Judge task, claim, label, failure and count shapes. */
export type {
  ClaimedJudgeTask,
  JudgeClaimOptions,
  JudgeTask,
  JudgeTaskCounts,
  JudgeTaskFailure,
  JudgeTaskInput,
  JudgeTaskKey,
  JudgeTaskLabel,
  JudgeWorkLeft,
} from './repositories/judge-tasks.js';

/** The stored trace of a run made by a method with models. */
export { insertRunTrace, listRunTrace, type RunTraceEntry } from './repositories/run-traces.js';
/** Answer-quality evaluation: response sets (generated answers) and score sets (their grades). */
export {
  createResponseSet,
  createScoreSet,
  deleteResponseSet,
  deleteScoreSet,
  findResponseSetByName,
  getResponseSet,
  getScoreSet,
  insertAnswerScores,
  insertResponses,
  listAnswerScores,
  listHandScores,
  listResponses,
  listResponseSets,
  listScoreSets,
  saveHandScore,
  type AnswerScoreRow,
  type HandScore,
  type HandScorer,
  type NewResponse,
  type NewResponseSet,
  type NewScoreSet,
  type ResponseSet,
  type ScoreSet,
  type StoredResponse,
  type StoredSentence,
} from './repositories/answers.js';
/** RAG evaluation: nugget banks and versions, rubric sets, assessment sets and judgments. */
export {
  appendAssessment,
  createAssessmentSet,
  createNuggetBank,
  createNuggetBankVersion,
  createRubricSet,
  deleteAssessmentSet,
  deleteNuggetBank,
  deleteNuggets,
  deleteRubricSet,
  findAssessmentSet,
  findNuggetBank,
  findNuggetBankVersion,
  findRubricSet,
  freezeNuggetBankVersion,
  getAssessmentSet,
  getNugget,
  getNuggetBank,
  getNuggetBankVersion,
  getRubricSet,
  insertNuggets,
  listAssessmentSets,
  listCurrentAssessments,
  listAssessmentRevisions,
  listItemRevisions,
  listNuggetBanks,
  listNuggetBankVersions,
  listNuggets,
  listRubricCriteria,
  listRubricSets,
  listUserAssessedItems,
  lockNuggetBank,
  replaceAssessments,
  updateAssessmentSetSettings,
  updateNugget,
  type AssessmentRow,
  type AssessmentSet,
  type NewAssessmentSet,
  type NewCriterion,
  type NewNugget,
  type NuggetBank,
  type NuggetBankVersion,
  type RubricSet,
  type StoredAssessment,
  type StoredCriterion,
  type StoredNugget,
} from './repositories/rag.js';
/** Tables of RAG evaluation. */
export type { AssessmentKind, AssessmentMode, Assessor, NuggetOrigin } from './rag-schema.js';
/** Tables of answer-quality evaluation. */
export type {
  AnswerScoresTable,
  HandScoresTable,
  ResponseSetsTable,
  ResponsesTable,
  ScoreSetMode,
  ScoreSetsTable,
} from './answers-schema.js';
/** Annotation campaigns: items, per-annotator assignments and grades, adjudication. */
export {
  adjudicateCampaignItem,
  addCampaignAssignments,
  blindnessConflicts,
  campaignProgress,
  campaignsUsingLabelSet,
  countCampaignLabels,
  createCampaign,
  deleteUnlabelledAssignments,
  findCampaignByLabelSet,
  getCampaign,
  getCampaignAssignment,
  getCampaignItem,
  hasBlindAssignmentOn,
  listAnnotatorCampaigns,
  listAnnotatorGrades,
  listCampaignItems,
  listCampaigns,
  listUserItemRevisions,
  nextCampaignItem,
  patchCampaignSettings,
  nextCampaignItems,
  saveAssignmentGrade,
  updateCampaignAssignment,
} from './repositories/campaigns.js';
/** Campaign, item, assignment, progress and grade shapes. */
export type {
  AnnotatorGrade,
  AnnotatorProgress,
  Campaign,
  CampaignAssignment,
  CampaignItem,
  NewCampaign,
  SavedAssignmentGrade,
} from './repositories/campaigns.js';
export type { CampaignGrade } from './schema.js';

/** Annotators' notes and flags on campaign items (theirs, and all of a campaign for admins). */
export { getItemNote, listCampaignItemNotes, setItemNote } from './repositories/item-notes.js';
/** A note on an item, and one with its author and pair. */
export type { CampaignItemNote, ItemNote } from './repositories/item-notes.js';
export type { ItemFlag, ItemNotesTable } from './schema.js';
/** The items an annotator labelled in a campaign, most recently changed first. */
export { listLabelledItems } from './repositories/annotator-history.js';
/** One item of an annotator's history. */
export type { LabelledItem } from './repositories/annotator-history.js';

/** One round trip to the database (`select 1`). */
export { pingDatabase } from './ping.js';
