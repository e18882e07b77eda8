import { renameSync, writeFileSync } from 'node:fs';
import {
  DiskBm25Index,
  IndexBuilder,
  isDiskIndexFile,
  loadIndex,
  RETRIEVAL_METHODS,
  retrieveDiskRun,
  retrieveRun,
  runHeader,
  type AnalyzerConfig,
  type Bm25Index,
  type Bm25Params,
  type RetrievalMethod,
  type RetrievedRun,
  type RetrieveOptions,
} from '@assay/retrieval';
import {
  firstStageOf,
  isModelMethod,
  METHOD_DEFINITIONS,
  methodsWithSetting,
  MODEL_METHODS,
  readsTermVectors,
  settingsCatalogue,
  valueFromText,
  type MethodTopic,
  type ModelMethod,
  type StepSettings,
} from '@assay/methods';
import type { ModelRetrievalRequest } from '@assay/platform';
import { formatRun, parseRun, type CollectionDocument } from '@assay/trec';
import { readText } from '../eval/evaluate-files.js';
import { getopt, type ParsedArgs, UsageError } from '../shell/getopt.js';
import { readDocuments } from '../shell/input-files.js';
import { CliError, type CommandIo } from '../shell/io.js';
import { EXIT } from '../shell/exit-codes.js';
import { indexDocuments } from './index-command.js';
import type { PlatformCommandIo } from '../shell/platform-session.js';
import { ProgressReporter } from '../shell/progress.js';
import {
  prepareModelCommand,
  retrieveWithModelsCommand,
  topicsSummary,
  type ModelRetrieveInput,
  type PreparedCommand,
} from './retrieve-models.js';
import {
  appliesTo,
  LEXICAL_USES,
  MODEL_OPTIONS,
  retrieveOptionSpecs,
  retrieveUsage,
} from './retrieve-options.js';
import { analyzerFrom, ASSAY_CLI_VERSION, readQueries } from './retrieval-inputs.js';

export const RETRIEVE_USAGE = retrieveUsage();

const OPTIONS = retrieveOptionSpecs();

/** Drops the undefined values (so defaults apply). */
function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

/** `--step-model STEP=VALUE` values, by step. */
function stepValues(flag: string, values: readonly string[]): Array<[string, string]> {
  return values.map((v) => {
    const at = v.indexOf('=');
    if (at <= 0 || at === v.length - 1)
      throw new UsageError(`${flag} needs STEP=VALUE (a prompt id, then its value), not '${v}'`);
    return [v.slice(0, at).trim(), v.slice(at + 1).trim()];
  });
}

/** A number as given, or the text when it is none (for the check to name). */
function numeric(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** What `assay retrieve` was asked for, checked: the method, the files, the run's own options. */
interface RetrieveArgs {
  parsed: ParsedArgs;
  method: string;
  /** Whether the method calls models (else it is one of the lexical methods). */
  withModels: boolean;
  docsFile: string | undefined;
  indexFile: string | undefined;
  topicsFile: string;
  out: string;
  k: number;
  bm25: Partial<Bm25Params>;
  tag: string;
  strict: boolean;
}

/** `assay retrieve`: a TREC run from a collection (or saved index) and topics. */
export async function retrieveCommand(
  argv: readonly string[],
  io: PlatformCommandIo & { stderrIsTTY?: boolean },
): Promise<number> {
  const parsed = getopt(argv, OPTIONS);
  if (parsed.has('h')) {
    io.stdout(`${RETRIEVE_USAGE}\n`);
    return 0;
  }
  const args = retrieveArgs(parsed);
  // Methods with models: the request checked (settings, models, prices, endpoints) before
  // any input is read, the same way the API checks it.
  const prepared = args.withModels ? await prepareModels(io, args) : undefined;
  const retrieveOptions = lexicalOptions(args);
  const analyzerGiven = parsed.has('stemmer') || parsed.has('stopwords');
  const analyzer = analyzerFrom(parsed.option('stemmer'), parsed.option('stopwords'));
  // Read and check every input before any work that takes long, and before writing.
  const topics = readQueries(args.topicsFile);
  if (args.indexFile !== undefined && isDiskIndexFile(args.indexFile))
    return retrieveFromDiskIndex(io, args, {
      indexFile: args.indexFile,
      prepared,
      topics,
      ...(analyzerGiven ? { analyzer } : {}),
    });
  let index: Bm25Index;
  let docs: CollectionDocument[] | undefined;
  if (args.indexFile !== undefined) {
    try {
      index = loadIndex(args.indexFile, analyzerGiven ? { analyzer } : undefined).index;
    } catch (error) {
      throw new CliError((error as Error).message, 2);
    }
    if (args.docsFile !== undefined) docs = readDocs(args);
  } else {
    docs = readDocs(args);
    index = indexDocuments(docs, new IndexBuilder(analyzer), io);
  }
  if (prepared)
    return retrieveWithModelsCommand(modelInput(args, prepared, index, topics, docs), io);
  return retrieveLexical(io, {
    retrieve: (onProgress) => retrieveRun(index, topics, { ...retrieveOptions, onProgress }),
    topics,
    topicsFile: args.topicsFile,
    out: args.out,
    strict: args.strict,
    method: args.method,
    source:
      args.docsFile !== undefined ? { docs: args.docsFile } : { 'index file': args.indexFile! },
  });
}

/**
 * The method and the run's options, checked: a method assay has, no setting or option of
 * other methods (the error names the methods it is for), the inputs and output given.
 */
function retrieveArgs(parsed: ParsedArgs): RetrieveArgs {
  const { options, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const option = (key: string) => parsed.option(key);
  const method = option('method');
  if (method === undefined) throw new UsageError('--method is required');
  const withModels = isModelMethod(method);
  if (!withModels && !(RETRIEVAL_METHODS as readonly string[]).includes(method))
    throw new UsageError(
      `--method must be one of ${[...RETRIEVAL_METHODS, ...MODEL_METHODS].join(', ')}, not '${method}'`,
    );
  // A setting or option of other methods is refused, naming the methods it is for.
  const settingKeys = settingsCatalogue().map((s) => s.key);
  if (withModels) {
    for (const key of Object.keys(LEXICAL_USES))
      if (options.has(key) && !methodsWithSetting(key).includes(method))
        throw new UsageError(appliesTo(key, method));
  } else {
    for (const key of settingKeys)
      if (options.has(key) && !(key in LEXICAL_USES)) throw new UsageError(appliesTo(key, method));
    for (const spec of MODEL_OPTIONS)
      if (options.has(spec.key))
        throw new UsageError(`--${spec.long} applies to methods with models`);
  }

  const docsFile = option('docs');
  const indexFile = option('index');
  if (docsFile === undefined && indexFile === undefined)
    throw new UsageError('give either --docs FILE or --index INDEX');
  // With a saved index, --docs gives the documents' texts to the methods with models.
  if (docsFile !== undefined && indexFile !== undefined && !withModels)
    throw new UsageError(
      `give either --docs FILE or --index INDEX (both: the index, and the documents' texts for the methods with models, not ${method})`,
    );
  const topicsFile = option('topics');
  if (topicsFile === undefined) throw new UsageError('--topics is required');
  const out = option('out');
  if (out === undefined) throw new UsageError('--out is required');
  if (options.has('answers') && !(withModels && METHOD_DEFINITIONS[method].answers))
    throw new UsageError(
      `--answers applies to methods that answer (${MODEL_METHODS.filter((m) => METHOD_DEFINITIONS[m].answers).join(', ')}), not ${method}`,
    );
  return {
    parsed,
    method,
    withModels,
    docsFile,
    indexFile,
    topicsFile,
    out,
    k: parsed.number('k') ?? 1000,
    bm25: defined({ k1: parsed.number('k1'), b: parsed.number('b') }),
    tag: option('tag') ?? method,
    strict: options.has('strict'),
  };
}

/**
 * The request of a method with models, from every setting given (those of other methods
 * too: the check names the methods they are for, "--rounds applies to grill only") and
 * the step and model options, checked through the platform.
 */
async function prepareModels(io: PlatformCommandIo, args: RetrieveArgs): Promise<PreparedCommand> {
  const { parsed } = args;
  const option = (key: string) => parsed.option(key);
  const raw: Record<string, unknown> = {};
  const texts = new Map<string, string>();
  for (const s of settingsCatalogue()) {
    const text = option(s.key);
    if (text === undefined) continue;
    texts.set(s.key, text);
    raw[s.key] = valueFromText(s.info, text);
  }
  const steps: Record<string, StepSettings> = {};
  const step = (id: string) => (steps[id] ??= {});
  for (const [id, model] of stepValues('--step-model', parsed.all('stepModel')))
    step(id).model = model;
  for (const [id, t] of stepValues('--step-temperature', parsed.all('stepTemperature')))
    step(id).temperature = numeric(t) as number;
  for (const [id, p] of stepValues('--step-top-p', parsed.all('stepTopP')))
    step(id).topP = numeric(p) as number;
  const request: ModelRetrievalRequest = {
    method: args.method as ModelMethod,
    settings: raw,
    ...defined({
      model: option('model'),
      embeddingModel: option('embeddingModel'),
      rerankerModel: option('rerankerModel'),
      queryPrefix: option('queryPrefix'),
      passagePrefix: option('passagePrefix'),
      temperature: numeric(option('temperature')) as number | undefined,
      topP: numeric(option('topP')) as number | undefined,
      budgetUsd: parsed.number('budget'),
    }),
    ...(Object.keys(steps).length ? { steps } : {}),
  };
  return prepareModelCommand(io, request, {
    dryRun: parsed.has('dryRun'),
    shown: (key, value) => (texts.has(key) ? `'${texts.get(key)}'` : JSON.stringify(value)),
    overrides: defined({
      baseUrl: option('baseUrl'),
      embeddingBaseUrl: option('embeddingBaseUrl'),
      rerankBaseUrl: option('rerankBaseUrl'),
    }),
    hasDocs: args.docsFile !== undefined,
    methodsDir: option('methods'),
  });
}

/** The options of the lexical methods (a method with models starts from bm25's). */
function lexicalOptions(args: RetrieveArgs): RetrieveOptions {
  const { parsed } = args;
  const fbDocs = parsed.number('fbDocs');
  const fbTerms = parsed.number('fbTerms');
  const alpha = parsed.number('alpha');
  const beta = parsed.number('beta');
  const gamma = parsed.number('gamma');
  return {
    method: (args.withModels ? 'bm25' : args.method) as RetrievalMethod,
    k: args.k,
    bm25: args.bm25,
    rm3: defined({ fbDocs, fbTerms, originalQueryWeight: parsed.number('fbWeight') }),
    rocchio: defined({ fbDocs, fbTerms, alpha, beta, gamma }),
    weightedRocchio: defined({
      fbTerms,
      alpha,
      beta,
      gamma,
      depth: parsed.number('fbDepth'),
      positives: parsed.number('positives'),
    }),
    qbd: defined({ fbDocs, fbTerms }),
    tag: args.tag,
  };
}

/** The documents of --docs, in the format --format names or the reader tells. */
function readDocs(args: RetrieveArgs): CollectionDocument[] {
  return readDocuments(args.docsFile!, { format: args.parsed.option('format') });
}

/**
 * Retrieval from an on-disk index: bm25, or a method with models (which reads no term
 * vectors) over it, with the documents' texts from --docs when given.
 */
async function retrieveFromDiskIndex(
  io: PlatformCommandIo & { stderrIsTTY?: boolean },
  args: RetrieveArgs,
  input: {
    indexFile: string;
    prepared: PreparedCommand | undefined;
    topics: MethodTopic[];
    /** The analyzer asked for (--stemmer, --stopwords), which the index must have. */
    analyzer?: AnalyzerConfig;
  },
): Promise<number> {
  const { indexFile, prepared, topics } = input;
  const { method } = args;
  if (!args.withModels && method !== 'bm25')
    throw new UsageError(
      `${indexFile} is an on-disk index, which serves bm25 and the methods with models (no term vectors); for ${method}, build an index without --on-disk or give --docs`,
    );
  if (
    prepared &&
    readsTermVectors(prepared.prepared.request.method, prepared.prepared.settings, {
      embeddings: prepared.prepared.embeds,
    })
  )
    throw new UsageError(
      `${indexFile} is an on-disk index, which holds no term vectors; --method ${method} reads them (query-by-document, tf-idf feedback): build an index without --on-disk or give --docs alone`,
    );
  let disk: DiskBm25Index;
  try {
    disk = DiskBm25Index.open(indexFile, input.analyzer ? { analyzer: input.analyzer } : {});
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  try {
    if (prepared) {
      const docs = args.docsFile === undefined ? undefined : readDocs(args);
      return await retrieveWithModelsCommand(modelInput(args, prepared, disk, topics, docs), io);
    }
    const { k, bm25, tag } = args;
    return retrieveLexical(io, {
      retrieve: (onProgress) => retrieveDiskRun(disk, topics, { k, bm25, tag, onProgress }),
      topics,
      topicsFile: args.topicsFile,
      out: args.out,
      strict: args.strict,
      method,
      source: { 'index file': indexFile },
    });
  } finally {
    disk.close();
  }
}

/** What a method with models is run with: the own index (in memory or on disk) and the texts. */
function modelInput(
  args: RetrieveArgs,
  request: PreparedCommand,
  own: Bm25Index | DiskBm25Index,
  topics: MethodTopic[],
  texts: CollectionDocument[] | undefined,
): ModelRetrieveInput {
  const { parsed, docsFile, indexFile } = args;
  // The first stage of methods that start from BM25: a run file, read and checked now.
  const firstStageFile = request.prepared.settings.firstStage as string | undefined;
  const firstStage =
    firstStageFile === undefined
      ? undefined
      : firstStageOf(firstStageFile, parseRun(readText(firstStageFile), firstStageFile));
  return {
    prepared: request,
    ...(firstStage ? { firstStage } : {}),
    index: own,
    topics,
    topicsFile: args.topicsFile,
    source: {
      ...(indexFile !== undefined ? { 'index file': indexFile } : {}),
      ...(docsFile !== undefined ? { docs: docsFile } : {}),
    },
    ...(texts ? { documents: texts } : {}),
    out: args.out,
    strict: args.strict,
    ...defined({ answersFile: parsed.option('answers') }),
    dryRun: parsed.has('dryRun'),
    options: {
      method: args.method as ModelMethod,
      settings: request.prepared.request.settings ?? {},
      k: args.k,
      bm25: args.bm25,
      tag: args.tag,
      ...defined({
        budgetUsd: request.prepared.request.budgetUsd,
        concurrency: parsed.number('concurrency'),
      }),
    },
  };
}

/** The lexical methods: retrieve, write the run with its header, summarise the topics. */
function retrieveLexical(
  io: CommandIo & { stderrIsTTY?: boolean },
  input: {
    /** Retrieves the run, reporting each topic done. */
    retrieve: (onProgress: (done: number) => void) => RetrievedRun;
    topics: Array<{ id: string; text: string }>;
    topicsFile: string;
    source: Record<string, string>;
    out: string;
    strict: boolean;
    method: string;
  },
): number {
  const { topics, out } = input;
  const progress = new ProgressReporter({
    label: 'retrieving',
    total: topics.length,
    write: io.stderr,
    tty: io.stderrIsTTY ?? process.stderr.isTTY === true,
    unit: 'queries',
    showCost: false,
  });
  const started = performance.now();
  const { run, parameters, missing } = input.retrieve((done) =>
    progress.update({ done, doneThisRun: done, failed: 0, tokens: 0, costUsd: 0 }),
  );
  progress.finish();
  const seconds = (performance.now() - started) / 1000;
  const header = runHeader(parameters, {
    'assay retrieve': ASSAY_CLI_VERSION,
    topics: input.topicsFile,
    ...input.source,
    ...(missing.length ? { 'topics without results': missing.map((m) => m.topic).join(' ') } : {}),
  });
  const temporary = `${out}.tmp-${process.pid}`;
  writeFileSync(temporary, header + formatRun(run));
  renameSync(temporary, out);
  let entries = 0;
  for (const list of run.topics.values()) entries += list.length;
  const summary = topicsSummary(topics.length, missing);
  io.stderr(
    `wrote ${out}: ${entries} entries; ${summary.line} (${input.method}, ${(topics.length / Math.max(seconds, 1e-9)).toFixed(0)} queries/s)\n` +
      (summary.missing ? `${summary.missing}\n` : ''),
  );
  return input.strict && missing.length > 0 ? EXIT.missingTopic : EXIT.ok;
}
