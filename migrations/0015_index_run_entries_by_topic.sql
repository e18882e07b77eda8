-- The primary key (run_id, topic_id, doc_id) made every one of a run's entries, a million
-- for one run file, a search in a B-tree ordered by document id, which cost PostgreSQL more
-- than writing the rows. No query looks a run entry up by document: each reads a run's
-- entries, or some of its topics' entries. The writers guarantee that a document appears
-- once per topic of a run (a parsed run file has no repeated docno, the repository checks
-- the entries it writes, and adding entries to a stored run checks them against those
-- already there), and an index on (run_id, topic_id) serves the reads: entries arrive
-- topic by topic, so it grows at its end and its repeated keys are stored once.

ALTER TABLE run_entries DROP CONSTRAINT run_entries_pkey;

CREATE INDEX run_entries_run_id_topic_id_idx ON run_entries (run_id, topic_id);

-- The delete trigger's function names run_entries without a schema: it now keeps the
-- search path it was migrated under, so a run deleted from a session with another search
-- path (psql, a script) still deletes its entries.
ALTER FUNCTION assay_delete_run_entries() SET search_path FROM CURRENT;
