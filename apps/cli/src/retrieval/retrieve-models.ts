import type { MethodPrompt } from '@assay/llm';
import {
  estimateModelRun,
  formatTrace,
  MissingTextsError,
  SearchServiceError,
  retrieveWithModels,
  SettingsError,
  type FirstStage,
  type MethodTopic,
  type MissingTopic,
  type ModelResources,
  type ModelRetrieveOptions,
  type ModelRun,
} from '@assay/methods';
import {
  describeMissing,
  methodPrompts,
  modelResources,
  PlatformError,
  prepareModelRetrieval,
  type EndpointOverrides,
  type ModelRetrievalRequest,
  type PreparedModelRetrieval,
} from '@assay/platform';
import { runHeader, type Bm25Index, type DiskBm25Index } from '@assay/retrieval';
import { formatRun, type CollectionDocument } from '@assay/trec';
import { UsageError } from '../shell/getopt.js';
import { CliError } from '../shell/io.js';
import { EXIT } from '../shell/exit-codes.js';
import { commandConfig, withDatabase, type PlatformCommandIo } from '../shell/platform-session.js';
import { formatCost, ProgressReporter } from '../shell/progress.js';
import { ASSAY_CLI_VERSION } from './retrieval-inputs.js';
import { cliSpelling } from './retrieve-options.js';
import { writeAtomically } from '../shell/write-atomically.js';

/** A request checked by the platform, with the prompts it asks. */
export interface PreparedCommand {
  prepared: PreparedModelRetrieval;
  prompts: Map<string, MethodPrompt>;
}

/**
 * Checks `assay retrieve`'s request for a method with models through the platform (the
 * same checks as the API: settings, models, step settings, prices for a budget, endpoints
 * unless it is a dry run) and reads its prompts; a refusal is a usage error naming the flags.
 */
export async function prepareModelCommand(
  io: PlatformCommandIo,
  request: ModelRetrievalRequest,
  options: {
    dryRun: boolean;
    shown: (key: string, value: unknown) => string;
    overrides: EndpointOverrides;
    hasDocs: boolean;
    methodsDir: string | undefined;
  },
): Promise<PreparedCommand> {
  const config = await commandConfig(io);
  let prepared: PreparedModelRetrieval;
  try {
    prepared = prepareModelRetrieval(config, request, {
      spell: cliSpelling,
      shown: options.shown,
      overrides: options.overrides,
      requireEndpoint: !options.dryRun,
      endpointHint:
        'or give --base-url; ASSAY_EMBEDDING_BASE_URL, ASSAY_RERANK_BASE_URL or --embedding-base-url, --rerank-base-url name endpoints of their own',
    });
  } catch (error) {
    if (error instanceof PlatformError || error instanceof SettingsError)
      throw new UsageError(error.message);
    throw error;
  }
  // Texts come from --docs, or from the hits of a search service (not for embedding).
  const searchTexts = prepared.settings.search !== undefined && !prepared.embeds;
  if ((prepared.needs.documentText || prepared.embeds) && !options.hasDocs && !searchTexts)
    throw new UsageError(
      `--method ${request.method} reads the documents' text: give --docs FILE (alone, or with --index for the texts)`,
    );
  let prompts: Map<string, MethodPrompt>;
  try {
    prompts = methodPrompts(request.method, prepared.settings, options.methodsDir);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.invalidInput);
  }
  return { prepared, prompts };
}

/** What `assay retrieve` read for a method that calls models. */
export interface ModelRetrieveInput {
  prepared: PreparedCommand;
  /** The own index: loaded or built in memory, or on disk. */
  index: Bm25Index | DiskBm25Index;
  topics: MethodTopic[];
  topicsFile: string;
  source: Record<string, string>;
  documents?: CollectionDocument[];
  /** Each topic's candidates from `--first-stage RUN`. */
  firstStage?: FirstStage;
  out: string;
  /** Where to write the answers of a method that answers (JSONL). */
  answersFile?: string;
  /** A topic without results is an error (exit status 4). */
  strict: boolean;
  dryRun: boolean;
  options: ModelRetrieveOptions;
}

/**
 * The topics line of a summary, `results for 193 of 200 topics`, and the line naming each
 * topic without results and why (absent when every topic has results).
 */
export function topicsSummary(
  total: number,
  missing: readonly MissingTopic[],
): { line: string; missing?: string } {
  const line = `results for ${total - missing.length} of ${total} topic${total === 1 ? '' : 's'}`;
  return missing.length
    ? {
        line,
        missing: `  no results for ${missing.length} topic${missing.length === 1 ? '' : 's'}: ${describeMissing(missing)}`,
      }
    : { line };
}

/**
 * `assay retrieve` for the methods with models: estimates (`--dry-run`) or runs with every
 * call kept in the database's call store, and writes the run with a JSONL trace of every
 * generated text beside it (`RUN.trace.jsonl`), and the answers of methods that answer
 * with `--answers FILE`. The model clients, prices and prompts come from the platform, as
 * the API's do.
 */
export async function retrieveWithModelsCommand(
  input: ModelRetrieveInput,
  io: PlatformCommandIo & { stderrIsTTY?: boolean },
): Promise<number> {
  if (input.dryRun) return printEstimate(input, io);
  const { prepared, prompts } = input.prepared;
  return withDatabase(io, async (db) => {
    const resources = modelResources(prepared, {
      index: input.index,
      prompts,
      db,
      ...(input.documents ? { documents: input.documents } : {}),
      ...(input.firstStage ? { firstStage: input.firstStage } : {}),
    });
    const result = await runWithProgress(input, resources, io);
    for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
    const traceFile = writeModelRunFiles(input, result);
    return reportModelRun(input, result, traceFile, io);
  });
}

/** `--dry-run`: the calls, tokens and cost a run would take at most; nothing is sent. */
function printEstimate(input: ModelRetrieveInput, io: PlatformCommandIo): number {
  const { options } = input;
  const { prepared, prompts } = input.prepared;
  const { request } = prepared;
  const e = estimateModelRun(
    input.topics,
    prompts,
    {
      ...options,
      ...(request.model ? { model: request.model } : {}),
      ...(prepared.embeds ? { embeddingModel: request.embeddingModel! } : {}),
      steps: prepared.steps,
      ...(input.documents ? { documents: input.documents } : {}),
    },
    prepared.prices,
  );
  io.stdout(
    `dry run: ${options.method} over ${input.topics.length} topic${input.topics.length === 1 ? '' : 's'}\n` +
      `  chat calls: at most ${e.chatCalls} (${e.promptTokens} prompt + at most ${e.completionTokens} completion tokens)\n` +
      `  embeddings: at most ${e.embeddedTexts} texts in ${e.embeddingRequests} requests (about ${e.embeddingTokens} tokens)\n` +
      `  estimated cost: ${e.costUsd === undefined ? 'unknown (a model has no price)' : `at most $${e.costUsd.toFixed(4)}`}\n` +
      (prepared.settings.reranker === 'cross-encoder'
        ? `  rerank requests (${request.rerankerModel}) are not counted or priced.\n`
        : '') +
      `  answers already stored are not sent again, so a rerun costs less.\nnothing was sent.\n`,
  );
  return EXIT.ok;
}

/** The method run over the topics with a progress line on stderr; failures as CLI errors. */
async function runWithProgress(
  input: ModelRetrieveInput,
  resources: ModelResources,
  io: PlatformCommandIo & { stderrIsTTY?: boolean },
): Promise<ModelRun> {
  const method = input.options.method;
  const progress = new ProgressReporter({
    label: 'retrieving',
    total: input.topics.length,
    write: io.stderr,
    tty: io.stderrIsTTY ?? process.stderr.isTTY === true,
    unit: 'queries',
  });
  try {
    return await retrieveWithModels(input.topics, resources, {
      ...input.options,
      onProgress: (done, _total, spend) =>
        progress.update({
          done,
          doneThisRun: done,
          failed: 0,
          tokens: spend.promptTokens + spend.completionTokens,
          costUsd: spend.costUsd,
          unpricedCalls: spend.unpricedCalls,
          paidCalls: spend.calls - spend.failedCalls,
        }),
    });
  } catch (error) {
    // First-stage documents without text are bad input; a search service that fails is
    // named with its URL.
    if (error instanceof MissingTextsError)
      throw new CliError(`${method}: ${error.message}`, EXIT.invalidInput);
    if (error instanceof SearchServiceError) throw new CliError(error.message, EXIT.usage);
    throw new CliError(`${method}: ${(error as Error).message}`, EXIT.usage);
  } finally {
    progress.finish();
  }
}

/** Writes the trace, the run (its header naming the inputs) and the answers; returns the trace file. */
function writeModelRunFiles(input: ModelRetrieveInput, result: ModelRun): string {
  const traceFile = `${input.out}.trace.jsonl`;
  const header = runHeader(result.parameters, {
    'assay retrieve': ASSAY_CLI_VERSION,
    topics: input.topicsFile,
    ...input.source,
    trace: traceFile,
    ...(result.failures.length
      ? { 'failed topics': result.failures.map((f) => f.topic).join(' ') }
      : {}),
    ...(result.unfinished.length
      ? { 'unfinished topics (budget)': result.unfinished.join(' ') }
      : {}),
    ...(result.missing.length
      ? { 'topics without results': result.missing.map((m) => m.topic).join(' ') }
      : {}),
  });
  writeAtomically(traceFile, formatTrace(result.trace));
  writeAtomically(input.out, header + formatRun(result.run));
  if (input.answersFile !== undefined)
    writeAtomically(
      input.answersFile,
      result.answers
        .map(
          (a) =>
            `${JSON.stringify({ topic: a.topic, system: result.run.name, answer: a.text, references: a.references, ...(a.route ? { route: a.route } : {}) })}\n`,
        )
        .join(''),
    );
  return traceFile;
}

/** The summary on stderr (entries, topics, routes, answers, spend, failures) and the exit status. */
function reportModelRun(
  input: ModelRetrieveInput,
  result: ModelRun,
  traceFile: string,
  io: PlatformCommandIo,
): number {
  const { options } = input;
  let entries = 0;
  for (const list of result.run.topics.values()) entries += list.length;
  const s = result.spend;
  const topics = topicsSummary(input.topics.length, result.missing);
  const routes = Object.entries(result.routes);
  io.stderr(
    `wrote ${input.out}: ${entries} entries; ${topics.line} (${options.method}); trace in ${traceFile}\n` +
      (topics.missing ? `${topics.missing}\n` : '') +
      (routes.length ? `  routes: ${routes.map(([r, n]) => `${r} ${n}`).join(', ')}\n` : '') +
      (input.answersFile !== undefined
        ? `  answers: ${result.answers.length} of ${input.topics.length} topics in ${input.answersFile}\n`
        : '') +
      `  calls sent: ${s.calls}${s.failedCalls ? ` (${s.failedCalls} failed)` : ''}, ${s.promptTokens + s.completionTokens} tokens, ${formatCost(s.costUsd, s.unpricedCalls, s.calls - s.failedCalls)}; stored answers reused for the rest\n`,
  );
  for (const f of result.failures) io.stderr(`  topic ${f.topic} failed: ${f.reason}\n`);
  if (result.stoppedForBudget)
    io.stderr(
      `  budget of $${options.budgetUsd} reached: ${result.unfinished.length} topics unfinished; run the same command with a larger --budget to finish (stored answers are reused)\n`,
    );
  if (result.failures.length || result.stoppedForBudget) return EXIT.retrieveIncomplete;
  return input.strict && result.missing.length > 0 ? EXIT.missingTopic : EXIT.ok;
}
