// The one builder of an LLM step's dependencies, for every step the CLI and the API run
// with a judge template (RAG steps, answer scoring): which model, at what prices, whether a
// budget can be counted, and the endpoint client, pacing and call store its calls go
// through. Checking comes first and needs no database, so a command refuses before it
// opens one or reads its inputs; the clients come once the database is open.
import type { Queryable } from '@assay/db';
import type { CallStore, ModelPrice } from '@assay/llm';
import type { AssayConfig } from '../core/config.js';
import { PlatformError } from '../core/errors.js';
import { judgeWorkerDeps, type JudgeEndpointOptions } from '../judging/endpoint.js';
import type { JudgeWorkerDeps } from '../judging/worker.js';
import { DbCallStore } from './call-store.js';
import { checkBudgetPrices, loadPrices, type BudgetSpelling } from './prices.js';

/** How a command line or the API names a step's fields in its refusals. */
export interface LlmStepSpelling extends BudgetSpelling {
  /** `--model`, `"model"`. */
  model: string;
}

/** The API's names of a step's fields (its JSON body's). */
export const API_STEP_SPELLING: LlmStepSpelling = { model: '"model"', budget: '"budgetUsd"' };

/** An LLM step as a command line or an API body asks for it. */
export interface LlmStepRequest {
  /** The model asked for; else ASSAY_JUDGE_MODEL; else `templateModel`. */
  model?: string;
  /** The model the judge template's front matter names. */
  templateModel?: string;
  /** The command's own endpoint and pacing (`--base-url`, `--rpm`, `--tpm`, `--timeout`). */
  endpoint?: Omit<JudgeEndpointOptions, 'prices'>;
  /** The command's own price of the step's model, over the price table. */
  price?: ModelPrice;
  /** Calls in flight at once, for the pacing (default 8). */
  concurrency?: number;
  /** Stop sending once this many USD were paid (the model must then have a price). */
  budgetUsd?: number;
  spell: LlmStepSpelling;
}

/** A step checked against the configuration, ready for {@link llmStepClients}. */
export interface PreparedLlmStep {
  config: AssayConfig;
  model: string;
  /** Where the calls go and how fast, with the command's own price of the model. */
  endpoint: JudgeEndpointOptions;
  concurrency: number;
  /** The price table: list prices, the data directory's prices.json, the command's own. */
  prices: Readonly<Record<string, ModelPrice>>;
  budgetUsd?: number;
}

/** What a step's calls go through: the endpoint client, its pacing, the prices, the store. */
export interface LlmStepClients extends JudgeWorkerDeps {
  store: CallStore;
  prices: Readonly<Record<string, ModelPrice>>;
}

/**
 * Checks an LLM step the same way for the CLI and the API: the model (asked for, else
 * ASSAY_JUDGE_MODEL, else the judge's own), the price table (a prices.json that cannot be
 * read fails with its path) and, with a budget, the model's price. A refusal of what the
 * request asks is an invalid_input PlatformError whose `details.field` names the field
 * (`model`, `budgetUsd`), spelled in the message with `spell`.
 */
export function prepareLlmStep(config: AssayConfig, request: LlmStepRequest): PreparedLlmStep {
  const { spell } = request;
  const model = request.model ?? config.judgeModel ?? request.templateModel;
  if (!model)
    throw new PlatformError(
      'invalid_input',
      `no model: give ${spell.model}, set ASSAY_JUDGE_MODEL, or name one in the judge's front matter (model: { name })`,
      { field: 'model' },
    );
  const own = request.price ? { [model]: request.price } : {};
  const prices = loadPrices(config, own);
  if (request.budgetUsd !== undefined) checkBudgetPrices(config, prices, [model], spell);
  return {
    config,
    model,
    endpoint: { ...request.endpoint, prices: own },
    concurrency: request.concurrency ?? 8,
    prices,
    ...(request.budgetUsd === undefined ? {} : { budgetUsd: request.budgetUsd }),
  };
}

/**
 * The clients of a prepared step: the endpoint's chat client (OPENAI_BASE_URL or the
 * command's `--base-url`, OPENAI_API_KEY) paced as asked, the prices, and the database's
 * call store, so every call is kept and a stored answer is never paid for again.
 */
export function llmStepClients(db: Queryable, step: PreparedLlmStep): LlmStepClients {
  return {
    ...judgeWorkerDeps(step.config, step.endpoint, step.concurrency),
    prices: step.prices,
    store: new DbCallStore(db),
  };
}
