import {
  loadMethodPrompts,
  OpenAIChatClient,
  type HttpEndpoint,
  type MethodPrompt,
  type ModelPrice,
} from '@assay/llm';
import {
  defaultMethodsDir,
  externalSearch,
  listOf,
  methodDefinition,
  methodNeeds,
  parseMethodSettings,
  rerankerFor,
  SettingsError,
  type FirstStage,
  type MethodNeeds,
  type ModelMethod,
  type ModelResources,
  type Spell,
  type StepSettings,
} from '@assay/methods';
import type { Bm25Index, DiskBm25Index } from '@assay/retrieval';
import { z } from 'zod';
import type { Queryable } from '@assay/db';
import type { AssayConfig } from '../core/config.js';
import { PlatformError } from '../core/errors.js';
import { DbCallStore } from './call-store.js';
import { checkBudgetPrices, loadPrices } from './prices.js';

/** What a retrieval with models names, from `assay retrieve`'s flags or the API's body. */
export interface ModelRetrievalRequest {
  method: ModelMethod;
  /** The method's settings by key (see its definition); absent ones take their defaults. */
  settings?: Readonly<Record<string, unknown>>;
  /** The chat model (methods that call one). */
  model?: string;
  /** The embeddings model (dense methods and aggregations; llmforum's dense method). */
  embeddingModel?: string;
  /** The cross-encoder's model (`reranker: cross-encoder`). */
  rerankerModel?: string;
  /** Sampling temperature and top_p of every step (each prompt's own temperature otherwise). */
  temperature?: number;
  topP?: number;
  /** Model, temperature and top_p of single steps, by prompt id (`gr-answer`, `binary-filter` …). */
  steps?: Readonly<Record<string, StepSettings>>;
  /** E5-style prefixes: before query-side texts and before documents (default none). */
  queryPrefix?: string;
  passagePrefix?: string;
  /** Stop sending calls once this many USD were spent (every model used must be priced). */
  budgetUsd?: number;
}

/** Sampling settings: a temperature from 0 to 2, a top_p above 0 and at most 1. */
export const SAMPLING = {
  temperature: z.number().min(0).max(2),
  topP: z.number().gt(0).max(1),
};

const EXPECTS = { temperature: 'a number from 0 to 2', topP: 'a number above 0, at most 1' };

/** The fields of a request beside `method` and `settings` that only methods with models take. */
export const MODEL_REQUEST_FIELDS = [
  'model',
  'embeddingModel',
  'rerankerModel',
  'temperature',
  'topP',
  'steps',
  'queryPrefix',
  'passagePrefix',
  'budgetUsd',
] as const satisfies ReadonlyArray<keyof ModelRetrievalRequest>;

/** The command line's own endpoints (`--base-url`, `--embedding-base-url`, `--rerank-base-url`). */
export interface EndpointOverrides {
  baseUrl?: string;
  embeddingBaseUrl?: string;
  rerankBaseUrl?: string;
}

/** A request checked against its method and the configuration, ready to build resources from. */
export interface PreparedModelRetrieval {
  request: ModelRetrievalRequest;
  /** The method's settings, defaults filled in. */
  settings: Record<string, unknown>;
  needs: MethodNeeds;
  /** Whether the run embeds (an embeddings model given to a method that uses one). */
  embeds: boolean;
  /** Step settings with `*` for what applies to every step. */
  steps: Record<string, StepSettings>;
  /** The price table: list prices, the data directory's prices.json, the command's own. */
  prices: Record<string, ModelPrice>;
  endpoints: { chat: HttpEndpoint; embeddings: HttpEndpoint; rerank: HttpEndpoint };
}

function invalid(message: string): PlatformError {
  return new PlatformError('invalid_input', message);
}

/** The steps a method has: its prompts, the reranker's when it is RankGPT. */
function stepsOf(method: ModelMethod, settings: Record<string, unknown>): string[] {
  return methodDefinition(method).prompts.filter(
    (p) => p !== 'rankgpt' || settings.reranker === 'rankgpt',
  );
}

/**
 * Checks a retrieval with models before anything is read or sent, the same way for the
 * CLI and the API: the method's settings (ranges, those of other methods: "applies to …
 * only"), the models it needs, step settings for steps it has, prefixes only with an
 * embeddings model, a price for every model a budget must count (the data directory's
 * prices.json included) and, with `requireEndpoint`, a configured endpoint for every kind
 * of call it makes. Every message names fields with `spell` (`--model`, `"model"`).
 */
export function prepareModelRetrieval(
  config: AssayConfig,
  request: ModelRetrievalRequest,
  options: {
    spell: Spell;
    overrides?: EndpointOverrides;
    /** The command's own prices (`--price-in/--price-out` style), over the file's. */
    prices?: Readonly<Record<string, ModelPrice>>;
    /** Check that the endpoints the run calls are configured (not for a dry run). */
    requireEndpoint?: boolean;
    /** How to name the endpoint settings in the message when none is configured. */
    endpointHint?: string;
    /** How a value was given, for messages (default its JSON). */
    shown?: (key: string, value: unknown) => string;
  },
): PreparedModelRetrieval {
  const { spell } = options;
  const shown = options.shown ?? ((_key: string, value: unknown) => JSON.stringify(value));
  const sampling = (key: 'temperature' | 'topP', value: unknown, name: string) => {
    if (value !== undefined && !SAMPLING[key].safeParse(value).success)
      throw invalid(`${name} needs ${EXPECTS[key]}, not ${shown(key, value)}`);
  };
  sampling('temperature', request.temperature, spell('temperature'));
  sampling('topP', request.topP, spell('topP'));
  for (const [step, s] of Object.entries(request.steps ?? {})) {
    sampling('temperature', s.temperature, `${spell('steps')} ${step}: temperature`);
    sampling('topP', s.topP, `${spell('steps')} ${step}: top_p`);
  }
  const method = request.method;
  let settings: Record<string, unknown>;
  try {
    settings = parseMethodSettings(method, request.settings ?? {}, { spell, shown });
  } catch (error) {
    if (error instanceof SettingsError) throw invalid(error.message);
    throw error;
  }
  const needs = methodNeeds(method, settings);
  const reranker = settings.reranker as string | undefined;
  if (needs.chat && !request.model) {
    // RankGPT alone may be what calls the chat model (the rerank method).
    const own = methodDefinition(method).needsChat({ ...settings, reranker: undefined });
    throw invalid(
      `${method}${reranker === 'rankgpt' && !own ? ' with the rankgpt reranker' : ''} needs a chat model (${spell('model')})`,
    );
  }
  if (reranker === 'cross-encoder' && !request.rerankerModel)
    throw invalid(`the cross-encoder reranker needs its model (${spell('rerankerModel')})`);
  if (request.rerankerModel && reranker !== 'cross-encoder')
    throw invalid(
      reranker === 'rankgpt'
        ? `${spell('rerankerModel')} applies to the cross-encoder; rankgpt uses the chat model (${spell('model')}, or a step model for rankgpt)`
        : `${spell('rerankerModel')} applies to ${spell('reranker')} cross-encoder`,
    );
  if (needs.embeddings === 'required' && !request.embeddingModel)
    throw invalid(
      `${method}${settings.aggregation ? ` with ${settings.aggregation} aggregation` : ''} needs an embeddings model (${spell('embeddingModel')})`,
    );
  if (needs.embeddings === 'none' && request.embeddingModel)
    throw invalid(
      `${method}${settings.aggregation ? ` with ${settings.aggregation} aggregation` : ''} embeds nothing: ${spell('embeddingModel')} applies to dense, hybrid, llmforum and the dense aggregation of query2doc and amd`,
    );
  const embeds = request.embeddingModel !== undefined && needs.embeddings !== 'none';
  for (const key of ['queryPrefix', 'passagePrefix'] as const)
    if (request[key] !== undefined && !embeds)
      throw invalid(`${spell(key)} applies with an embeddings model (${spell('embeddingModel')})`);
  const steps: Record<string, StepSettings> = {};
  if (request.temperature !== undefined || request.topP !== undefined)
    steps['*'] = {
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.topP !== undefined ? { topP: request.topP } : {}),
    };
  const known = stepsOf(method, settings);
  for (const [step, s] of Object.entries(request.steps ?? {})) {
    if (!known.includes(step))
      throw invalid(
        known.length
          ? `${spell('steps')}: ${method} has no step '${step}' (its steps: ${listOf(known)})`
          : `${spell('steps')}: ${method} calls no chat model`,
      );
    steps[step] = { ...steps[step], ...s };
  }
  if (!needs.chat && steps['*'])
    throw invalid(
      `${spell(request.temperature !== undefined ? 'temperature' : 'topP')} applies to methods that call a chat model`,
    );

  let prices: Record<string, ModelPrice>;
  try {
    prices = loadPrices(config, options.prices);
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw invalid((error as Error).message);
  }
  if (request.budgetUsd !== undefined) {
    const models = new Set<string>();
    if (needs.chat) {
      models.add(request.model!);
      for (const s of Object.values(steps)) if (s.model) models.add(s.model);
    }
    if (embeds) models.add(request.embeddingModel!);
    if (reranker === 'cross-encoder') models.add(request.rerankerModel!);
    checkBudgetPrices(config, prices, models, { budget: spell('budgetUsd') });
  }

  const endpoints = modelEndpoints(config, options.overrides ?? {});
  if (options.requireEndpoint) {
    const missing: string[] = [];
    const configured = (e: HttpEndpoint) => e.baseURL !== undefined || e.apiKey !== undefined;
    if (needs.chat && !configured(endpoints.chat)) missing.push('chat');
    if (embeds && !configured(endpoints.embeddings)) missing.push('embeddings');
    if (reranker === 'cross-encoder' && !configured(endpoints.rerank)) missing.push('rerank');
    if (missing.length)
      throw invalid(
        `${method} calls models and no ${listOf(missing)} endpoint is configured: set OPENAI_BASE_URL and OPENAI_API_KEY${options.endpointHint ? ` (${options.endpointHint})` : ''}`,
      );
  }
  return { request, settings, needs, embeds, steps, prices, endpoints };
}

/**
 * The chat, embeddings and rerank endpoints: the chat endpoint is OPENAI_BASE_URL (or the
 * command's `--base-url`) with OPENAI_API_KEY; embeddings and rerank have their own when
 * ASSAY_EMBEDDING_BASE_URL / ASSAY_RERANK_BASE_URL (or the command's flags) name one, with
 * their own key (the chat key is never sent to another endpoint), else the chat endpoint's.
 */
export function modelEndpoints(
  config: AssayConfig,
  overrides: EndpointOverrides = {},
): PreparedModelRetrieval['endpoints'] {
  const chatUrl = overrides.baseUrl ?? config.openaiBaseUrl;
  const chat: HttpEndpoint = {
    ...(chatUrl ? { baseURL: chatUrl } : {}),
    ...(config.openaiApiKey ? { apiKey: config.openaiApiKey } : {}),
  };
  const own = (url: string | undefined, key: string | undefined): HttpEndpoint =>
    url === undefined
      ? key === undefined
        ? chat
        : { ...chat, apiKey: key }
      : { baseURL: url, ...(key ? { apiKey: key } : {}) };
  return {
    chat,
    embeddings: own(overrides.embeddingBaseUrl ?? config.embeddingBaseUrl, config.embeddingApiKey),
    rerank: own(overrides.rerankBaseUrl ?? config.rerankBaseUrl, config.rerankApiKey),
  };
}

let shipped: Map<string, MethodPrompt> | undefined;

/**
 * The method prompts of `dir` (default: the shipped methods/, read once), checked to hold
 * every prompt the method asks.
 */
export function methodPrompts(
  method: ModelMethod,
  settings: Record<string, unknown>,
  dir?: string,
): Map<string, MethodPrompt> {
  let prompts: Map<string, MethodPrompt>;
  try {
    prompts =
      dir === undefined
        ? (shipped ??= loadMethodPrompts(defaultMethodsDir()))
        : loadMethodPrompts(dir);
  } catch (error) {
    throw invalid(`cannot read method prompts: ${(error as Error).message}`);
  }
  const missing = stepsOf(method, settings).filter(
    (id) => id !== 'binary-filter' && !prompts.has(id),
  );
  if (missing.length)
    throw invalid(
      `the method prompts${dir === undefined ? '' : ` of ${dir}`} lack ${listOf(missing.map((m) => `${m}.md`))}`,
    );
  return prompts;
}

/**
 * The model resources of a prepared retrieval, for the CLI and the API alike: the chat
 * client, the embeddings endpoint with its model and prefixes, the reranker, the step
 * settings, the prices and the database's call store every call goes through.
 */
export function modelResources(
  prepared: PreparedModelRetrieval,
  input: {
    index: Bm25Index | DiskBm25Index;
    prompts: ReadonlyMap<string, MethodPrompt>;
    /** The database whose call store keeps every call. */
    db: Queryable;
    documents?: readonly { id: string; title?: string; text: string }[];
    /** Each topic's candidates from a run (the `firstStage` setting, read by the caller). */
    firstStage?: FirstStage;
  },
): ModelResources {
  const { request, needs, endpoints, steps } = prepared;
  const resources: ModelResources = {
    index: input.index,
    prompts: input.prompts,
    deps: { store: new DbCallStore(input.db), prices: prepared.prices },
  };
  if (needs.chat)
    resources.chat = { client: new OpenAIChatClient(endpoints.chat), model: request.model! };
  if (Object.keys(steps).length) resources.steps = steps;
  if (prepared.embeds)
    resources.embeddings = {
      endpoint: endpoints.embeddings,
      model: request.embeddingModel!,
      ...(request.queryPrefix ? { queryPrefix: request.queryPrefix } : {}),
      ...(request.passagePrefix ? { passagePrefix: request.passagePrefix } : {}),
    };
  if (input.documents) resources.documents = input.documents;
  if (input.firstStage) resources.firstStage = input.firstStage;
  const search = externalSearch(prepared.settings);
  if (search) resources.search = search;
  const rankgptModel = steps.rankgpt?.model ?? steps['*']?.model ?? request.model;
  const reranker = rerankerFor(
    prepared.settings,
    endpoints.rerank,
    rankgptModel,
    request.rerankerModel,
  );
  if (reranker) resources.reranker = reranker;
  return resources;
}
