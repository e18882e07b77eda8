-- Stored reports and published leaderboards.
--
-- A report is a snapshot: an evaluation, a comparison (leaderboard with significance
-- tests) or an agreement report, computed once and stored with its provenance (label
-- sets and runs by id and name, measures, test, correction, alpha, seed, permutations,
-- the assay version, who asked). Runs and label sets are named in the provenance, not
-- referenced by foreign keys: replacing or deleting a run later leaves the report as it
-- was computed.

CREATE TABLE reports (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  kind          text NOT NULL
                  CONSTRAINT reports_kind_check
                  CHECK (kind IN ('evaluation', 'comparison', 'agreement')),
  title         text NOT NULL CONSTRAINT reports_title_not_blank CHECK (btrim(title) <> ''),
  provenance    jsonb NOT NULL
                  CONSTRAINT reports_provenance_is_object
                  CHECK (jsonb_typeof(provenance) = 'object'),
  result        jsonb NOT NULL,
  created_by    bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX reports_collection_id_idx ON reports (collection_id, id);
CREATE INDEX reports_created_by_idx ON reports (created_by);

-- A published leaderboard: a public, read-only name for a comparison report.
-- Unpublishing deletes the row; the report stays.
CREATE TABLE publications (
  slug         text PRIMARY KEY
                 CONSTRAINT publications_slug_check CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  report_id    bigint NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
  published_at timestamptz NOT NULL DEFAULT now(),
  published_by bigint REFERENCES users (id) ON DELETE SET NULL
);

CREATE INDEX publications_report_id_idx ON publications (report_id);

-- Snapshots are immutable: what a report says (kind, collection, provenance, result,
-- creation time) never changes after it is stored. Only the title may be edited, and the
-- creator cleared when that user is deleted.
CREATE FUNCTION assay_reject_report_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id IS DISTINCT FROM OLD.id
     OR NEW.kind IS DISTINCT FROM OLD.kind
     OR NEW.collection_id IS DISTINCT FROM OLD.collection_id
     OR NEW.provenance IS DISTINCT FROM OLD.provenance
     OR NEW.result IS DISTINCT FROM OLD.result
     OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
    RAISE EXCEPTION 'report % is a snapshot: its kind, provenance and result never change', OLD.id
      USING ERRCODE = 'restrict_violation', TABLE = 'reports';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER reports_snapshot_immutable
  BEFORE UPDATE ON reports
  FOR EACH ROW EXECUTE FUNCTION assay_reject_report_change();
