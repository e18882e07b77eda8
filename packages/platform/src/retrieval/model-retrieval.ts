import {
  createResponseSet,
  deleteResponseSet,
  findResponseSetByName,
  findRunByName,
  insertResponses,
  insertRunTrace,
  listDocuments,
  type Collection,
  type JsonObject,
  type Queryable,
  type Topic,
} from '@assay/db';
import {
  firstStageOf,
  isModelMethod,
  MODEL_METHODS,
  readsTermVectors,
  retrieveWithModels,
  SettingsError,
  type FirstStage,
  type MethodTopic,
  type ModelResources,
  type ModelRun,
} from '@assay/methods';
import { storedCollectionDiskIndex } from './disk-index.js';
import type { AssayConfig } from '../core/config.js';
import { writeInCollection } from '../catalog/collection-writes.js';
import { PlatformError, writing } from '../core/errors.js';
import {
  MODEL_REQUEST_FIELDS,
  methodPrompts,
  modelResources,
  prepareModelRetrieval,
  type ModelRetrievalRequest,
} from '../llm/model-resources.js';
import { createRunUnderName } from '../catalog/run-under-name.js';
import { checkNewName } from '../core/names.js';
import { resolveCollection, resolveRun, type CollectionRef } from '../core/resolve.js';
import { readTrecRun } from '../catalog/runs.js';
import {
  collectionIndex,
  describeRetrieval,
  refuseUnstorable,
  selectTopics,
  runInBackground,
  type RetrieveJob,
  type RetrieveProgress,
  type RetrieveStoredRunResult,
} from './retrieval-runs.js';
import { ASSAY_VERSION } from '../core/version.js';

/** A retrieval with a method that calls models, over a stored collection. */
export interface RetrieveStoredModelRunInput extends ModelRetrievalRequest {
  collection: CollectionRef;
  /** Run name and tag (and the name of the response set of a method that answers). */
  tag: string;
  /** Documents per topic and BM25's k1 and b. */
  params?: { k?: number; k1?: number; b?: number };
  /** Only these stored topics (default: every topic of the collection). */
  topics?: string[];
  /** Replace a run (and response set) of the same name (otherwise conflict). */
  replace?: boolean;
  /** Store the run only when every topic has results (invalid_input naming those without). */
  strict?: boolean;
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
  /** Topics per route, for methods that route (srsa). */
  routes?: Record<string, number>;
  /** How the run departs from the paper's method (also in its parameters). */
  warnings?: string[];
  /** Calls sent this time (stored answers are not sent again), tokens and USD. */
  /** Calls sent (failed ones among them), tokens, USD paid: null when a model has no price (unknown). */
  spend: { calls: number; failedCalls: number; tokens: number; costUsd: number | null };
}

export { isModelMethod };

/** How the API names a request's fields in messages: `"model"`, `"settings.rounds"`. */
const apiSpelling = (key: string): string =>
  TOP_LEVEL.has(key) ? `"${key}"` : `"settings.${key}"`;

const TOP_LEVEL = new Set<string>(MODEL_REQUEST_FIELDS);

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
  const { name, prepared } = checkModelRetrieval(config, input);
  const collection = await resolveCollection(db, input.collection);
  const taken = `run "${name}" already exists in collection "${collection.name}"; use replace to overwrite it`;
  if (!input.replace && (await findRunByName(db, collection.id, name)))
    throw new PlatformError('conflict', taken);
  const stored = await selectTopics(db, collection, input.topics);
  const firstStage = await readFirstStage(
    db,
    collection,
    prepared.settings.firstStage as string | undefined,
    stored,
  );
  const report = input.onProgress;
  // The collection's on-disk index when one was built (checked against its documents),
  // unless the method reads term vectors; else the index in memory, built on first use.
  // In use until the run is stored: a rebuild meanwhile closes it once released.
  const disk = await storedCollectionDiskIndex(db, config.dataDir, collection);
  try {
    const index =
      disk && !readsTermVectors(input.method, prepared.settings, { embeddings: prepared.embeds })
        ? disk.index
        : await collectionIndex(db, collection, (done, total) =>
            report?.({ phase: 'indexing', done, total }),
          );
    const resources = modelResources(prepared, {
      ...(firstStage ? { firstStage } : {}),
      index,
      prompts: methodPrompts(input.method, prepared.settings),
      db,
      ...(prepared.needs.documentText || prepared.embeds
        ? { documents: await collectionDocuments(db, collection) }
        : {}),
    });

    report?.({ phase: 'retrieving', done: 0, total: stored.length });
    const result = await runModelMethod(stored, resources, input, name);
    refuseUnstorable(input.method, stored.length, result.missing, {
      strict: input.strict ?? false,
      stoppedForBudget: result.stoppedForBudget,
    });
    return storeModelRun(
      db,
      collection,
      input,
      { name, taken, topicsAsked: stored.length },
      result,
    );
  } finally {
    disk?.release();
  }
}

/** The first stage: a stored run of the collection (by id or name), read for the topics asked. */
async function readFirstStage(
  db: Queryable,
  collection: Collection,
  ref: string | undefined,
  topics: readonly Topic[],
): Promise<FirstStage | undefined> {
  if (ref === undefined) return undefined;
  const run = await resolveRun(db, collection, ref);
  return firstStageOf(
    `"${run.name}"`,
    await readTrecRun(
      db,
      run,
      topics.map((t) => t.topicId),
    ),
  );
}

/** The method run over the topics; settings it refuses and failing endpoints are invalid_input. */
async function runModelMethod(
  topics: readonly Topic[],
  resources: ModelResources,
  input: RetrieveStoredModelRunInput,
  name: string,
): Promise<ModelRun> {
  const report = input.onProgress;
  try {
    return await retrieveWithModels(topics.map(methodTopic), resources, {
      method: input.method,
      settings: input.settings ?? {},
      tag: name,
      ...(input.params?.k !== undefined ? { k: input.params.k } : {}),
      ...(input.params?.k1 !== undefined || input.params?.b !== undefined
        ? {
            bm25: {
              ...(input.params.k1 === undefined ? {} : { k1: input.params.k1 }),
              ...(input.params.b === undefined ? {} : { b: input.params.b }),
            },
          }
        : {}),
      ...(input.budgetUsd !== undefined ? { budgetUsd: input.budgetUsd } : {}),
      onProgress: (done, total) => report?.({ phase: 'retrieving', done, total }),
    });
  } catch (error) {
    // Settings the method refuses, or an endpoint that fails outside any one topic.
    if (error instanceof SettingsError)
      throw new PlatformError('invalid_input', `${input.method}: ${error.message}`);
    throw new PlatformError('invalid_input', `${input.method}: ${(error as Error).message}`);
  }
}

/**
 * Stores a method's run under `name` (replacing one when asked) with its trace and, when it
 * answered, the response set of its answers, in one transaction of the collection.
 */
function storeModelRun(
  db: Queryable,
  collection: Collection,
  input: RetrieveStoredModelRunInput,
  run: { name: string; taken: string; topicsAsked: number },
  result: ModelRun,
): Promise<RetrieveStoredModelRunResult> {
  const { name, taken } = run;
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
  input.onProgress?.({ phase: 'storing', done: 0, total: entries.length });
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
        const out: RetrieveStoredModelRunResult = {
          runId: created.id,
          name: created.name,
          entries: created.entryCount,
          topics: created.topicCount,
          replaced,
          parameters,
          traceEntries,
          failures: result.failures,
          unfinished: result.unfinished,
          topicsAsked: run.topicsAsked,
          missing: result.missing,
          ...(Object.keys(result.routes).length ? { routes: result.routes } : {}),
          ...(result.warnings.length ? { warnings: result.warnings } : {}),
          spend: {
            calls: s.calls,
            failedCalls: s.failedCalls,
            tokens: s.promptTokens + s.completionTokens,
            costUsd: s.unpricedCalls > 0 ? null : s.costUsd,
          },
        };
        if (result.answers.length > 0)
          out.responseSet = await storeAnswers(trx, name, input, collection, result.answers);
        return out;
      }),
    taken,
  );
}

/**
 * Checks what can be checked before anything is read: a known method, a usable tag, the
 * method's settings, the models it needs, prices for a budget, and a configured endpoint.
 * Returns the trimmed tag and the prepared request.
 */
export function checkModelRetrieval(
  config: AssayConfig,
  input: Omit<RetrieveStoredModelRunInput, 'collection' | 'onProgress'>,
): { name: string; prepared: ReturnType<typeof prepareModelRetrieval> } {
  if (!isModelMethod(input.method))
    throw new PlatformError(
      'invalid_input',
      `method must be one of ${MODEL_METHODS.join(', ')}, not "${input.method}"`,
    );
  const name = checkNewName(input.tag, 'tag');
  if (/\s/.test(name)) throw new PlatformError('invalid_input', 'the tag must be without spaces');
  const prepared = prepareModelRetrieval(config, input, {
    spell: apiSpelling,
    requireEndpoint: true,
    endpointHint:
      'for the server; ASSAY_EMBEDDING_BASE_URL and ASSAY_RERANK_BASE_URL name endpoints of their own',
  });
  return { name, prepared };
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
  answers: Array<{ topic: string; text: string; references: string[]; route?: string }>,
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
    provenance: {
      method: input.method,
      collection: collection.name,
      run: name,
      ...(answers.some((a) => a.route !== undefined)
        ? { routes: Object.fromEntries(answers.map((a) => [a.topic, a.route ?? null])) }
        : {}),
    },
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

/**
 * Checks a retrieval with models and runs it in the background (see `getRetrieveJob`):
 * calls to models take long, so the API starts these as jobs.
 */
export async function startModelRetrieveJob(
  db: Queryable,
  config: AssayConfig,
  input: Omit<RetrieveStoredModelRunInput, 'onProgress'>,
): Promise<RetrieveJob> {
  const { name } = checkModelRetrieval(config, input);
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
