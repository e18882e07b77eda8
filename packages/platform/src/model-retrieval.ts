import {
  createResponseSet,
  deleteResponseSet,
  findResponseSetByName,
  findRunByName,
  insertResponses,
  insertRunTrace,
  listDocuments,
  listTopics,
  type Collection,
  type JsonObject,
  type Queryable,
  type Topic,
} from '@assay/db';
import { loadMethodPrompts, OpenAIChatClient, type MethodPrompt } from '@assay/llm';
import {
  defaultMethodsDir,
  MODEL_METHODS,
  needsChat,
  needsDocumentText,
  needsEmbeddings,
  rerankerFor,
  retrieveWithModels,
  type MethodTopic,
  type ModelMethod,
  type ModelResources,
  type ModelRetrieveOptions,
} from '@assay/methods';
import { DbCallStore } from './call-store.js';
import type { AssayConfig } from './config.js';
import { writeInCollection } from './collection-writes.js';
import { PlatformError, writing } from './errors.js';
import { createRunUnderName } from './run-under-name.js';
import { checkNewName } from './names.js';
import { loadPrices } from './prices.js';
import { resolveCollection, type CollectionRef } from './resolve.js';
import {
  collectionIndex,
  describeRetrieval,
  runInBackground,
  type RetrieveJob,
  type RetrieveProgress,
  type RetrieveStoredRunResult,
} from './retrieval-runs.js';
import { ASSAY_VERSION } from './version.js';

/** A method's own settings, as a request gives them (see `ModelRetrieveOptions`). */
export type ModelMethodSettings = Omit<
  ModelRetrieveOptions,
  'method' | 'tag' | 'onProgress' | 'concurrency'
>;

/** A retrieval with a method that calls models, over a stored collection. */
export interface RetrieveStoredModelRunInput {
  collection: CollectionRef;
  method: ModelMethod;
  /** Run name and tag (and the name of the response set of a method that answers). */
  tag: string;
  /** The chat model (methods that call one). */
  model?: string;
  /** The embeddings model (dense methods and aggregations). */
  embeddingModel?: string;
  /** The cross-encoder's model (`settings.reranker: "cross-encoder"`). */
  rerankerModel?: string;
  settings?: ModelMethodSettings;
  /** Only these stored topics (default: every topic of the collection). */
  topics?: string[];
  /** Replace a run (and response set) of the same name (otherwise conflict). */
  replace?: boolean;
  onProgress?: (progress: RetrieveProgress) => void;
}

/** What a retrieval with models produced and stored. */
export interface RetrieveStoredModelRunResult extends RetrieveStoredRunResult {
  /** Trace entries stored with the run. */
  traceEntries: number;
  /** The response set holding the answers, for methods that answer. */
  responseSet?: { id: number; name: string; answers: number };
  /** Topics that failed, with the reason (they have no entries). */
  failures: Array<{ topic: string; reason: string }>;
  /** Topics not finished because the budget was reached. */
  unfinished: string[];
  /** Calls sent this time (stored answers are not sent again), tokens and USD. */
  spend: { calls: number; failedCalls: number; tokens: number; costUsd: number };
}

/** Whether `method` names a retrieval method that calls models. */
export function isModelMethod(method: string): method is ModelMethod {
  return (MODEL_METHODS as readonly string[]).includes(method);
}

/**
 * Retrieves from a stored collection with a method that calls models (query2doc, amd,
 * dense, hybrid …) and stores the run with its trace (every generated text) and, for
 * methods that answer, a response set of the answers under the same name. Every call goes
 * through the database's call store, so running the same retrieval again sends no request.
 * Topics that fail keep no entries and are listed; when none succeeds nothing is stored.
 */
export async function retrieveStoredModelRun(
  db: Queryable,
  config: AssayConfig,
  input: RetrieveStoredModelRunInput,
): Promise<RetrieveStoredModelRunResult> {
  const name = checkModelRetrieval(config, input);
  const collection = await resolveCollection(db, input.collection);
  const taken = `run "${name}" already exists in collection "${collection.name}"; use replace to overwrite it`;
  if (!input.replace && (await findRunByName(db, collection.id, name)))
    throw new PlatformError('conflict', taken);
  const options: ModelRetrieveOptions = { ...input.settings, method: input.method, tag: name };
  const stored = await selectTopics(db, collection, input.topics);
  const report = input.onProgress;
  const index = await collectionIndex(db, collection, (done, total) =>
    report?.({ phase: 'indexing', done, total }),
  );
  const resources: ModelResources = {
    index,
    prompts: methodPrompts(),
    deps: { store: new DbCallStore(db), prices: loadPrices(config) },
  };
  const endpoint = {
    ...(config.openaiBaseUrl ? { baseURL: config.openaiBaseUrl } : {}),
    ...(config.openaiApiKey ? { apiKey: config.openaiApiKey } : {}),
  };
  if (needsChat(options))
    resources.chat = { client: new OpenAIChatClient(endpoint), model: input.model! };
  if (needsEmbeddings(options)) resources.embeddings = { endpoint, model: input.embeddingModel! };
  if (needsDocumentText(options)) resources.documents = await collectionDocuments(db, collection);
  const reranker = rerankerFor(options, endpoint, resources.chat, input.rerankerModel);
  if (reranker) resources.reranker = reranker;

  let result;
  try {
    result = await retrieveWithModels(stored.map(methodTopic), resources, {
      ...options,
      onProgress: (done, total) => report?.({ phase: 'retrieving', done, total }),
    });
  } catch (error) {
    // Settings the method refuses, or an endpoint that fails outside any one topic.
    throw new PlatformError('invalid_input', `${input.method}: ${(error as Error).message}`);
  }
  if (result.run.topics.size === 0)
    throw new PlatformError(
      'invalid_input',
      result.stoppedForBudget
        ? `${input.method}: the budget was reached before any topic was finished; nothing was stored`
        : `${input.method}: every topic failed (${result.failures[0]?.reason ?? 'no result'}); nothing was stored`,
      { failures: result.failures.slice(0, 20) },
    );

  const parameters: Record<string, string | number> = {
    ...result.parameters,
    assay: ASSAY_VERSION,
  };
  const entries: { topicId: string; docId: string; rank: number; score: number }[] = [];
  for (const [topicId, list] of result.run.topics)
    for (const e of list) entries.push({ topicId, docId: e.docno, rank: e.rank, score: e.score });
  const trace = result.trace.map((entry) => ({
    topicId: entry.topic,
    step: entry.step,
    entry: entry as unknown as JsonObject,
  }));
  report?.({ phase: 'storing', done: 0, total: entries.length });
  const s = result.spend;
  return writing(
    () =>
      writeInCollection(db, collection, async (trx) => {
        const { created, replaced } = await createRunUnderName(
          trx,
          {
            collectionId: collection.id,
            name,
            tag: name,
            description: describeRetrieval(parameters),
            entries,
          },
          { replace: input.replace, taken },
        );
        const traceEntries = await insertRunTrace(trx, created.id, trace);
        const stored: RetrieveStoredModelRunResult = {
          runId: created.id,
          name: created.name,
          entries: created.entryCount,
          topics: created.topicCount,
          replaced,
          parameters,
          traceEntries,
          failures: result.failures,
          unfinished: result.unfinished,
          spend: {
            calls: s.calls,
            failedCalls: s.failedCalls,
            tokens: s.promptTokens + s.completionTokens,
            costUsd: s.costUsd,
          },
        };
        if (result.answers.length > 0)
          stored.responseSet = await storeAnswers(trx, name, input, collection, result.answers);
        return stored;
      }),
    taken,
  );
}

/**
 * Checks what can be checked before anything is read: a known method, a usable tag, the
 * models the method needs, and a configured endpoint. Returns the trimmed tag.
 */
export function checkModelRetrieval(
  config: AssayConfig,
  input: Pick<
    RetrieveStoredModelRunInput,
    'method' | 'tag' | 'model' | 'embeddingModel' | 'rerankerModel' | 'settings'
  >,
): string {
  if (!isModelMethod(input.method))
    throw new PlatformError(
      'invalid_input',
      `method must be one of ${MODEL_METHODS.join(', ')}, not "${input.method}"`,
    );
  const name = checkNewName(input.tag, 'tag');
  if (/\s/.test(name)) throw new PlatformError('invalid_input', 'the tag must be without spaces');
  const options: ModelRetrieveOptions = { ...input.settings, method: input.method };
  if (needsChat(options) && !input.model)
    throw new PlatformError(
      'invalid_input',
      `${input.method}${options.reranker === 'rankgpt' ? ' with the rankgpt reranker' : ''} needs a chat model ("model")`,
    );
  if (options.reranker === 'cross-encoder' && !input.rerankerModel)
    throw new PlatformError(
      'invalid_input',
      'the cross-encoder reranker needs its model ("rerankerModel")',
    );
  if (input.method === 'rerank' && !options.reranker)
    throw new PlatformError(
      'invalid_input',
      'rerank needs a reranker (settings.reranker: "cross-encoder" or "rankgpt")',
    );
  if (needsEmbeddings(options) && !input.embeddingModel)
    throw new PlatformError(
      'invalid_input',
      `${input.method}${options.aggregation ? ` with ${options.aggregation} aggregation` : ''} needs an embeddings model ("embeddingModel")`,
    );
  if (!config.openaiBaseUrl && !config.openaiApiKey)
    throw new PlatformError(
      'invalid_input',
      `${input.method} calls models, and no endpoint is configured: set OPENAI_BASE_URL (and OPENAI_API_KEY) for the server`,
    );
  return name;
}

async function selectTopics(
  db: Queryable,
  collection: Collection,
  ids: string[] | undefined,
): Promise<Topic[]> {
  let stored = await listTopics(db, collection.id);
  if (ids) {
    const byId = new Map(stored.map((t) => [t.topicId, t]));
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length > 0)
      throw new PlatformError(
        'invalid_input',
        `no topic ${missing
          .slice(0, 5)
          .map((m) => `"${m}"`)
          .join(', ')} in collection "${collection.name}"`,
      );
    stored = ids.map((id) => byId.get(id)!);
  }
  if (stored.length === 0)
    throw new PlatformError('invalid_input', `collection "${collection.name}" has no topics`);
  return stored;
}

/** A stored topic as methods see it: the query and its conversational context. */
function methodTopic(topic: Topic): MethodTopic {
  const t: MethodTopic = { id: topic.topicId, text: topic.query };
  if (topic.context?.previousTurns?.length) t.previousTurns = topic.context.previousTurns;
  if (topic.context?.userBackground?.length) t.userBackground = topic.context.userBackground;
  return t;
}

async function collectionDocuments(
  db: Queryable,
  collection: Collection,
): Promise<{ id: string; title?: string; text: string }[]> {
  const docs: { id: string; title?: string; text: string }[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listDocuments(db, collection.id, {
      limit: 10_000,
      ...(after === undefined ? {} : { after }),
    });
    for (const d of page)
      docs.push({ id: d.docId, text: d.text, ...(d.title ? { title: d.title } : {}) });
    if (page.length < 10_000) return docs;
    after = page.at(-1)!.docId;
  }
}

async function storeAnswers(
  trx: Queryable,
  name: string,
  input: RetrieveStoredModelRunInput,
  collection: Collection,
  answers: Array<{ topic: string; text: string; references: string[] }>,
): Promise<{ id: number; name: string; answers: number }> {
  const existing = await findResponseSetByName(trx, name);
  if (existing) {
    if (!input.replace)
      throw new PlatformError(
        'conflict',
        `a response set named "${name}" exists; use replace to overwrite it`,
      );
    await deleteResponseSet(trx, existing.id);
  }
  const id = await createResponseSet(trx, {
    name,
    provenance: { method: input.method, collection: collection.name, run: name },
  });
  await insertResponses(
    trx,
    id,
    answers.map((a) => ({
      topicId: a.topic,
      system: name,
      answer: a.text,
      references: a.references,
    })),
  );
  return { id, name, answers: answers.length };
}

let prompts: Map<string, MethodPrompt> | undefined;

/** The shipped method prompts (read once). */
function methodPrompts(): Map<string, MethodPrompt> {
  prompts ??= loadMethodPrompts(defaultMethodsDir());
  return prompts;
}

/**
 * Checks a retrieval with models and runs it in the background (see `getRetrieveJob`):
 * calls to models take long, so the API starts these as jobs.
 */
export async function startModelRetrieveJob(
  db: Queryable,
  config: AssayConfig,
  input: Omit<RetrieveStoredModelRunInput, 'onProgress'>,
): Promise<RetrieveJob> {
  const name = checkModelRetrieval(config, input);
  const collection = await resolveCollection(db, input.collection);
  if (!input.replace && (await findRunByName(db, collection.id, name)))
    throw new PlatformError(
      'conflict',
      `run "${name}" already exists in collection "${collection.name}"; use replace to overwrite it`,
    );
  return runInBackground(collection.id, input.method, name, (onProgress) =>
    retrieveStoredModelRun(db, config, { ...input, collection: collection.id, onProgress }),
  );
}
