import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_PRICES, type ModelPrice } from '@assay/llm';
import { z } from 'zod';
import type { AssayConfig } from '../core/config.js';
import { PlatformError } from '../core/errors.js';

/** The prices file's name in the data directory. */
export const PRICES_FILE = 'prices.json';

const Rates = { input: z.number().min(0), output: z.number().min(0) };
const Price = z.object({ ...Rates, batch: z.object(Rates).strict().optional() }).strict();
const PricesFile = z.record(z.string().min(1), Price);

/** Where a configuration's prices file is: `<dataDir>/prices.json`. */
export function pricesFile(config: AssayConfig): string {
  return resolve(join(config.dataDir, PRICES_FILE));
}

/**
 * The price table judging uses (USD per million prompt and completion tokens, by model):
 * assay's list prices of common hosted models, overridden and extended by the data
 * directory's `prices.json` (`{"my-model": {"input": 0.5, "output": 1.5}}`, optionally with
 * the Batch API's own `"batch": {"input": …, "output": …}`, else half the price; a missing
 * file is no error), then by `extra` (a command's own prices). A file that is not such
 * an object fails with its path and the first problem.
 */
export function loadPrices(
  config: AssayConfig,
  extra: Readonly<Record<string, ModelPrice>> = {},
): Record<string, ModelPrice> {
  const path = pricesFile(config);
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new PlatformError(
        'invalid_input',
        `${path}: cannot read (${(error as Error).message})`,
      );
    }
  }
  let fromFile: Record<string, ModelPrice> = {};
  if (text !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new PlatformError('invalid_input', `${path}: not valid JSON`);
    }
    const parsed = PricesFile.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length ? ` at ${issue.path.join('.')}` : '';
      throw new PlatformError(
        'invalid_input',
        `${path}${where}: ${issue.message} (expected {"model": {"input": USD, "output": USD}}, USD per million tokens)`,
      );
    }
    fromFile = parsed.data;
  }
  return { ...DEFAULT_PRICES, ...fromFile, ...extra };
}

/** How a command line or the API names the budget and its own prices in a refusal. */
export interface BudgetSpelling {
  /** `--budget`, `"budgetUsd"`. */
  budget: string;
  /** The command's own price options (`--price-in`, `--price-out`), when it has them. */
  prices?: readonly [string, string];
}

/**
 * Refuses a budget when one of the models it would count has no price: a budget stops
 * sending once the calls' cost reaches it, and a call at an unknown price costs nothing it
 * can count, so such a budget would never stop anything. The one wording of this refusal
 * for every LLM step (judging, RAG steps, answer scoring, retrieval with models); an
 * invalid_input PlatformError with `details.field` "budgetUsd".
 */
export function checkBudgetPrices(
  config: AssayConfig,
  prices: Readonly<Record<string, ModelPrice>>,
  models: Iterable<string>,
  spell: BudgetSpelling,
): void {
  for (const model of models) {
    if (Object.hasOwn(prices, model)) continue;
    const own = spell.prices
      ? `give ${spell.prices[0]} and ${spell.prices[1]} (USD per million tokens), or `
      : '';
    throw new PlatformError(
      'invalid_input',
      `${spell.budget} needs the price of ${model}: ${own}add it to ${pricesFile(config)} ({"${model}": {"input": USD, "output": USD}} per million tokens)`,
      { field: 'budgetUsd' },
    );
  }
}
