-- An annotator's note or flag on one item of a campaign ("passage broken", "unsure", or
-- free text), one per (item, annotator); the admin lists them on the campaign's page.
CREATE TABLE item_notes (
  campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  item_id     bigint NOT NULL REFERENCES campaign_items (id) ON DELETE CASCADE,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  flag        text CHECK (flag IN ('broken', 'unsure')),
  note        text NOT NULL DEFAULT '',
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (item_id, user_id)
);
CREATE INDEX item_notes_campaign ON item_notes (campaign_id, updated_at DESC);
