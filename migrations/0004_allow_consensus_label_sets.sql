-- A label set can be the consensus of others (majority, mean or median grade of several
-- LLM judges, models or people on the same pool); its config names the method and the
-- label sets it was built from.
ALTER TABLE label_sets DROP CONSTRAINT label_sets_kind_check;
ALTER TABLE label_sets ADD CONSTRAINT label_sets_kind_check
  CHECK (kind IN ('human_qrels', 'llm_judge', 'campaign', 'import', 'consensus'));
