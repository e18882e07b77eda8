import {
  API_STEP_SPELLING,
  hasJudgeEndpoint,
  llmStepClients,
  prepareLlmStep,
  type AssayConfig,
  type LlmStepClients,
  type Queryable,
} from '@assay/platform';
import { ApiError } from './errors.js';

/** What a route's body asks of an LLM step. */
export interface ServerStepRequest {
  model?: string | undefined;
  /** The model the judge template names, the last default. */
  templateModel?: string | undefined;
  budgetUsd?: number | undefined;
  /** A dry run sends nothing, so it needs no endpoint. */
  dryRun?: boolean | undefined;
}

/**
 * The server's model endpoint, client, prices and call store for an LLM step, built by the
 * platform as the CLI's are; 409 when the server has no model endpoint to send to, 422 for
 * no model or a budget for a model without a price.
 */
export function serverLlmStep(
  config: AssayConfig | undefined,
  db: Queryable,
  request: ServerStepRequest,
): { model: string; deps: LlmStepClients } {
  if (!config || (!request.dryRun && !hasJudgeEndpoint(config)))
    throw new ApiError(
      'conflict',
      'this server has no model endpoint (set OPENAI_BASE_URL or OPENAI_API_KEY)',
    );
  const step = prepareLlmStep(config, {
    ...(request.model === undefined ? {} : { model: request.model }),
    ...(request.templateModel === undefined ? {} : { templateModel: request.templateModel }),
    ...(request.budgetUsd === undefined ? {} : { budgetUsd: request.budgetUsd }),
    spell: API_STEP_SPELLING,
  });
  return { model: step.model, deps: llmStepClients(db, step) };
}
