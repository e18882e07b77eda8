-- Which workers may judge a job, and how often its failed items were tried again.
--
-- A judge job records the model endpoint it is judged at: the base URL in its public form
-- (scheme, host, port and path; never credentials, a query or the API key), so a worker
-- calling another endpoint never claims its items and a label set is never judged by two
-- endpoints behind one model name. NULL: not recorded yet (a job made before this
-- migration, or through a server without an endpoint); the first worker that claims from
-- it records its own.
ALTER TABLE judge_jobs ADD COLUMN endpoint text
  CONSTRAINT judge_jobs_endpoint_check
  CHECK (endpoint IS NULL OR endpoint ~ '^https?://[^/?#@[:space:]]+(/[^?#[:space:]]*)?$');

-- Whether any worker at the job's endpoint may claim its items (jobs made through the API
-- or by `assay judge --enqueue`), or only a worker that names the job (the `assay judge`
-- run that made it, `assay worker --job`).
ALTER TABLE judge_jobs ADD COLUMN open_to_workers boolean NOT NULL DEFAULT true;

-- Times a failed task was put back to pending for another try. Each try asks the model
-- with attempt numbers of its own (try r asks attempts r·n + 1 … (r + 1)·n), so a retry
-- sends new requests instead of reading the unreadable answers of the last try again;
-- those answers stay in llm_calls.
ALTER TABLE judge_tasks ADD COLUMN retries integer NOT NULL DEFAULT 0
  CONSTRAINT judge_tasks_retries_check CHECK (retries >= 0);
