import type {
  ColumnType,
  Generated,
  GeneratedAlways,
  Insertable,
  Selectable,
  Updateable,
} from 'kysely';
import type {
  AnswerScoresTable,
  HandScoresTable,
  ResponseSetsTable,
  ResponsesTable,
  ScoreSetsTable,
} from './answers-schema.js';
import type {
  NuggetBanksTable,
  NuggetBankVersionsTable,
  NuggetsTable,
  RagAssessmentSetsTable,
  RagAssessmentsTable,
  RubricCriteriaTable,
  RubricSetsTable,
} from './rag-schema.js';

/** Any value that survives a round trip through JSON (what a jsonb column holds). */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object (the shape of metadata and config columns). */
export type JsonObject = { [key: string]: JsonValue };

/** A timestamptz column: read as Date, written as Date or ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** A nullable timestamptz column. */
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

/** A timestamptz column with a `now()` default. */
export type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

/** A jsonb column with a `'{}'` default. */
export type JsonObjectWithDefault = ColumnType<JsonObject, JsonObject | undefined, JsonObject>;

/** A turn of the conversation that precedes a conversational topic's query. */
export type ConversationTurn = {
  role: 'user' | 'assistant';
  text: string;
};

/** Context of a conversational topic: earlier turns and what the user said about themselves. */
export interface TopicContext {
  previousTurns?: ConversationTurn[];
  userBackground?: string[];
  /** A reference answer to the request (judges that show one use it). */
  referenceAnswer?: string;
  [key: string]: JsonValue | undefined;
}

/** Where a label set's labels come from. */
export type LabelSetKind = 'human_qrels' | 'llm_judge' | 'campaign' | 'import' | 'consensus';

/** What a user may do: admins manage the platform, annotators label. */
export type UserRole = 'admin' | 'annotator';

/** Table `collections`: a test collection (documents + topics) that runs and labels refer to. */
export interface CollectionsTable {
  id: GeneratedAlways<number>;
  name: string;
  description: string | null;
  created_at: CreatedAt;
  /** The fingerprint of its documents once computed; cleared by a write into them. */
  documents_fingerprint: ColumnType<string | null, string | null | undefined, string | null>;
  /** Writes into its documents so far. */
  documents_version: Generated<number>;
}

/** Table `documents`: passages/documents of a collection, keyed by TREC docno. */
export interface DocumentsTable {
  collection_id: number;
  doc_id: string;
  title: string | null;
  text: string;
  metadata: JsonObjectWithDefault;
}

/** Table `topics`: queries of a collection, keyed by TREC qid. */
export interface TopicsTable {
  collection_id: number;
  topic_id: string;
  query: string;
  description: string | null;
  narrative: string | null;
  context: ColumnType<TopicContext | null, TopicContext | null | undefined, TopicContext | null>;
}

/** Table `runs`: a ranked result list per topic, as in a TREC run file. */
export interface RunsTable {
  id: GeneratedAlways<number>;
  collection_id: number;
  name: string;
  tag: string | null;
  description: string | null;
  created_at: CreatedAt;
  /** Entries of the run, stored when they are written. */
  entry_count: Generated<number>;
  /** Distinct topics among the entries, stored when they are written. */
  topic_count: Generated<number>;
}

/** Table `run_entries`: one line of a TREC run (qid, docno, rank, score). */
export interface RunEntriesTable {
  run_id: number;
  topic_id: string;
  doc_id: string;
  rank: number;
  score: number;
}

/** Table `run_traces`: the generated texts of a run made by a method with models, in order. */
export interface RunTracesTable {
  run_id: number;
  position: number;
  topic_id: string;
  step: string;
  entry: JsonObject;
}

/** Table `label_sets`: one source of relevance labels (qrels, a judge config, a campaign). */
export interface LabelSetsTable {
  id: GeneratedAlways<number>;
  collection_id: number;
  name: string;
  kind: LabelSetKind;
  scale_min: number;
  scale_max: number;
  config: JsonObjectWithDefault;
  created_at: CreatedAt;
  /**
   * Labels of the set, stored when the set is written whole (uploads, datasets, consensus);
   * null for sets written label by label (campaigns, judge jobs), counted on read.
   */
  label_count: Generated<number | null>;
  /** Distinct topics among the labels; null exactly when label_count is. */
  topic_count: Generated<number | null>;
}

/** Table `labels`: the current grade of a (topic, document) in a label set. */
export interface LabelsTable {
  label_set_id: number;
  topic_id: string;
  doc_id: string;
  grade: number;
  produced_by: string | null;
  rationale: string | null;
  created_at: CreatedAt;
}

/** Table `label_revisions`: append-only history of human labels (grade null = cleared). */
export interface LabelRevisionsTable {
  id: GeneratedAlways<number>;
  label_set_id: number;
  topic_id: string;
  doc_id: string;
  grade: number | null;
  user_id: number;
  rationale: string | null;
  created_at: CreatedAt;
}

/** Table `users`: people who administer or annotate. */
export interface UsersTable {
  id: GeneratedAlways<number>;
  name: string;
  role: UserRole;
  created_at: CreatedAt;
}

/** Table `api_tokens`: bearer tokens, stored only as SHA-256 hex digests. */
export interface ApiTokensTable {
  id: GeneratedAlways<number>;
  user_id: number;
  token_hash: string;
  label: string | null;
  created_at: CreatedAt;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/** Table `schema_migrations`: migration files applied to this database. */
export interface SchemaMigrationsTable {
  name: string;
  applied_at: CreatedAt;
}

/** Status of a judge task: waiting, claimed under a lease, or finished. */
export type JudgeTaskStatus = 'pending' | 'running' | 'labelled' | 'failed';

/** Table `llm_calls`: every call sent to a model endpoint; the request hash is the cache key. */
export interface LlmCallsTable {
  id: GeneratedAlways<number>;
  hash: string;
  model: string;
  request: JsonObject;
  response: string | null;
  logprobs: ColumnType<JsonValue | null, JsonValue | null | undefined, JsonValue | null>;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  latency_ms: number;
  error: string | null;
  created_at: CreatedAt;
}

/** Table `judge_jobs`: a judge configuration writing one LLM label set. */
export interface JudgeJobsTable {
  id: GeneratedAlways<number>;
  label_set_id: number;
  judge_id: string;
  template: JsonObject;
  template_hash: string;
  settings: JsonObjectWithDefault;
  status: ColumnType<'active' | 'paused', 'active' | 'paused' | undefined, 'active' | 'paused'>;
  /** The public base URL it is judged at; null until recorded (migration 0017). */
  endpoint: string | null;
  /** Whether workers that do not name the job may claim from it. */
  open_to_workers: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
}

/** Table `judge_tasks`: one pool item of a job, claimed by workers under a lease. */
export interface JudgeTasksTable {
  job_id: number;
  topic_id: string;
  doc_id: string;
  position: number;
  values: JsonObject;
  status: ColumnType<JudgeTaskStatus, JudgeTaskStatus | undefined, JudgeTaskStatus>;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  attempts: ColumnType<number, number | undefined, number>;
  /** Times the task failed and was put back for another try. */
  retries: ColumnType<number, number | undefined, number>;
  grade: number | null;
  rationale: string | null;
  distribution: ColumnType<JsonObject | null, JsonObject | null | undefined, JsonObject | null>;
  raw: string | null;
  error: string | null;
  call_hash: string | null;
  cost_usd: ColumnType<number, number | undefined, number>;
  updated_at: CreatedAt;
}

/** What a stored report holds: an evaluation, a comparison (leaderboard) or an agreement report. */
export type ReportKind = 'evaluation' | 'comparison' | 'agreement';

/** Table `reports`: an immutable snapshot of a computed report with its provenance. */
export interface ReportsTable {
  id: GeneratedAlways<number>;
  collection_id: number;
  kind: ReportKind;
  title: string;
  provenance: JsonObject;
  result: JsonValue;
  created_by: number | null;
  created_at: CreatedAt;
}

/** Table `publications`: a report published as a public leaderboard under a slug. */
export interface PublicationsTable {
  slug: string;
  report_id: number;
  published_at: CreatedAt;
  published_by: number | null;
}

/** One button of an annotation campaign's grade scale. */
export interface CampaignGrade {
  grade: number;
  label: string;
  [key: string]: JsonValue;
}

/** Table `campaigns`: an annotation campaign, writing one label set of kind 'campaign'. */
export interface CampaignsTable {
  id: GeneratedAlways<number>;
  collection_id: number;
  label_set_id: number;
  name: string;
  rubric: ColumnType<string, string | undefined, string>;
  grades: ColumnType<CampaignGrade[], CampaignGrade[], CampaignGrade[]>;
  overlap: number;
  blind: ColumnType<boolean, boolean | undefined, boolean>;
  /** What annotators see instead of the name (null: the name). */
  title: ColumnType<string | null, string | null | undefined, string | null>;
  settings: JsonObjectWithDefault;
  created_at: CreatedAt;
}

/** Table `campaign_items`: a (topic, document) of a campaign, possibly adjudicated. */
export interface CampaignItemsTable {
  id: GeneratedAlways<number>;
  campaign_id: number;
  topic_id: string;
  doc_id: string;
  position: number;
  adjudicated_grade: number | null;
  adjudicated_by: number | null;
}

/** Table `campaign_assignments`: an item given to one annotator, with their current grade. */
export interface CampaignAssignmentsTable {
  campaign_id: number;
  item_id: number;
  user_id: number;
  position: number;
  grade: number | null;
  skipped: ColumnType<boolean, boolean | undefined, boolean>;
  seconds: ColumnType<number, number | undefined, number>;
  updated_at: CreatedAt;
}

/** What an annotator flags an item as: its passage is broken, or they are unsure. */
export type ItemFlag = 'broken' | 'unsure';

/** Table `item_notes`: an annotator's note and/or flag on one campaign item. */
export interface ItemNotesTable {
  campaign_id: number;
  item_id: number;
  user_id: number;
  flag: ItemFlag | null;
  note: ColumnType<string, string | undefined, string>;
  updated_at: CreatedAt;
}

/** The assay database, as Kysely sees it. */
export interface Database {
  collections: CollectionsTable;
  documents: DocumentsTable;
  topics: TopicsTable;
  runs: RunsTable;
  run_entries: RunEntriesTable;
  run_traces: RunTracesTable;
  label_sets: LabelSetsTable;
  labels: LabelsTable;
  label_revisions: LabelRevisionsTable;
  users: UsersTable;
  api_tokens: ApiTokensTable;
  reports: ReportsTable;
  publications: PublicationsTable;
  schema_migrations: SchemaMigrationsTable;
  llm_calls: LlmCallsTable;
  judge_jobs: JudgeJobsTable;
  judge_tasks: JudgeTasksTable;
  response_sets: ResponseSetsTable;
  responses: ResponsesTable;
  score_sets: ScoreSetsTable;
  answer_scores: AnswerScoresTable;
  hand_scores: HandScoresTable;
  nugget_banks: NuggetBanksTable;
  nugget_bank_versions: NuggetBankVersionsTable;
  nuggets: NuggetsTable;
  rubric_sets: RubricSetsTable;
  rubric_criteria: RubricCriteriaTable;
  rag_assessment_sets: RagAssessmentSetsTable;
  rag_assessments: RagAssessmentsTable;
  campaigns: CampaignsTable;
  campaign_items: CampaignItemsTable;
  campaign_assignments: CampaignAssignmentsTable;
  item_notes: ItemNotesTable;
}

/** A row of `table` as read. */
export type Row<T extends keyof Database> = Selectable<Database[T]>;
/** A row of `table` as inserted. */
export type NewRow<T extends keyof Database> = Insertable<Database[T]>;
/** A change to a row of `table`. */
export type RowUpdate<T extends keyof Database> = Updateable<Database[T]>;
