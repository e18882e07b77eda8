import type { ModelPrice } from '@assay/platform';
import { number, UsageError, type OptionSpec, type ParsedArgs } from './getopt.js';

/** `--price-in USD --price-out USD`, the price of the model a command calls. */
export const PRICE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'price-in',
    key: 'priceIn',
    kind: number({ min: 0 }),
    arg: 'USD',
    help: `the model's price per million prompt tokens, with --price-out, for the
cost, --dry-run and --budget (default: the data directory's prices.json,
then assay's list prices of common hosted models)`,
  },
  {
    long: 'price-out',
    key: 'priceOut',
    kind: number({ min: 0 }),
    arg: 'USD',
    help: "the model's price per million completion tokens, with --price-in",
  },
];

/**
 * `--price-in USD --price-out USD` (per million prompt and completion tokens) as the
 * price of the model a command calls; both or neither.
 */
export function ownModelPrice(parsed: ParsedArgs): ModelPrice | undefined {
  const input = parsed.number('priceIn');
  const output = parsed.number('priceOut');
  if (input === undefined && output === undefined) return undefined;
  if (input === undefined || output === undefined)
    throw new UsageError('give both --price-in and --price-out (USD per million tokens)');
  return { input, output };
}
