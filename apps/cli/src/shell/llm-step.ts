// The command line's side of an LLM step: its flags' names in the platform's refusals, and
// those refusals as usage errors (exit status 1), as a wrong flag is.
import {
  checkBudgetPrices,
  PlatformError,
  prepareLlmStep,
  type AssayConfig,
  type LlmStepRequest,
  type LlmStepSpelling,
  type ModelPrice,
  type PreparedLlmStep,
} from '@assay/platform';
import { UsageError } from './getopt.js';
import { asCliErrors } from './platform-session.js';

/** The flags of an LLM step: `--model`, `--budget`, `--price-in` and `--price-out`. */
export const CLI_STEP_SPELLING: LlmStepSpelling = {
  model: '--model',
  budget: '--budget',
  prices: ['--price-in', '--price-out'],
};

/** A refusal of what a flag asks (the platform names the field) as a usage error. */
function asUsage<T>(work: () => T): Promise<T> {
  return asCliErrors(async () => {
    try {
      return work();
    } catch (error) {
      if (error instanceof PlatformError && typeof error.details?.field === 'string')
        throw new UsageError(error.message);
      throw error;
    }
  });
}

/**
 * An LLM step checked by the platform with the command's flags: no model, or a budget
 * for a model without a price, is a usage error; an unreadable prices.json bad input.
 */
export function prepareCommandStep(
  config: AssayConfig,
  request: Omit<LlmStepRequest, 'spell'>,
): Promise<PreparedLlmStep> {
  return asUsage(() => prepareLlmStep(config, { ...request, spell: CLI_STEP_SPELLING }));
}

/** Refuses `--budget` when `model` has no price, as every LLM step refuses it. */
export function requireBudgetPrice(
  config: AssayConfig,
  prices: Readonly<Record<string, ModelPrice>>,
  model: string,
): Promise<void> {
  return asUsage(() => checkBudgetPrices(config, prices, [model], CLI_STEP_SPELLING));
}
