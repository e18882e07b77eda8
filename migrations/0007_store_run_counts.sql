-- How many entries and topics a run has, stored when the run is written instead of counted
-- from run_entries on every read (a collection's runs list, or one run, would otherwise
-- count millions of rows). Runs already stored get their counts here.

ALTER TABLE runs
  ADD COLUMN entry_count integer NOT NULL DEFAULT 0
    CONSTRAINT runs_entry_count_not_negative CHECK (entry_count >= 0),
  ADD COLUMN topic_count integer NOT NULL DEFAULT 0
    CONSTRAINT runs_topic_count_not_negative CHECK (topic_count >= 0);

UPDATE runs AS r
SET entry_count = c.entries, topic_count = c.topics
FROM (
  SELECT run_id, count(*) AS entries, count(DISTINCT topic_id) AS topics
  FROM run_entries
  GROUP BY run_id
) AS c
WHERE c.run_id = r.id;
