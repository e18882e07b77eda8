-- Answer-quality evaluation: the answers several systems generated for a set of topics
-- (a response set), and the grades a judge gave them (score sets).
--
-- A response set is what one import of a responses file holds: per (topic, system) the
-- answer, the request text when the file carried it, and the references the answer rests
-- on (document ids or texts). A score set belongs to one response set and records how it
-- was made (judge, mode, model, trials, example sets, seed) in `settings`; each of its rows
-- is one (topic, system, trial), either scored (`scores` per criterion, justification) or
-- failed (the reason and the judge's raw answer) — a failure is never a score.

CREATE TABLE response_sets (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        text NOT NULL UNIQUE
                CONSTRAINT response_sets_name_not_blank CHECK (btrim(name) <> ''),
  provenance  jsonb NOT NULL DEFAULT '{}'
                CONSTRAINT response_sets_provenance_is_object
                CHECK (jsonb_typeof(provenance) = 'object'),
  created_by  bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE responses (
  response_set_id bigint NOT NULL REFERENCES response_sets (id) ON DELETE CASCADE,
  topic_id        text NOT NULL,
  system          text NOT NULL,
  query           text,
  answer          text NOT NULL,
  reference_list  jsonb
                    CONSTRAINT responses_reference_list_is_array
                    CHECK (reference_list IS NULL OR jsonb_typeof(reference_list) = 'array'),
  PRIMARY KEY (response_set_id, topic_id, system)
);

CREATE TABLE score_sets (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  response_set_id bigint NOT NULL REFERENCES response_sets (id) ON DELETE CASCADE,
  name            text NOT NULL CONSTRAINT score_sets_name_not_blank CHECK (btrim(name) <> ''),
  judge_id        text NOT NULL,
  mode            text NOT NULL
                    CONSTRAINT score_sets_mode_check CHECK (mode IN ('pointwise', 'comparative', 'imported')),
  criteria        jsonb NOT NULL
                    CONSTRAINT score_sets_criteria_is_array CHECK (jsonb_typeof(criteria) = 'array'),
  settings        jsonb NOT NULL DEFAULT '{}'
                    CONSTRAINT score_sets_settings_is_object CHECK (jsonb_typeof(settings) = 'object'),
  created_by      bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT score_sets_name_unique UNIQUE (response_set_id, name)
);

CREATE INDEX score_sets_response_set_id_idx ON score_sets (response_set_id, id);

CREATE TABLE answer_scores (
  score_set_id  bigint NOT NULL REFERENCES score_sets (id) ON DELETE CASCADE,
  topic_id      text NOT NULL,
  system        text NOT NULL,
  trial         integer NOT NULL CONSTRAINT answer_scores_trial_positive CHECK (trial >= 1),
  scores        jsonb
                  CONSTRAINT answer_scores_scores_is_object
                  CHECK (scores IS NULL OR jsonb_typeof(scores) = 'object'),
  justification text,
  label         text,
  error         text,
  raw           text,
  PRIMARY KEY (score_set_id, topic_id, system, trial),
  -- Exactly one of: scored (scores present, no error) or failed (a reason, no scores).
  CONSTRAINT answer_scores_scored_or_failed
    CHECK ((scores IS NOT NULL AND error IS NULL) OR (scores IS NULL AND error IS NOT NULL))
);
