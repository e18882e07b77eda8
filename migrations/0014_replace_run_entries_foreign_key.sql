-- A run's entries are written in bulk (COPY, a million rows for one run file), and the
-- foreign key from run_entries to runs checked every one of those rows against the one run
-- they all belong to: on PostgreSQL that check cost more than writing the rows. The writers
-- guarantee it instead, once per write (the repository writes entries only for the run it
-- has just created in the same transaction, or for a run it has locked with FOR KEY SHARE),
-- and a trigger keeps ON DELETE CASCADE: deleting a run, or the collection holding it,
-- deletes its entries.

ALTER TABLE run_entries DROP CONSTRAINT run_entries_run_id_fkey;

CREATE FUNCTION assay_delete_run_entries() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM run_entries WHERE run_id = OLD.id;
  RETURN OLD;
END;
$$;

CREATE TRIGGER runs_delete_entries
  AFTER DELETE ON runs
  FOR EACH ROW EXECUTE FUNCTION assay_delete_run_entries();
