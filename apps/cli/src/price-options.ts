import type { ModelPrice } from '@assay/platform';
import { UsageError } from './getopt.js';

function usd(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0)
    throw new UsageError(`${flag} needs a price >= 0 in USD per million tokens, not '${text}'`);
  return value;
}

/**
 * `--price-in USD --price-out USD` (per million prompt and completion tokens) as a price
 * table for `model`; both or neither.
 */
export function modelPriceOptions(
  option: (key: string) => string | undefined,
  model: string,
): Record<string, ModelPrice> {
  const input = option('priceIn');
  const output = option('priceOut');
  if (input === undefined && output === undefined) return {};
  if (input === undefined || output === undefined)
    throw new UsageError('give both --price-in and --price-out (USD per million tokens)');
  return { [model]: { input: usd('--price-in', input), output: usd('--price-out', output) } };
}
