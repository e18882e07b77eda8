-- What the LLM did for a run made by a method that calls models: one row per generated
-- text (rewrite, sub-question, pseudo-answer, generated query, gap, route, summary, final
-- answer …) in the order the method produced them per topic, so a user can read it. The
-- rows go with their run.

CREATE TABLE run_traces (
  run_id    bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  position  integer NOT NULL CONSTRAINT run_traces_position_non_negative CHECK (position >= 0),
  topic_id  text NOT NULL,
  step      text NOT NULL,
  entry     jsonb NOT NULL
              CONSTRAINT run_traces_entry_is_object CHECK (jsonb_typeof(entry) = 'object'),
  PRIMARY KEY (run_id, position)
);
