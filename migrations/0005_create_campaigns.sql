-- Annotation campaigns: people labelling a sample of (topic, document) items in the web
-- app. A campaign writes one label set (kind 'campaign'); each item goes to `overlap`
-- annotators, whose own current grades live in campaign_assignments (derived from the
-- append-only label_revisions, written in the same transaction). The campaign's label of
-- an item (in `labels`) is the majority of its annotators' grades, ties to the lower
-- grade, unless an admin adjudicated it.

CREATE TABLE campaigns (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  label_set_id  bigint NOT NULL REFERENCES label_sets (id) ON DELETE CASCADE
                  CONSTRAINT campaigns_label_set_id_key UNIQUE,
  name          text NOT NULL CONSTRAINT campaigns_name_not_blank CHECK (btrim(name) <> ''),
  rubric        text NOT NULL DEFAULT '',
  -- [{"grade": 0, "label": "…"}, …]: the buttons of the annotation screen.
  grades        jsonb NOT NULL,
  overlap       integer NOT NULL CONSTRAINT campaigns_overlap_check CHECK (overlap >= 1),
  blind         boolean NOT NULL DEFAULT true,
  -- Source, sampling, judge template, compared label sets (ids).
  settings      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX campaigns_collection_id_idx ON campaigns (collection_id);

CREATE TABLE campaign_items (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  campaign_id       bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  topic_id          text NOT NULL,
  doc_id            text NOT NULL,
  position          integer NOT NULL,
  -- An admin's decision, which overrides the annotators' majority.
  adjudicated_grade integer,
  adjudicated_by    bigint REFERENCES users (id) ON DELETE SET NULL,
  CONSTRAINT campaign_items_item_key UNIQUE (campaign_id, topic_id, doc_id)
);

CREATE TABLE campaign_assignments (
  campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  item_id     bigint NOT NULL REFERENCES campaign_items (id) ON DELETE CASCADE,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The annotator's order of work.
  position    integer NOT NULL,
  -- The annotator's current grade (the latest of their revisions); NULL = not labelled.
  grade       integer,
  skipped     boolean NOT NULL DEFAULT false,
  -- Time spent on the item, summed over saves, as reported by the annotation screen.
  seconds     double precision NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT campaign_assignments_pkey PRIMARY KEY (item_id, user_id)
);

-- An annotator's queue: the next unlabelled item in their order.
CREATE INDEX campaign_assignments_queue_idx
  ON campaign_assignments (campaign_id, user_id, position);
CREATE INDEX campaign_assignments_user_id_idx ON campaign_assignments (user_id);
