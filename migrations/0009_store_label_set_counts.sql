-- How many labels and labelled topics a label set has, stored when the set is written whole
-- (an uploaded qrels file, a dataset's qrels, a consensus) instead of counted from labels on
-- every read: a collection's label sets list, or one set, would otherwise count millions of
-- rows. NULL means "counted on read": the sets written label by label (campaigns, judge
-- jobs) keep NULL, so that an annotator's save or a judge's label never updates (and locks)
-- the label set's row, which every concurrent writer of that set would then queue behind.
-- Such sets are bounded by their campaign's or judge job's items, so counting them is cheap.

ALTER TABLE label_sets
  ADD COLUMN label_count integer
    CONSTRAINT label_sets_label_count_not_negative CHECK (label_count >= 0),
  ADD COLUMN topic_count integer
    CONSTRAINT label_sets_topic_count_not_negative CHECK (topic_count >= 0),
  ADD CONSTRAINT label_sets_counts_together
    CHECK ((label_count IS NULL) = (topic_count IS NULL));

-- Sets stored so far that were written whole: every set but campaigns' and judge jobs'.
UPDATE label_sets AS s
SET label_count = coalesce(c.labels, 0), topic_count = coalesce(c.topics, 0)
FROM label_sets AS t
LEFT JOIN (
  SELECT label_set_id, count(*) AS labels, count(DISTINCT topic_id) AS topics
  FROM labels
  GROUP BY label_set_id
) AS c ON c.label_set_id = t.id
WHERE t.id = s.id
  AND NOT EXISTS (SELECT 1 FROM campaigns AS k WHERE k.label_set_id = s.id)
  AND NOT EXISTS (SELECT 1 FROM judge_jobs AS j WHERE j.label_set_id = s.id);
