import type { ColumnType, GeneratedAlways } from 'kysely';
import type { CreatedAt, JsonObjectWithDefault, JsonValue } from './schema.js';

/** Table `nugget_banks`: the nuggets of a collection's topics under one name. */
export interface NuggetBanksTable {
  id: GeneratedAlways<number>;
  collection_id: number;
  name: string;
  created_by: number | null;
  created_at: CreatedAt;
}

/** Table `nugget_bank_versions`: one version of a bank, frozen once an assessment uses it. */
export interface NuggetBankVersionsTable {
  id: GeneratedAlways<number>;
  bank_id: number;
  version: number;
  provenance: JsonObjectWithDefault;
  topics: JsonObjectWithDefault;
  frozen: ColumnType<boolean, boolean | undefined, boolean>;
  created_by: number | null;
  created_at: CreatedAt;
}

/** Who made a nugget. */
export type NuggetOrigin = 'llm' | 'person' | 'imported';

/** Table `nuggets`: a nugget of a topic in a bank version, in order. */
export interface NuggetsTable {
  id: GeneratedAlways<number>;
  version_id: number;
  topic_id: string;
  position: number;
  text: string;
  importance: 'vital' | 'okay';
  origin: NuggetOrigin;
  edited: ColumnType<boolean, boolean | undefined, boolean>;
  lineage: number | null;
  extra: JsonObjectWithDefault;
  history: ColumnType<JsonValue, JsonValue | undefined, JsonValue>;
}

/** Table `rubric_sets`: per-topic weighted rubrics of a collection. */
export interface RubricSetsTable {
  id: GeneratedAlways<number>;
  collection_id: number;
  name: string;
  provenance: JsonObjectWithDefault;
  topics: JsonObjectWithDefault;
  created_by: number | null;
  created_at: CreatedAt;
}

/** Table `rubric_criteria`: a weighted criterion of a topic's rubric. */
export interface RubricCriteriaTable {
  id: GeneratedAlways<number>;
  rubric_set_id: number;
  topic_id: string;
  position: number;
  criterion: string;
  weight: number;
  axis: string | null;
  extra: JsonObjectWithDefault;
}

/** What an assessment set judges. */
export type AssessmentKind = 'nuggets' | 'support' | 'rubric';

/** Who made an assessment set. */
export type Assessor = 'llm' | 'people' | 'imported';

/** How people assess: without seeing the LLM's labels, or post-editing them. */
export type AssessmentMode = 'blind' | 'post_edit';

/** Table `rag_assessment_sets`: one assessor's judgments of a response set's answers. */
export interface RagAssessmentSetsTable {
  id: GeneratedAlways<number>;
  collection_id: number;
  kind: AssessmentKind;
  name: string;
  response_set_id: number;
  nugget_version_id: number | null;
  rubric_set_id: number | null;
  assessor: Assessor;
  mode: AssessmentMode | null;
  reference_set_id: number | null;
  settings: JsonObjectWithDefault;
  created_by: number | null;
  created_at: CreatedAt;
}

/** Table `rag_assessments`: a judgment of one item of one answer (people's: revisions). */
export interface RagAssessmentsTable {
  id: GeneratedAlways<number>;
  set_id: number;
  topic_id: string;
  system: string;
  item: string;
  label: string | null;
  rationale: string | null;
  error: string | null;
  raw: string | null;
  user_id: number | null;
  seconds: number | null;
  created_at: CreatedAt;
}
