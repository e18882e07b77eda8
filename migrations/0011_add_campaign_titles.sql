-- The title annotators see of a campaign, set apart from its name: an admin may name a
-- campaign after what it compares ("blind-vs-gpt4o") and show annotators something
-- neutral. NULL: annotators see the name.
ALTER TABLE campaigns ADD COLUMN title text
  CONSTRAINT campaigns_title_not_blank CHECK (title IS NULL OR btrim(title) <> '');
