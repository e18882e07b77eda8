-- assay judging: every LLM call, judge jobs (one per LLM label set) and their tasks (one
-- per pool item), claimed by workers under a lease.
--
-- Leases are timestamps of the database clock (now()), never of a worker's clock, so
-- workers on machines whose clocks disagree still agree on when a lease has expired.

-- Every call sent to a model endpoint, answered or failed. The request hash (SHA-256 of
-- the canonical request) is the cache key: an answered call is reused for a request with
-- the same hash instead of paying again. Not unique: a call repeated after a crash, or
-- a failed attempt followed by an answered one, are both kept.
CREATE TABLE llm_calls (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  hash              text NOT NULL CONSTRAINT llm_calls_hash_check CHECK (hash ~ '^[0-9a-f]{64}$'),
  model             text NOT NULL,
  request           jsonb NOT NULL,
  -- The raw message content; NULL for a call that got no answer.
  response          text,
  logprobs          jsonb,
  prompt_tokens     integer NOT NULL DEFAULT 0,
  completion_tokens integer NOT NULL DEFAULT 0,
  -- USD; NULL when the model has no price.
  cost_usd          double precision,
  latency_ms        integer NOT NULL DEFAULT 0,
  error             text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT llm_calls_answer_or_error CHECK (response IS NOT NULL OR error IS NOT NULL)
);

-- The cache lookup: the first answered call with a hash.
CREATE INDEX llm_calls_hash_idx ON llm_calls (hash, id) WHERE response IS NOT NULL;

-- A judge configuration applied to pool items: writes the LLM label set it belongs to.
-- The template is stored whole (as JSON), so workers on other machines judge with exactly
-- the prompt the job was created with.
CREATE TABLE judge_jobs (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  label_set_id  bigint NOT NULL REFERENCES label_sets (id) ON DELETE CASCADE
                  CONSTRAINT judge_jobs_label_set_id_key UNIQUE,
  judge_id      text NOT NULL,
  template      jsonb NOT NULL,
  template_hash text NOT NULL,
  -- Model, temperature, max tokens, structured output … (the judge's JudgeSettings).
  settings      jsonb NOT NULL DEFAULT '{}'::jsonb,
  status        text NOT NULL DEFAULT 'active'
                  CONSTRAINT judge_jobs_status_check CHECK (status IN ('active', 'paused')),
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- One item to judge. `position` is the pool's judging priority (lower first), so a
-- partial budget judges the most useful items first. `values` holds everything the
-- template renders (query, passage …), so a worker needs nothing else.
CREATE TABLE judge_tasks (
  job_id           bigint NOT NULL REFERENCES judge_jobs (id) ON DELETE CASCADE,
  topic_id         text NOT NULL,
  doc_id           text NOT NULL,
  position         integer NOT NULL,
  "values"         jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending'
                     CONSTRAINT judge_tasks_status_check
                     CHECK (status IN ('pending', 'running', 'labelled', 'failed')),
  lease_owner      text,
  lease_expires_at timestamptz,
  -- Times the task was claimed.
  attempts         integer NOT NULL DEFAULT 0,
  grade            integer,
  rationale        text,
  distribution     jsonb,
  -- The unreadable answer of a failed task.
  raw              text,
  error            text,
  call_hash        text,
  cost_usd         double precision NOT NULL DEFAULT 0,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT judge_tasks_pkey PRIMARY KEY (job_id, topic_id, doc_id),
  CONSTRAINT judge_tasks_lease_check
    CHECK ((status = 'running') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)),
  CONSTRAINT judge_tasks_labelled_has_grade CHECK (status <> 'labelled' OR grade IS NOT NULL),
  CONSTRAINT judge_tasks_failed_has_error CHECK (status <> 'failed' OR error IS NOT NULL)
);

-- The claim: pending tasks in priority order, and running tasks whose lease has expired.
CREATE INDEX judge_tasks_pending_idx ON judge_tasks (position, job_id) WHERE status = 'pending';
CREATE INDEX judge_tasks_running_idx ON judge_tasks (lease_expires_at) WHERE status = 'running';
-- A job's tasks by state (progress counts, failures).
CREATE INDEX judge_tasks_job_status_idx ON judge_tasks (job_id, status);
