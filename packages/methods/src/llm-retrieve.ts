import {
  type CallDeps,
  ChatCallError,
  type ChatClient,
  EmbeddingClient,
  type HttpEndpoint,
  LlmHttpError,
  type MethodPrompt,
  UnusableAnswerError,
} from '@assay/llm';
import {
  Bm25Index,
  Bm25Searcher,
  DEFAULT_BM25,
  describeAnalyzer,
  DiskBm25Searcher,
  documentText,
  type Bm25Params,
  type DiskBm25Index,
} from '@assay/retrieval';
import type { Run, RunEntry } from '@assay/trec';
import { DenseIndex, type DenseSearcher } from './dense-index.js';
import { cachedHnswIndex } from './hnsw-index.js';
import type { GeneratedAnswer, MethodDefinition, RunModels } from './method-definition.js';
import {
  MissingCandidatesError,
  type FirstStage,
  type MethodContext,
  type MethodTopic,
  type OwnIndexSearcher,
  type Reranker,
  type ScoredDoc,
  type StepSettings,
} from './method-context.js';
import type { SearchService } from './search-service.js';
import { methodDefinition, parseMethodSettings, type ModelMethod } from './methods-registry.js';
import type { ModelRetrieveOptions } from './retrieve-options.js';
import { kebab, SettingsError } from './settings.js';
import { BudgetExceededError, SpendTracker } from './spend-tracker.js';
import type { TraceEntry } from './trace.js';

/** The embeddings endpoint, model and prefixes a run embeds with. */
export interface EmbeddingResources {
  endpoint: HttpEndpoint;
  model: string;
  batchSize?: number;
  /** Before every query-side text (`query: ` for E5 models); default none. */
  queryPrefix?: string;
  /** Before every document's text (`passage: ` for E5 models); default none. */
  passagePrefix?: string;
}

/** Endpoints, prompts and the collection a model method works with. */
export interface ModelResources {
  /**
   * assay's own BM25 index: held in memory, or on disk (BM25 searches only; methods that
   * read documents' term vectors refuse it, see {@link readsTermVectors}).
   */
  index: Bm25Index | DiskBm25Index;
  prompts: ReadonlyMap<string, MethodPrompt>;
  /** Where calls are kept; `beforePaidCall`/`onPaidCall` are set by the run. */
  deps: CallDeps;
  chat?: { client: ChatClient; model: string };
  /** Model, temperature and top_p by step (prompt id); `*` for every step. */
  steps?: Readonly<Record<string, StepSettings>>;
  /** The embeddings endpoint and model (the client is made with the run's deps). */
  embeddings?: EmbeddingResources;
  /** Document texts: for the dense index, and for methods that read passages. */
  documents?: readonly { id: string; title?: string; text: string }[];
  /** The reranker of methods with a rerank stage (absent: first-stage order). */
  reranker?: Reranker;
  /** Where generated queries are searched (absent: the own index). */
  search?: SearchService;
  /** Each topic's candidates from a run, for methods that start from BM25 (`--first-stage`). */
  firstStage?: FirstStage;
}

/** Documents a method reads from the first-stage run that have no text: named, never skipped. */
export class MissingTextsError extends Error {
  constructor(
    readonly docnos: readonly string[],
    run: string,
  ) {
    const shown = docnos.slice(0, 10).join(', ');
    super(
      `${docnos.length} document${docnos.length === 1 ? '' : 's'} of the first-stage run ${run} ${docnos.length === 1 ? 'has' : 'have'} no text in the documents given: ${shown}${docnos.length > 10 ? `, … and ${docnos.length - 10} more` : ''}`,
    );
    this.name = 'MissingTextsError';
  }
}

/** A topic that has no entries in a run, and why. */
export interface MissingTopic {
  topic: string;
  reason: string;
}

/** A run made with models, with everything it generated and what it cost. */
export interface ModelRun {
  run: Run;
  parameters: Record<string, string | number>;
  trace: TraceEntry[];
  /** Topics that failed, with the reason (they have no entries in the run). */
  failures: Array<{ topic: string; reason: string }>;
  /** Answers of methods that answer (srsa, llmforum), in topic order, with their route. */
  answers: Array<{ topic: string; route?: string } & GeneratedAnswer>;
  /** Topics left unfinished (or not started) because the budget was reached. */
  unfinished: string[];
  stoppedForBudget: boolean;
  /** Every topic without entries, in topic order, with the reason (failed, budget, nothing found). */
  missing: MissingTopic[];
  /** Topics per route, for methods that route (srsa), in the order first taken. */
  routes: Record<string, number>;
  /** How the run departs from the paper's method (also in its parameters). */
  warnings: string[];
  spend: SpendTracker;
}

/** What a method needs for its settings: chat, embeddings, the documents' text. */
export interface MethodNeeds {
  chat: boolean;
  embeddings: 'required' | 'optional' | 'none';
  documentText: boolean;
}

/** What a method with these (parsed) settings needs; a reranker adds its own needs. */
export function methodNeeds(method: ModelMethod, settings: Record<string, unknown>): MethodNeeds {
  const definition = methodDefinition(method);
  const reranker = settings.reranker as string | undefined;
  return {
    chat: definition.needsChat(settings) || reranker === 'rankgpt',
    embeddings: definition.embeddings(settings),
    documentText:
      definition.embeddings(settings) === 'required' ||
      (definition.needsDocumentText?.(settings) ?? false) ||
      reranker !== undefined,
  };
}

/**
 * Whether a method with these (parsed) settings reads documents' term vectors from the own
 * index (query-by-document, tf-idf feedback), so that it needs the index held in memory.
 */
export function readsTermVectors(
  method: ModelMethod,
  settings: Record<string, unknown>,
  models: RunModels,
): boolean {
  return methodDefinition(method).readsTermVectors?.(settings, models) ?? false;
}

/** BM25 over the own index, in memory or on disk. */
function ownSearcher(index: Bm25Index | DiskBm25Index, params: Bm25Params): OwnIndexSearcher {
  return index instanceof Bm25Index
    ? new Bm25Searcher(index, params)
    : new DiskBm25Searcher(index, params);
}

/** The settings a model method uses, defaults filled in, for the run's header. */
export function modelMethodParameters(
  index: Bm25Index | DiskBm25Index,
  options: ModelRetrieveOptions,
  settings: Record<string, unknown>,
  models: {
    model?: string;
    embeddingModel?: string;
    reranker?: string;
    steps?: Readonly<Record<string, StepSettings>>;
    queryPrefix?: string;
    passagePrefix?: string;
  },
): Record<string, string | number> {
  const definition = methodDefinition(options.method);
  const needs = methodNeeds(options.method, settings);
  const bm25 = { ...DEFAULT_BM25, ...options.bm25 };
  const p: Record<string, string | number> = {
    method: options.method,
    analyzer: describeAnalyzer(index instanceof Bm25Index ? index.data.analyzer : index.header.analyzer),
    k1: bm25.k1,
    b: bm25.b,
    k: options.k ?? 1000,
    index: index instanceof Bm25Index ? index.data.fingerprint : index.header.fingerprint,
    documents: index.documentCount,
  };
  const embeds = needs.embeddings !== 'none' && models.embeddingModel !== undefined;
  if (needs.chat && models.model) p.model = models.model;
  if (embeds) {
    p['embedding-model'] = models.embeddingModel!;
    if (models.queryPrefix) p['embedding.query-prefix'] = JSON.stringify(models.queryPrefix);
    if (models.passagePrefix)
      p['embedding.passage-prefix'] = JSON.stringify(models.passagePrefix);
  }
  if (models.reranker) p.reranker = models.reranker;
  for (const [step, s] of Object.entries(models.steps ?? {})) {
    const name = step === '*' ? 'steps' : `step.${step}`;
    if (s.model) p[`${name}.model`] = s.model;
    if (s.temperature !== undefined) p[`${name}.temperature`] = s.temperature;
    if (s.topP !== undefined) p[`${name}.top-p`] = s.topP;
  }
  const prefix = definition.prefix ?? definition.name;
  for (const [key, setting] of Object.entries(definition.settings)) {
    const value = settings[key];
    const needsOther = setting.info.onlyWith;
    if (value === undefined) continue;
    if (
      needsOther &&
      (settings[needsOther.key] === undefined ||
        settings[needsOther.key] === false ||
        (needsOther.value !== undefined && settings[needsOther.key] !== needsOther.value))
    )
      continue;
    p[`${prefix}.${kebab(key)}`] = typeof value === 'boolean' ? String(value) : (value as never);
  }
  const runModels: RunModels = { embeddings: embeds };
  definition.parameters?.(settings, p, runModels);
  const warnings = definition.warnings?.(settings, runModels) ?? [];
  warnings.forEach((w, i) => (p[warnings.length > 1 ? `warning.${i + 1}` : 'warning'] = w));
  if (options.budgetUsd !== undefined) p['budget-usd'] = options.budgetUsd;
  return p;
}

/**
 * Runs an LLM or embedding method over topics. Every call goes through the call store
 * (a rerun sends nothing); every generated text is traced. A topic whose answers stay
 * unusable, or whose calls fail after their retries, fails with the reason and gets no
 * entries; the other topics go on. Once the budget is reached no call is sent: the topics
 * finished so far make the run and the rest are listed as not started. Any other error
 * stops the run once the topics in flight are done, and is thrown. Settings the
 * method does not take, or takes with other values, throw a SettingsError before anything
 * is sent.
 */
export async function retrieveWithModels(
  topics: readonly MethodTopic[],
  resources: ModelResources,
  options: ModelRetrieveOptions,
): Promise<ModelRun> {
  const k = options.k ?? 1000;
  const definition: MethodDefinition = methodDefinition(options.method);
  const settings = parseMethodSettings(options.method, options.settings);
  const needs = methodNeeds(options.method, settings);
  const spend = new SpendTracker(options.budgetUsd);
  const deps: CallDeps = { ...resources.deps, beforePaidCall: spend.check, onPaidCall: spend.add };
  const trace: TraceEntry[] = [];
  const failures: ModelRun['failures'] = [];
  const unfinished: string[] = [];
  const notInFirstStage = new Set<string>();
  const results = new Map<string, ScoredDoc[]>();
  const answers = new Map<string, GeneratedAnswer>();
  const routes = new Map<string, string>();
  let stoppedForBudget = false;

  const context: MethodContext = {
    prompts: resources.prompts,
    deps,
    bm25: ownSearcher(resources.index, { ...DEFAULT_BM25, ...options.bm25 }),
    k,
    today:
      typeof settings.today === 'string' ? settings.today : new Date().toISOString().slice(0, 10),
    trace: (entry) => trace.push(entry),
  };
  if (resources.steps) context.steps = resources.steps;
  if (resources.documents)
    context.documents = new Map(
      resources.documents.map((d) => [
        d.id,
        d.title ? { title: d.title, text: d.text } : { text: d.text },
      ]),
    );
  if (resources.reranker) context.reranker = resources.reranker;
  if (resources.search) context.search = resources.search;
  if (resources.firstStage) {
    context.firstStage = resources.firstStage;
    const reads = definition.firstStageTexts?.(settings) ?? 0;
    const lacking = new Set<string>();
    for (const topic of topics)
      for (const d of resources.firstStage.topics.get(topic.id)?.slice(0, reads) ?? [])
        if (!context.documents?.has(d.docno)) lacking.add(d.docno);
    if (lacking.size > 0) throw new MissingTextsError([...lacking], resources.firstStage.name);
  }
  if (needs.chat) {
    if (!resources.chat) throw new SettingsError('model', `${options.method} needs a chat model`);
    context.chat = resources.chat;
  }
  if (needs.documentText && !resources.documents && !resources.search?.textOf)
    throw new SettingsError('docs', `${options.method} reads the documents' text`);
  const embeds = needs.embeddings === 'required' || (needs.embeddings === 'optional' && !!resources.embeddings);
  if (needs.embeddings === 'required' && !resources.embeddings)
    throw new SettingsError('embeddingModel', `${options.method} needs an embeddings model`);
  if (
    !(resources.index instanceof Bm25Index) &&
    readsTermVectors(options.method, settings, { embeddings: embeds })
  )
    throw new SettingsError(
      'index',
      `${options.method} reads documents' term vectors (query-by-document, tf-idf feedback), which the on-disk index ${resources.index.file} does not hold: use an index held in memory`,
    );
  const parameters = () =>
    modelMethodParameters(resources.index, options, settings, modelNames(resources, embeds));
  if (embeds) {
    if (!resources.documents)
      throw new SettingsError('docs', `${options.method} needs the documents' text to embed them`);
    const { endpoint, model, batchSize } = resources.embeddings!;
    context.embeddings = {
      client: new EmbeddingClient(endpoint, deps, batchSize ? { batchSize } : {}),
      model,
      queryPrefix: resources.embeddings!.queryPrefix ?? '',
      passagePrefix: resources.embeddings!.passagePrefix ?? '',
    };
    try {
      context.dense = await buildDenseIndex(context.embeddings, resources.documents, settings);
    } catch (error) {
      if (error instanceof BudgetExceededError) {
        const p = parameters();
        return {
          run: { name: options.tag ?? options.method, topics: new Map() },
          parameters: p,
          trace,
          failures,
          answers: [],
          unfinished: topics.map((t) => t.id),
          stoppedForBudget: true,
          missing: topics.map((t) => ({ topic: t.id, reason: BUDGET_REASON })),
          routes: {},
          warnings: warningsOf(p),
          spend,
        };
      }
      throw error;
    }
  }

  const runTopic = async (topic: MethodTopic): Promise<void> => {
    const outcome = await definition.runTopic(context, topic, settings);
    if (Array.isArray(outcome)) {
      results.set(topic.id, outcome);
      return;
    }
    results.set(topic.id, outcome.docs);
    if (outcome.answer) answers.set(topic.id, outcome.answer);
    if (outcome.route) routes.set(topic.id, outcome.route);
  };

  let next = 0;
  let done = 0;
  // An error outside any one topic (a search service that cannot be reached, a bug) stops
  // the run: no other topic is started, and the topics in flight finish first, so no call
  // is still being sent or answered once the run has failed.
  let stopped: { error: unknown } | undefined;
  const worker = async () => {
    while (next < topics.length && !stopped) {
      const topic = topics[next++]!;
      if (stoppedForBudget) {
        unfinished.push(topic.id);
        continue;
      }
      try {
        await runTopic(topic);
      } catch (error) {
        if (error instanceof BudgetExceededError) {
          stoppedForBudget = true;
          unfinished.push(topic.id);
          continue;
        }
        if (error instanceof MissingCandidatesError) notInFirstStage.add(topic.id);
        else {
          const reason = topicFailure(error);
          if (reason === undefined) {
            stopped ??= { error };
            return;
          }
          failures.push({ topic: topic.id, reason });
          trace.push({ topic: topic.id, method: options.method, step: 'failed', text: reason });
        }
      }
      options.onProgress?.(++done, topics.length, spend);
    }
  };
  const concurrency = Math.max(1, options.concurrency ?? 4);
  await Promise.all(Array.from({ length: Math.min(concurrency, topics.length) }, worker));
  if (stopped) throw stopped.error;

  // Topics in input order, whatever order they finished in.
  const out = new Map<string, RunEntry[]>();
  for (const topic of topics) {
    const docs = results.get(topic.id);
    if (docs)
      out.set(
        topic.id,
        docs.map((d, r) => ({ docno: d.docno, rank: r + 1, score: d.score })),
      );
  }
  const order = new Map(topics.map((t, i) => [t.id, i]));
  const byTopic = (a: { topic: string }, b: { topic: string }) =>
    order.get(a.topic)! - order.get(b.topic)!;
  trace.sort(byTopic);
  failures.sort(byTopic);
  unfinished.sort((a, b) => order.get(a)! - order.get(b)!);
  const p = parameters();
  const routeCounts: Record<string, number> = {};
  if (routes.size > 0) {
    p.routes = topics
      .filter((t) => routes.has(t.id))
      .map((t) => `${t.id}:${routes.get(t.id)!}`)
      .join(' ');
    for (const t of topics) {
      const route = routes.get(t.id);
      if (route !== undefined) routeCounts[route] = (routeCounts[route] ?? 0) + 1;
    }
  }
  const failed = new Map(failures.map((f) => [f.topic, f.reason]));
  const notRun = new Set(unfinished);
  const missing: MissingTopic[] = [];
  for (const t of topics) {
    if ((out.get(t.id)?.length ?? 0) > 0) continue;
    missing.push({
      topic: t.id,
      reason: failed.has(t.id)
        ? `failed: ${failed.get(t.id)}`
        : notRun.has(t.id)
          ? BUDGET_REASON
          : notInFirstStage.has(t.id)
            ? `not in the first-stage run ${resources.firstStage!.name}`
            : 'no document was found',
    });
  }
  return {
    run: { name: options.tag ?? options.method, topics: out },
    parameters: p,
    trace,
    failures,
    answers: topics
      .filter((t) => answers.has(t.id))
      .map((t) => ({
        topic: t.id,
        ...answers.get(t.id)!,
        ...(routes.has(t.id) ? { route: routes.get(t.id)! } : {}),
      })),
    unfinished,
    stoppedForBudget,
    missing,
    routes: routeCounts,
    warnings: warningsOf(p),
    spend,
  };
}

const BUDGET_REASON = 'not run: the budget was reached';

function warningsOf(p: Record<string, string | number>): string[] {
  return Object.entries(p)
    .filter(([key]) => key === 'warning' || key.startsWith('warning.'))
    .map(([, value]) => String(value));
}

/**
 * The dense index of a collection: each document's `title text` embedded (cached), searched
 * by exact cosine or, with `denseIndex: 'hnsw'`, through an HNSW graph (kept in the cache
 * folder, so a second run over the same vectors reads it instead of building it).
 */
async function buildDenseIndex(
  embeddings: NonNullable<MethodContext['embeddings']>,
  documents: readonly { id: string; title?: string; text: string }[],
  settings: Readonly<Record<string, unknown>>,
): Promise<DenseSearcher> {
  const texts = documents.map((d) => embeddings.passagePrefix + documentText(d));
  const vectors = await embeddings.client.embed(embeddings.model, texts);
  const exact = new DenseIndex(
    documents.map((d) => d.id),
    vectors,
  );
  if (settings.denseIndex !== 'hnsw') return exact;
  return cachedHnswIndex(exact, {
    m: settings.hnswM as number,
    efConstruction: settings.hnswEfConstruction as number,
    efSearch: settings.hnswEfSearch as number,
  });
}

function modelNames(
  resources: ModelResources,
  embeds: boolean,
): Parameters<typeof modelMethodParameters>[3] {
  const names: Parameters<typeof modelMethodParameters>[3] = {};
  if (resources.reranker) names.reranker = resources.reranker.name;
  if (resources.chat) names.model = resources.chat.model;
  if (resources.steps) names.steps = resources.steps;
  if (resources.embeddings && embeds) {
    names.embeddingModel = resources.embeddings.model;
    if (resources.embeddings.queryPrefix) names.queryPrefix = resources.embeddings.queryPrefix;
    if (resources.embeddings.passagePrefix)
      names.passagePrefix = resources.embeddings.passagePrefix;
  }
  return names;
}

/** Why a topic failed, for failures that belong to the topic (others are bugs: rethrown). */
function topicFailure(error: unknown): string | undefined {
  if (error instanceof UnusableAnswerError) return error.message;
  if (error instanceof LlmHttpError) return `embeddings or rerank call failed: ${error.message}`;
  if (error instanceof ChatCallError) return `chat call failed: ${error.message}`;
  return undefined;
}
