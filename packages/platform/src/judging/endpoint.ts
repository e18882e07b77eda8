import {
  OPENAI_API_BASE_URL,
  OpenAIBatchClient,
  OpenAIChatClient,
  publicEndpoint,
  RateLimiter,
  type ModelPrice,
} from '@assay/llm';
import type { AssayConfig } from '../core/config.js';
import { PlatformError } from '../core/errors.js';
import type { JudgeWorkerDeps } from './worker.js';
import { loadPrices } from '../llm/prices.js';

/** Where and how fast a worker calls the model, over what the configuration says. */
export interface JudgeEndpointOptions {
  /** Overrides OPENAI_BASE_URL. */
  baseUrl?: string;
  /** Requests per minute at most. */
  rpm?: number;
  /** Tokens per minute at most. */
  tpm?: number;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
  /** Prices (USD per million tokens) over the list prices and the data directory's prices.json. */
  prices?: Readonly<Record<string, ModelPrice>>;
}

/** Whether the configuration names a model endpoint (OPENAI_BASE_URL or OPENAI_API_KEY). */
export function hasJudgeEndpoint(
  config: AssayConfig,
  endpoint: JudgeEndpointOptions = {},
): boolean {
  return Boolean(endpoint.baseUrl ?? config.openaiBaseUrl ?? config.openaiApiKey);
}

/**
 * Where a worker's calls go, as messages may name it: the base URL without credentials or
 * a query, or "the OpenAI API" when none is configured.
 */
export function judgeEndpointName(
  config: AssayConfig,
  endpoint: JudgeEndpointOptions = {},
): string {
  const baseURL = endpoint.baseUrl ?? config.openaiBaseUrl;
  return baseURL ? publicEndpoint(baseURL) : 'the OpenAI API';
}

/**
 * The endpoint a job is judged at, as judge jobs record it and workers compare it: the
 * base URL's scheme, host, port and path (the OpenAI API's when only a key is configured),
 * never credentials, a query or the key; undefined when no endpoint is configured. Two
 * spellings of one URL (a trailing slash, an upper-case host, a default port) are one.
 */
export function judgeEndpointIdentity(
  config: AssayConfig,
  endpoint: JudgeEndpointOptions = {},
): string | undefined {
  if (!hasJudgeEndpoint(config, endpoint)) return undefined;
  const baseURL = endpoint.baseUrl ?? config.openaiBaseUrl ?? OPENAI_API_BASE_URL;
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new PlatformError('invalid_input', 'the model endpoint is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new PlatformError('invalid_input', 'the model endpoint must be an http(s) URL');
  return publicEndpoint(url.href);
}

/**
 * A worker's endpoint client (OpenAI-compatible, at the configured base URL with the
 * configured key) and, when `rpm` or `tpm` is given, its pacing.
 */
export function judgeWorkerDeps(
  config: AssayConfig,
  endpoint: JudgeEndpointOptions = {},
  concurrency = 8,
): JudgeWorkerDeps {
  const baseURL = endpoint.baseUrl ?? config.openaiBaseUrl;
  const deps: JudgeWorkerDeps = {
    client: new OpenAIChatClient({
      ...(baseURL ? { baseURL } : {}),
      ...(config.openaiApiKey ? { apiKey: config.openaiApiKey } : {}),
      ...(endpoint.timeoutMs ? { timeoutMs: endpoint.timeoutMs } : {}),
    }),
    prices: loadPrices(config, endpoint.prices),
  };
  if (endpoint.rpm || endpoint.tpm)
    deps.limiter = new RateLimiter({
      concurrency,
      ...(endpoint.rpm ? { requestsPerMinute: endpoint.rpm } : {}),
      ...(endpoint.tpm ? { tokensPerMinute: endpoint.tpm } : {}),
    });
  return deps;
}

/** The Files and Batches endpoints at the configured base URL, with the configured key. */
export function judgeBatchClient(
  config: AssayConfig,
  endpoint: JudgeEndpointOptions = {},
): OpenAIBatchClient {
  const baseURL = endpoint.baseUrl ?? config.openaiBaseUrl;
  return new OpenAIBatchClient({
    ...(baseURL ? { baseURL } : {}),
    ...(config.openaiApiKey ? { apiKey: config.openaiApiKey } : {}),
    ...(endpoint.timeoutMs ? { timeoutMs: endpoint.timeoutMs } : {}),
  });
}
