-- RAG evaluation as the TREC RAG track runs it: answers as sentences with citations,
-- nugget banks (per collection, versioned), per-topic rubrics, and the assessments that
-- LLMs and people make of answers against them (nugget assignment, citation support,
-- rubric criteria).

-- An answer given as sentences keeps them, each with the passage ids it cites, in order.
ALTER TABLE responses ADD COLUMN sentences jsonb
  CONSTRAINT responses_sentences_is_array
  CHECK (sentences IS NULL OR jsonb_typeof(sentences) = 'array');

-- A nugget bank: the nuggets of a collection's topics under one name, in versions.
CREATE TABLE nugget_banks (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  name          text NOT NULL CONSTRAINT nugget_banks_name_not_blank CHECK (btrim(name) <> ''),
  created_by    bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT nugget_banks_name_unique UNIQUE (collection_id, name)
);

-- A version of a bank: how it was made (imported file, LLM settings, edited from which
-- version) and the unknown fields of each topic's line. Once an assessment uses a version
-- it is frozen: editing the bank then makes a new version, so an assessment always
-- refers to the nuggets it was made against.
CREATE TABLE nugget_bank_versions (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  bank_id     bigint NOT NULL REFERENCES nugget_banks (id) ON DELETE CASCADE,
  version     integer NOT NULL CONSTRAINT nugget_bank_versions_positive CHECK (version >= 1),
  provenance  jsonb NOT NULL DEFAULT '{}'
                CONSTRAINT nugget_bank_versions_provenance_is_object
                CHECK (jsonb_typeof(provenance) = 'object'),
  topics      jsonb NOT NULL DEFAULT '{}'
                CONSTRAINT nugget_bank_versions_topics_is_object
                CHECK (jsonb_typeof(topics) = 'object'),
  frozen      boolean NOT NULL DEFAULT false,
  created_by  bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT nugget_bank_versions_unique UNIQUE (bank_id, version)
);

-- A nugget of a topic in a bank version, in the topic's order. `origin` says who made it
-- (an LLM, a person, an imported file) and `edited` whether a person changed it since;
-- `history` keeps who changed what ({at, by, action, …}); `lineage` is the nugget of an
-- earlier version this one was copied from; `extra` keeps fields of the file assay does
-- not know (e.g. source, mapped_sub_narrative).
CREATE TABLE nuggets (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  version_id  bigint NOT NULL REFERENCES nugget_bank_versions (id) ON DELETE CASCADE,
  topic_id    text NOT NULL,
  position    integer NOT NULL,
  text        text NOT NULL CONSTRAINT nuggets_text_not_blank CHECK (btrim(text) <> ''),
  importance  text NOT NULL CONSTRAINT nuggets_importance_check CHECK (importance IN ('vital', 'okay')),
  origin      text NOT NULL CONSTRAINT nuggets_origin_check CHECK (origin IN ('llm', 'person', 'imported')),
  edited      boolean NOT NULL DEFAULT false,
  lineage     bigint,
  extra       jsonb NOT NULL DEFAULT '{}'
                CONSTRAINT nuggets_extra_is_object CHECK (jsonb_typeof(extra) = 'object'),
  history     jsonb NOT NULL DEFAULT '[]'
                CONSTRAINT nuggets_history_is_array CHECK (jsonb_typeof(history) = 'array')
);

CREATE INDEX nuggets_version_topic_idx ON nuggets (version_id, topic_id, position, id);

-- Per-topic rubrics: weighted criteria (−5 … 5) on named axes; `topics` keeps each topic
-- line's other fields (domain, …), `extra` a criterion's.
CREATE TABLE rubric_sets (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  name          text NOT NULL CONSTRAINT rubric_sets_name_not_blank CHECK (btrim(name) <> ''),
  provenance    jsonb NOT NULL DEFAULT '{}'
                  CONSTRAINT rubric_sets_provenance_is_object CHECK (jsonb_typeof(provenance) = 'object'),
  topics        jsonb NOT NULL DEFAULT '{}'
                  CONSTRAINT rubric_sets_topics_is_object CHECK (jsonb_typeof(topics) = 'object'),
  created_by    bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT rubric_sets_name_unique UNIQUE (collection_id, name)
);

CREATE TABLE rubric_criteria (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  rubric_set_id bigint NOT NULL REFERENCES rubric_sets (id) ON DELETE CASCADE,
  topic_id      text NOT NULL,
  position      integer NOT NULL,
  criterion     text NOT NULL CONSTRAINT rubric_criteria_not_blank CHECK (btrim(criterion) <> ''),
  weight        double precision NOT NULL
                  CONSTRAINT rubric_criteria_weight_range CHECK (weight >= -5 AND weight <= 5),
  axis          text,
  extra         jsonb NOT NULL DEFAULT '{}'
                  CONSTRAINT rubric_criteria_extra_is_object CHECK (jsonb_typeof(extra) = 'object')
);

CREATE INDEX rubric_criteria_set_topic_idx ON rubric_criteria (rubric_set_id, topic_id, position);

-- An assessment set: one assessor's judgments of a response set's answers, of one kind:
-- `nuggets` (each nugget of a bank version: support / partial_support / not_support),
-- `support` (each cited passage of each sentence: full / partial / none / cannot_assess),
-- `rubric` (each criterion of a rubric set: met / partly_met / not_met). The assessor is an
-- LLM (settings record the judge, model and prompt), people (blind, or post-editing the
-- LLM set named by reference_set_id), or an imported file.
CREATE TABLE rag_assessment_sets (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id     bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  kind              text NOT NULL
                      CONSTRAINT rag_assessment_sets_kind_check CHECK (kind IN ('nuggets', 'support', 'rubric')),
  name              text NOT NULL
                      CONSTRAINT rag_assessment_sets_name_not_blank CHECK (btrim(name) <> ''),
  response_set_id   bigint NOT NULL REFERENCES response_sets (id) ON DELETE CASCADE,
  nugget_version_id bigint REFERENCES nugget_bank_versions (id) ON DELETE CASCADE,
  rubric_set_id     bigint REFERENCES rubric_sets (id) ON DELETE CASCADE,
  assessor          text NOT NULL
                      CONSTRAINT rag_assessment_sets_assessor_check CHECK (assessor IN ('llm', 'people', 'imported')),
  mode              text
                      CONSTRAINT rag_assessment_sets_mode_check CHECK (mode IN ('blind', 'post_edit')),
  reference_set_id  bigint REFERENCES rag_assessment_sets (id) ON DELETE SET NULL,
  settings          jsonb NOT NULL DEFAULT '{}'
                      CONSTRAINT rag_assessment_sets_settings_is_object CHECK (jsonb_typeof(settings) = 'object'),
  created_by        bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT rag_assessment_sets_name_unique UNIQUE (collection_id, kind, name),
  CONSTRAINT rag_assessment_sets_nuggets_have_bank
    CHECK ((kind = 'nuggets') = (nugget_version_id IS NOT NULL)),
  CONSTRAINT rag_assessment_sets_rubrics_have_rubric
    CHECK ((kind = 'rubric') = (rubric_set_id IS NOT NULL)),
  CONSTRAINT rag_assessment_sets_people_have_mode CHECK ((assessor = 'people') = (mode IS NOT NULL))
);

CREATE INDEX rag_assessment_sets_response_set_idx ON rag_assessment_sets (response_set_id);
CREATE INDEX rag_assessment_sets_nugget_version_idx ON rag_assessment_sets (nugget_version_id);

-- The judgments of an assessment set, one row per (answer, item) for LLM and imported sets;
-- people's are append-only revisions (the latest row of an item is its label; undo appends
-- the label before, null when there was none). `item` is the nugget id, the citation
-- (`sentence/citation`, both zero-based positions) or the criterion id. A row with an
-- error and no label is an item the LLM could not judge, with its raw answer.
CREATE TABLE rag_assessments (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  set_id      bigint NOT NULL REFERENCES rag_assessment_sets (id) ON DELETE CASCADE,
  topic_id    text NOT NULL,
  system      text NOT NULL,
  item        text NOT NULL,
  label       text,
  rationale   text,
  error       text,
  raw         text,
  user_id     bigint REFERENCES users (id) ON DELETE SET NULL,
  seconds     double precision,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT rag_assessments_label_or_error CHECK (label IS NULL OR error IS NULL)
);

CREATE INDEX rag_assessments_item_idx ON rag_assessments (set_id, topic_id, system, item, id);
