import { getJudgeJob, type Queryable } from '@assay/db';
import type { ChatClient } from '@assay/llm';
import type { AssayConfig } from '../core/config.js';
import { PlatformError } from '../core/errors.js';
import { judgeEndpointIdentity, judgeWorkerDeps, type JudgeEndpointOptions } from './endpoint.js';
import { runJudgeWorker, type JudgeWorkerOptions, type JudgeWorkerResult } from './worker.js';

/** Options of {@link startJudgeWorker}: a run's options, its endpoint from the configuration. */
export interface StartJudgeWorkerOptions extends Omit<JudgeWorkerOptions, 'deps' | 'endpoint'> {
  config: AssayConfig;
  /** Base URL, pacing, timeout and prices over the configuration's. */
  endpoint?: JudgeEndpointOptions;
  /**
   * Answers from elsewhere than the endpoint (the answers a batch stored, with nothing sent
   * live); what is claimed still follows the configured endpoint.
   */
  client?: ChatClient;
}

/**
 * Starts a judge worker on the configured model endpoint and resolves when it stops: the
 * one way the `assay judge` run, `assay worker` and the server judge. The worker claims
 * only what it is configured for: the jobs it names (`jobIds`), else the jobs open to
 * workers, and of those only the jobs recorded at its endpoint (a job with none recorded
 * gets this one) and, given `models`, of those models. A named job recorded at another
 * endpoint, or of another model, is refused (conflict) before anything is sent; an unknown
 * one is not_found.
 */
export async function startJudgeWorker(
  db: Queryable,
  options: StartJudgeWorkerOptions,
): Promise<JudgeWorkerResult> {
  const { config, endpoint: endpointOptions = {}, client, ...run } = options;
  const endpoint = judgeEndpointIdentity(config, endpointOptions);
  if (endpoint === undefined && client === undefined)
    throw new PlatformError(
      'invalid_input',
      'no model endpoint: set OPENAI_API_KEY (and OPENAI_BASE_URL for other endpoints)',
    );
  for (const id of run.jobIds ?? []) await checkNamedJob(db, id, endpoint, run.models);
  const deps = judgeWorkerDeps(config, endpointOptions, run.concurrency);
  if (client) deps.client = client;
  return runJudgeWorker(db, { ...run, deps, ...(endpoint === undefined ? {} : { endpoint }) });
}

/** Refuses a named job the worker is not configured for; says where it is judged instead. */
async function checkNamedJob(
  db: Queryable,
  id: number,
  endpoint: string | undefined,
  models: readonly string[] | undefined,
): Promise<void> {
  const job = Number.isSafeInteger(id) ? await getJudgeJob(db, id) : undefined;
  if (!job) throw new PlatformError('not_found', `no judge job ${id}`);
  const model = String(job.settings.model);
  if (endpoint !== undefined && job.endpoint !== null && job.endpoint !== endpoint)
    throw new PlatformError(
      'conflict',
      `judge job ${id} (model ${model}) is judged at ${job.endpoint}, and this worker calls ${endpoint}; a label set is judged at one endpoint`,
      { jobEndpoint: job.endpoint, workerEndpoint: endpoint },
    );
  if (models && !models.includes(model))
    throw new PlatformError(
      'conflict',
      `judge job ${id} is judged with model ${model}, which this worker does not take (${models.join(', ')})`,
    );
}
