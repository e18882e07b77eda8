import type { ColumnType, GeneratedAlways } from 'kysely';
import type { CreatedAt, JsonObject, JsonObjectWithDefault, JsonValue } from './schema.js';

/** Table `response_sets`: one import of generated answers of several systems to topics. */
export interface ResponseSetsTable {
  id: GeneratedAlways<number>;
  name: string;
  provenance: JsonObjectWithDefault;
  created_by: number | null;
  created_at: CreatedAt;
}

/** Table `responses`: a system's answer to a topic, with its references. */
export interface ResponsesTable {
  response_set_id: number;
  topic_id: string;
  system: string;
  query: string | null;
  answer: string;
  reference_list: ColumnType<JsonValue | null, JsonValue | null | undefined, JsonValue | null>;
  /** The answer as sentences `[{text, citations}]`, when it was given so. */
  sentences: ColumnType<JsonValue | null, JsonValue | null | undefined, JsonValue | null>;
}

/** How a score set was made: by a judge pointwise or comparatively, or imported from a file. */
export type ScoreSetMode = 'pointwise' | 'comparative' | 'imported';

/** Table `score_sets`: the grades a judge configuration gave a response set. */
export interface ScoreSetsTable {
  id: GeneratedAlways<number>;
  response_set_id: number;
  name: string;
  judge_id: string;
  mode: ScoreSetMode;
  criteria: JsonValue;
  settings: ColumnType<JsonObject, JsonObject | undefined, JsonObject>;
  created_by: number | null;
  created_at: CreatedAt;
}

/** Table `answer_scores`: one (topic, system, trial) of a score set, scored or failed. */
export interface AnswerScoresTable {
  score_set_id: number;
  topic_id: string;
  system: string;
  trial: number;
  scores: JsonValue | null;
  justification: string | null;
  label: string | null;
  error: string | null;
  raw: string | null;
}

/** Table `hand_scores`: one grade a person gave one criterion of an answer. */
export interface HandScoresTable {
  response_set_id: number;
  user_id: number;
  judge_id: string;
  topic_id: string;
  system: string;
  criterion: string;
  grade: number;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
