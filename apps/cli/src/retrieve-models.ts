import { DEFAULT_PRICES, loadMethodPrompts, type MethodPrompt, OpenAIChatClient } from '@assay/llm';
import {
  defaultMethodsDir,
  estimateModelRun,
  formatTrace,
  needsChat,
  needsDocumentText,
  needsEmbeddings,
  rerankerFor,
  retrieveWithModels,
  type AmdAggregation,
  type MethodTopic,
  type ModelMethod,
  type ModelResources,
  type ModelRetrieveOptions,
} from '@assay/methods';
import { DbCallStore } from '@assay/platform';
import { runHeader, type Bm25Index } from '@assay/retrieval';
import { formatRun, type CollectionDocument } from '@assay/trec';
import { UsageError } from './getopt.js';
import { CliError } from './io.js';
import { commandConfig, withDatabase, type PlatformCommandIo } from './platform-session.js';
import { formatCost, ProgressReporter } from './progress.js';
import { ASSAY_CLI_VERSION } from './retrieval-inputs.js';
import { writeAtomically } from './write-atomically.js';

/** What `assay retrieve` read for a method that calls models. */
export interface ModelRetrieveInput {
  method: ModelMethod;
  index: Bm25Index;
  topics: MethodTopic[];
  topicsFile: string;
  source: Record<string, string>;
  documents?: CollectionDocument[];
  out: string;
  model?: string;
  embeddingModel?: string;
  baseUrl?: string;
  methodsDir?: string;
  /** Where to write the answers of a method that answers (JSONL). */
  answersFile?: string;
  /** The cross-encoder's model (`--reranker cross-encoder`). */
  rerankerModel?: string;
  dryRun: boolean;
  options: ModelRetrieveOptions;
}

/** Exit status of a run written with failed or unfinished topics. */
export const EXIT_INCOMPLETE = 5;

/**
 * `assay retrieve` for the methods with models: checks the models and prompts,
 * estimates (`--dry-run`) or runs with every call kept in the database's call store, and
 * writes the run with a JSONL trace of every generated text beside it (`RUN.trace.jsonl`),
 * and the answers of methods that answer with `--answers FILE`.
 */
export async function retrieveWithModelsCommand(
  input: ModelRetrieveInput,
  io: PlatformCommandIo & { stderrIsTTY?: boolean },
): Promise<number> {
  const { method, options } = input;
  checkModelArguments(options, {
    hasDocs: input.documents !== undefined,
    ...(input.model ? { model: input.model } : {}),
    ...(input.embeddingModel ? { embeddingModel: input.embeddingModel } : {}),
  });
  const embeds = needsEmbeddings(options);
  let prompts: Map<string, MethodPrompt>;
  try {
    prompts = loadMethodPrompts(input.methodsDir ?? defaultMethodsDir());
  } catch (error) {
    throw new CliError(`cannot read method prompts: ${(error as Error).message}`, 2);
  }

  if (input.dryRun) {
    const e = estimateModelRun(input.topics, prompts, {
      ...options,
      ...(input.model ? { model: input.model } : {}),
      ...(input.embeddingModel ? { embeddingModel: input.embeddingModel } : {}),
      ...(input.documents ? { documents: input.documents } : {}),
    });
    io.stdout(
      `dry run: ${method} over ${input.topics.length} topic${input.topics.length === 1 ? '' : 's'}\n` +
        `  chat calls: at most ${e.chatCalls} (${e.promptTokens} prompt + at most ${e.completionTokens} completion tokens)\n` +
        `  embeddings: at most ${e.embeddedTexts} texts in ${e.embeddingRequests} requests (about ${e.embeddingTokens} tokens)\n` +
        `  estimated cost: ${e.costUsd === undefined ? 'unknown (a model has no price)' : `at most $${e.costUsd.toFixed(4)}`}\n` +
        (options.reranker === 'cross-encoder'
          ? `  rerank requests (${input.rerankerModel}) are not counted or priced.\n`
          : '') +
        `  answers already stored are not sent again, so a rerun costs less.\nnothing was sent.\n`,
    );
    return 0;
  }
  if (options.budgetUsd !== undefined) {
    for (const model of [
      ...(needsChat(options) ? [input.model!] : []),
      ...(embeds ? [input.embeddingModel!] : []),
      ...(input.rerankerModel ? [input.rerankerModel] : []),
    ])
      if (!DEFAULT_PRICES[model])
        throw new UsageError(`--budget needs the price of ${model}, which assay does not know`);
  }
  const config = await commandConfig(io);
  const baseURL = input.baseUrl ?? config.openaiBaseUrl;
  if (!baseURL && !config.openaiApiKey)
    throw new UsageError(
      'set OPENAI_API_KEY (and OPENAI_BASE_URL or --base-url for other endpoints)',
    );
  const endpoint = {
    ...(baseURL ? { baseURL } : {}),
    ...(config.openaiApiKey ? { apiKey: config.openaiApiKey } : {}),
  };

  return withDatabase(io, async (db) => {
    const resources: ModelResources = {
      index: input.index,
      prompts,
      deps: { store: new DbCallStore(db) },
    };
    if (needsChat(options))
      resources.chat = { client: new OpenAIChatClient(endpoint), model: input.model! };
    if (embeds) resources.embeddings = { endpoint, model: input.embeddingModel! };
    if (input.documents) resources.documents = input.documents;
    const reranker = rerankerFor(options, endpoint, resources.chat, input.rerankerModel);
    if (reranker) resources.reranker = reranker;
    const progress = new ProgressReporter({
      label: 'retrieving',
      total: input.topics.length,
      write: io.stderr,
      tty: io.stderrIsTTY ?? process.stderr.isTTY === true,
      unit: 'queries',
    });
    let result;
    try {
      result = await retrieveWithModels(input.topics, resources, {
        ...options,
        onProgress: (done, _total, spend) =>
          progress.update({
            done,
            doneThisRun: done,
            failed: 0,
            tokens: spend.promptTokens + spend.completionTokens,
            costUsd: spend.costUsd,
            unpricedCalls: spend.unpricedCalls,
          }),
      });
    } catch (error) {
      throw new CliError(`${method}: ${(error as Error).message}`, 1);
    } finally {
      progress.finish();
    }
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
    });
    writeAtomically(traceFile, formatTrace(result.trace));
    writeAtomically(input.out, header + formatRun(result.run));
    if (input.answersFile !== undefined)
      writeAtomically(
        input.answersFile,
        result.answers
          .map(
            (a) =>
              `${JSON.stringify({ topic: a.topic, system: result.run.name, answer: a.text, references: a.references })}\n`,
          )
          .join(''),
      );
    let entries = 0;
    for (const list of result.run.topics.values()) entries += list.length;
    const s = result.spend;
    io.stderr(
      `wrote ${input.out}: ${entries} entries for ${result.run.topics.size} topics (${method}); trace in ${traceFile}\n` +
        `  calls sent: ${s.calls}${s.failedCalls ? ` (${s.failedCalls} failed)` : ''}, ${s.promptTokens + s.completionTokens} tokens, ${formatCost(s.costUsd, s.unpricedCalls)}; stored answers reused for the rest\n`,
    );
    for (const f of result.failures) io.stderr(`  topic ${f.topic} failed: ${f.reason}\n`);
    if (result.stoppedForBudget)
      io.stderr(
        `  budget of $${options.budgetUsd} reached: ${result.unfinished.length} topics unfinished; run the same command with a larger --budget to finish (stored answers are reused)\n`,
      );
    return result.failures.length || result.stoppedForBudget ? EXIT_INCOMPLETE : 0;
  });
}

/**
 * The models and inputs a method needs, checked before anything is read or indexed:
 * a chat model, an embeddings model, and the documents' text for dense retrieval and for
 * methods that read passages.
 */
export function checkModelArguments(
  options: ModelRetrieveOptions,
  input: { model?: string; embeddingModel?: string; hasDocs: boolean },
): void {
  const { method, aggregation } = options;
  if (needsChat(options) && !input.model) throw new UsageError(`--method ${method} needs --model`);
  if (needsEmbeddings(options) && !input.embeddingModel)
    throw new UsageError(
      `--method ${method}${aggregation ? ` --aggregation ${aggregation}` : ''} needs --embedding-model`,
    );
  if (needsDocumentText(options) && !input.hasDocs)
    throw new UsageError(
      `--method ${method} reads the documents' text: give --docs FILE, not --index`,
    );
}

/** `--aggregation`, checked against the method. */
export function aggregationOption(
  method: string,
  value: string | undefined,
): AmdAggregation | undefined {
  if (value === undefined) return undefined;
  const allowed =
    method === 'amd'
      ? ['sparse', 'dense', 'rrf']
      : method === 'query2doc'
        ? ['sparse', 'dense']
        : [];
  if (allowed.length === 0)
    throw new UsageError(`--aggregation applies to amd and query2doc, not ${method}`);
  if (!allowed.includes(value))
    throw new UsageError(
      `--aggregation for ${method} must be one of ${allowed.join(', ')}, not '${value}'`,
    );
  return value as AmdAggregation;
}
