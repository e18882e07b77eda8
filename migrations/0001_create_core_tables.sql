-- assay core schema: test collections, runs, label sets, users and API tokens.
--
-- Topic and document identifiers in run_entries, labels and label_revisions are the
-- TREC qid / docno strings as they appear in run and qrels files. They are deliberately
-- not foreign keys to topics/documents: runs and qrels routinely mention topics or
-- documents whose text was never imported.

CREATE TABLE collections (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        text NOT NULL CONSTRAINT collections_name_key UNIQUE
                CONSTRAINT collections_name_not_blank CHECK (btrim(name) <> ''),
  description text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
  collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  doc_id        text NOT NULL CONSTRAINT documents_doc_id_not_empty CHECK (doc_id <> ''),
  title         text,
  text          text NOT NULL,
  metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Also the (collection_id, doc_id) uniqueness and the lookup index.
  CONSTRAINT documents_pkey PRIMARY KEY (collection_id, doc_id)
);

CREATE TABLE topics (
  collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  topic_id      text NOT NULL CONSTRAINT topics_topic_id_not_empty CHECK (topic_id <> ''),
  query         text NOT NULL,
  description   text,
  narrative     text,
  -- Conversational topics: {"previousTurns": [{"role", "text"}], "userBackground": [...]}.
  context       jsonb,
  CONSTRAINT topics_pkey PRIMARY KEY (collection_id, topic_id)
);

CREATE TABLE runs (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  name          text NOT NULL CONSTRAINT runs_name_not_blank CHECK (btrim(name) <> ''),
  tag           text,
  description   text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT runs_collection_id_name_key UNIQUE (collection_id, name)
);

-- The primary key (run_id, topic_id, doc_id) is also the "entries of a run for a topic"
-- index; no second index, so that large run imports stay fast.
CREATE TABLE run_entries (
  run_id   bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  topic_id text NOT NULL,
  doc_id   text NOT NULL,
  rank     integer NOT NULL,
  score    double precision NOT NULL,
  CONSTRAINT run_entries_pkey PRIMARY KEY (run_id, topic_id, doc_id)
);

CREATE TABLE label_sets (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  name          text NOT NULL CONSTRAINT label_sets_name_not_blank CHECK (btrim(name) <> ''),
  kind          text NOT NULL
                  CONSTRAINT label_sets_kind_check
                  CHECK (kind IN ('human_qrels', 'llm_judge', 'campaign', 'import')),
  scale_min     integer NOT NULL,
  scale_max     integer NOT NULL,
  -- Judge id, model, prompt hash, campaign settings, source file …
  config        jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT label_sets_collection_id_name_key UNIQUE (collection_id, name),
  CONSTRAINT label_sets_scale_check CHECK (scale_min <= scale_max)
);

CREATE TABLE users (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text NOT NULL CONSTRAINT users_name_key UNIQUE
               CONSTRAINT users_name_not_blank CHECK (btrim(name) <> ''),
  role       text NOT NULL CONSTRAINT users_role_check CHECK (role IN ('admin', 'annotator')),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The current grade of each (topic, document) in a label set. For human label sets this
-- is derived from the latest label_revisions row (written in the same transaction).
-- The primary key is also the "labels of a set for a topic" index.
CREATE TABLE labels (
  label_set_id bigint NOT NULL REFERENCES label_sets (id) ON DELETE CASCADE,
  topic_id     text NOT NULL,
  doc_id       text NOT NULL,
  grade        integer NOT NULL,
  produced_by  text,
  rationale    text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT labels_pkey PRIMARY KEY (label_set_id, topic_id, doc_id)
);

-- Append-only history of human labels: every change (and every undo) is a new row;
-- grade NULL means the label was cleared. Users who labelled cannot be deleted (the
-- user foreign key is NO ACTION rather than RESTRICT: same effect, and SQLSTATE 23503 on
-- every PostgreSQL version).
CREATE TABLE label_revisions (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  label_set_id bigint NOT NULL REFERENCES label_sets (id) ON DELETE CASCADE,
  topic_id     text NOT NULL,
  doc_id       text NOT NULL,
  grade        integer,
  user_id      bigint NOT NULL REFERENCES users (id),
  rationale    text,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX label_revisions_item_idx
  ON label_revisions (label_set_id, topic_id, doc_id, id);
CREATE INDEX label_revisions_user_id_idx ON label_revisions (user_id);

-- Only the SHA-256 hex digest of a token is stored; the plaintext is shown once.
CREATE TABLE api_tokens (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash   text NOT NULL CONSTRAINT api_tokens_token_hash_key UNIQUE
                 CONSTRAINT api_tokens_token_hash_check CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  label        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at   timestamptz
);

CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id);

-- Grades must lie within their label set's scale. A cross-table rule, so it is checked
-- by statement-level triggers (one join per INSERT/UPDATE statement, cheap for bulk
-- imports) and reported with the same SQLSTATE as a CHECK constraint (23514).
CREATE FUNCTION assay_check_grades_in_scale() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  bad record;
BEGIN
  SELECT n.label_set_id, n.topic_id, n.doc_id, n.grade, s.scale_min, s.scale_max
    INTO bad
    FROM new_rows n
    JOIN label_sets s ON s.id = n.label_set_id
   WHERE n.grade IS NOT NULL AND (n.grade < s.scale_min OR n.grade > s.scale_max)
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'grade % for topic % document % is outside the scale %..% of label set %',
      bad.grade, bad.topic_id, bad.doc_id, bad.scale_min, bad.scale_max, bad.label_set_id
      USING ERRCODE = 'check_violation', TABLE = TG_TABLE_NAME, COLUMN = 'grade';
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER labels_grade_in_scale_on_insert
  AFTER INSERT ON labels REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION assay_check_grades_in_scale();
CREATE TRIGGER labels_grade_in_scale_on_update
  AFTER UPDATE ON labels REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION assay_check_grades_in_scale();
CREATE TRIGGER label_revisions_grade_in_scale_on_insert
  AFTER INSERT ON label_revisions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION assay_check_grades_in_scale();

-- Narrowing a label set's scale must not strand existing labels outside it.
CREATE FUNCTION assay_check_scale_covers_labels() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM labels l
     WHERE l.label_set_id = NEW.id AND (l.grade < NEW.scale_min OR l.grade > NEW.scale_max)
  ) THEN
    RAISE EXCEPTION 'label set % has labels outside the scale %..%',
      NEW.id, NEW.scale_min, NEW.scale_max
      USING ERRCODE = 'check_violation', TABLE = 'label_sets';
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER label_sets_scale_covers_labels
  AFTER UPDATE OF scale_min, scale_max ON label_sets
  FOR EACH ROW EXECUTE FUNCTION assay_check_scale_covers_labels();

-- label_revisions is append-only: no updates, and no deletes except the cascade from a
-- deleted label set (cascaded deletes run inside the foreign key's trigger, depth > 1).
CREATE FUNCTION assay_reject_label_revision_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND pg_trigger_depth() > 1 THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'label_revisions is append-only: record a new revision instead'
    USING ERRCODE = 'restrict_violation', TABLE = 'label_revisions';
END
$$;

CREATE TRIGGER label_revisions_append_only
  BEFORE UPDATE OR DELETE ON label_revisions
  FOR EACH ROW EXECUTE FUNCTION assay_reject_label_revision_change();
