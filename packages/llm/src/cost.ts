/** USD per million tokens, prompt and completion. */
export interface ModelPrice {
  input: number;
  output: number;
  /** The Batch API's price, when it is not half the listed one. */
  batch?: { input: number; output: number };
}

/**
 * List prices (USD per million tokens) of common hosted models, as published by their
 * providers; pass your own table for other models, negotiated prices or local endpoints
 * (whose price is 0).
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  // Embedding models bill input tokens only (OpenAI's standard tier, as listed in July 2026).
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
  'text-embedding-ada-002': { input: 0.1, output: 0 },
};

/** Whether the table has a price for `model` (else what its calls cost is unknown, not 0). */
export function hasPrice(
  model: string,
  prices: Readonly<Record<string, ModelPrice>> = DEFAULT_PRICES,
): boolean {
  return Object.hasOwn(prices, model);
}

/** Cost of one call in USD; undefined when the model has no price in the table. */
export function callCost(
  model: string,
  usage: { promptTokens: number; completionTokens: number },
  prices: Readonly<Record<string, ModelPrice>> = DEFAULT_PRICES,
): number | undefined {
  if (!hasPrice(model, prices)) return undefined;
  const price = prices[model]!;
  return (usage.promptTokens * price.input + usage.completionTokens * price.output) / 1_000_000;
}

/** A rough token count for planning (about four characters per token for English text). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
