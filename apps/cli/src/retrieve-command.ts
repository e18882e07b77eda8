import { renameSync, writeFileSync } from 'node:fs';
import {
  IndexBuilder,
  loadIndex,
  RETRIEVAL_METHODS,
  retrieveRun,
  runHeader,
  type Bm25Index,
  type RetrievalMethod,
  type RetrieveOptions,
} from '@assay/retrieval';
import { METHOD_DEFINITIONS, MODEL_METHODS, type ModelMethod } from '@assay/methods';
import { formatRun, type CollectionDocument } from '@assay/trec';
import { getopt, UsageError, type OptionSpec } from './getopt.js';
import { CliError, type CommandIo } from './io.js';
import { indexDocuments } from './index-command.js';
import { ProgressReporter } from './progress.js';
import {
  aggregationOption,
  checkModelArguments,
  retrieveWithModelsCommand,
} from './retrieve-models.js';
import { RERANKER_KEYS, rerankerOptions } from './reranker-options.js';
import {
  analyzerFrom,
  ASSAY_CLI_VERSION,
  countOption,
  numberOption,
  readCollection,
  readQueries,
} from './retrieval-inputs.js';

export const RETRIEVE_USAGE = `Usage: assay retrieve --method METHOD (--docs FILE | --index INDEX) --topics FILE --out RUN
                      [--k 1000] [--k1 0.9] [--b 0.4] [--tag NAME] [feedback options]

Retrieves the top k documents of every topic with BM25 (Lucene's formula and idf) and
writes a TREC run, ranked as trec_eval ranks (score desc, docno desc). The run starts
with '# key: value' lines recording the method, analyzer, parameters, index fingerprint
and assay version. Every input is read and checked before anything is written: a bad
line fails with file:line and no run is written.

  --method M        bm25, rm3, rocchio, rocchio-weighted or qbd; with models:
                    query2doc, amd, dense, hybrid, grill, gr-qr, gr-ad, gr-qd,
                    gr-aqd, gr-aqd-a, llmforum, srsa, simple-search, react or
                    rerank (see below)
  --docs FILE       collection: JSONL, TSV or Cranfield cran.all.1400 (indexed in memory)
  --format F        collection format (default from the file name)
  --index INDEX     a saved index (assay index build) instead of --docs
  --topics FILE     TSV, JSONL or TREC topics, or Cranfield cran.qry (ids 1..225 by position)
  --out RUN         the run file to write
  --k N             documents per topic (default 1000)
  --k1 X, --b Y     BM25 parameters (default 0.9 and 0.4)
  --tag NAME        run tag (default: the method)
  --stemmer S       porter (default) or none; --stopwords english (default), none or FILE
Feedback (defaults in brackets):
  --fb-docs N       feedback documents: rm3 [10], rocchio [10], qbd documents as queries [10]
  --fb-terms N      expansion terms (rm3, rocchio, rocchio-weighted) or terms per document (qbd) [10]
  --fb-weight W     rm3: weight of the original query [0.5]
  --alpha A --beta B --gamma G   Rocchio weights: rocchio [1, 0.75, 0], rocchio-weighted [1, 1, 1]
  --fb-depth N      rocchio-weighted: documents re-ranked by cosine [50]
  --positives N     rocchio-weighted: how many of them are positives [5]
Methods with models (the endpoint is OPENAI_BASE_URL / OPENAI_API_KEY, as for judges; every
call is kept in the database's call store, so a rerun sends no request; every generated
text goes to RUN.trace.jsonl; prompts are the files of methods/):
  --model M         chat model (every method here but dense and hybrid)
  --embedding-model E   embeddings model (dense, hybrid, --aggregation dense, llmforum);
                    needs --docs
  --aggregation A   query2doc: sparse [sparse] or dense; amd: sparse [sparse], dense or rrf
  --no-feedback     amd without the reflective feedback step (the paper's ablation)
  --budget USD      send no call once USD were spent (priced models only)
  --dry-run         print the calls, tokens and cost it would take at most; send nothing
  --concurrency N   topics worked on at once [4]
  --base-url URL    the endpoint instead of OPENAI_BASE_URL
  --methods DIR     read method prompts from DIR instead of the shipped methods/
grill (GRILL, TREC 2025; needs --docs: the binary-filter judge reads every candidate):
  --rounds N        retrieve -> expand rounds at most; stops early when a round adds nothing [1]
  --min-gain G      also stop when a round adds fewer than G new documents [0: off]
  --rerank-budget N keep the top N fused documents for the final ranking [500]
  --decompose       split the request into sub-questions, run each, fuse them by RRF
Generate-then-retrieve (gr-*; conversational topics: previous turns, user background):
  gr-qr rewrites the utterance; gr-ad searches with the LLM's answer; gr-qd with at most
  five queries from the conversation, gr-aqd with at most five queries from the answer
  (lists interleaved round robin); gr-aqd-a reranks gr-aqd's list against the answer.
  --first-stage-k N BM25 documents per query before the rerank stage [1000]
llmforum (LLMForum-RAG; needs --model and --docs): the weighted-Rocchio ranking (over the
embeddings with --embedding-model, else over tf-idf vectors from BM25; --fb-depth,
--positives, --alpha, --beta, --gamma and, sparse, --fb-terms as for rocchio-weighted),
then three agents over its top 5 in two rounds, a supervisor's answer, and a control block
that regenerates answers scoring below 0.5:
  --max-regenerations N   regenerations of an answer at most [2]
Search agents (srsa, and its baselines simple-search and react; they read --docs):
  --search-k N      documents per BM25 search [5]
  --max-rounds N    srsa: planning searches at most; react: Thought/Action steps at most [5]
  --today DATE      the date (YYYY-MM-DD) srsa's router is told is today [the clock's]
Methods that answer (llmforum, srsa, simple-search, react):
  --answers FILE    write the answers as JSONL {topic, system, answer, references}
                    (system = the run tag), the responses assay answers score reads
Rerankers (the rerank method, or any method's rerank stage; they read --docs):
  --reranker R      cross-encoder (a /v1/rerank endpoint) or rankgpt (listwise, uses --model)
  --reranker-model M    the cross-encoder's model (e.g. a ms-marco MiniLM or bge reranker)
  --rerank-depth N  rerank: BM25 documents reranked, the rest follow in BM25 order [100];
                    gr-*: documents of each list the reranker reorders [1000]
  --rankgpt-window N, --rankgpt-step N   RankGPT's sliding window, bottom to top [20, 10]
  --rankgpt-words N words of a passage shown to RankGPT [300]
A topic whose answer stays unusable after three attempts, or whose calls fail after their
retries, fails with the reason (no entries); the run is still written and the exit status
is 5, as it is when --budget stopped the run.`;

const OPTIONS: OptionSpec[] = [
  { long: 'method', key: 'method', takesValue: true },
  { long: 'docs', key: 'docs', takesValue: true },
  { long: 'format', key: 'format', takesValue: true },
  { long: 'index', key: 'index', takesValue: true },
  { long: 'topics', key: 'topics', takesValue: true },
  { long: 'out', key: 'out', takesValue: true },
  { long: 'k', key: 'k', takesValue: true },
  { long: 'k1', key: 'k1', takesValue: true },
  { long: 'b', key: 'b', takesValue: true },
  { long: 'tag', key: 'tag', takesValue: true },
  { long: 'stemmer', key: 'stemmer', takesValue: true },
  { long: 'stopwords', key: 'stopwords', takesValue: true },
  { long: 'fb-docs', key: 'fbDocs', takesValue: true },
  { long: 'fb-terms', key: 'fbTerms', takesValue: true },
  { long: 'fb-weight', key: 'fbWeight', takesValue: true },
  { long: 'alpha', key: 'alpha', takesValue: true },
  { long: 'beta', key: 'beta', takesValue: true },
  { long: 'gamma', key: 'gamma', takesValue: true },
  { long: 'fb-depth', key: 'fbDepth', takesValue: true },
  { long: 'positives', key: 'positives', takesValue: true },
  { long: 'model', key: 'model', takesValue: true },
  { long: 'embedding-model', key: 'embeddingModel', takesValue: true },
  { long: 'aggregation', key: 'aggregation', takesValue: true },
  { long: 'no-feedback', key: 'noFeedback', takesValue: false },
  { long: 'budget', key: 'budget', takesValue: true },
  { long: 'dry-run', key: 'dryRun', takesValue: false },
  { long: 'concurrency', key: 'concurrency', takesValue: true },
  { long: 'base-url', key: 'baseUrl', takesValue: true },
  { long: 'methods', key: 'methods', takesValue: true },
  { long: 'rounds', key: 'rounds', takesValue: true },
  { long: 'min-gain', key: 'minGain', takesValue: true },
  { long: 'rerank-budget', key: 'rerankBudget', takesValue: true },
  { long: 'decompose', key: 'decompose', takesValue: false },
  { long: 'first-stage-k', key: 'firstStageK', takesValue: true },
  { long: 'max-regenerations', key: 'maxRegenerations', takesValue: true },
  { long: 'search-k', key: 'searchK', takesValue: true },
  { long: 'max-rounds', key: 'maxRounds', takesValue: true },
  { long: 'today', key: 'today', takesValue: true },
  { long: 'answers', key: 'answers', takesValue: true },
  // Rerankers.
  { long: 'reranker', key: 'reranker', takesValue: true },
  { long: 'reranker-model', key: 'rerankerModel', takesValue: true },
  { long: 'rerank-depth', key: 'rerankDepth', takesValue: true },
  { long: 'rankgpt-window', key: 'rankgptWindow', takesValue: true },
  { long: 'rankgpt-step', key: 'rankgptStep', takesValue: true },
  { long: 'rankgpt-words', key: 'rankgptWords', takesValue: true },
  { short: 'h', long: 'help', key: 'h', takesValue: false },
];

/** Whether a text is a real calendar date written YYYY-MM-DD. */
function isDate(text: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}$/.test(text) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text)
  );
}

/** Drops the undefined values (so defaults apply). */
function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

/** `assay retrieve`: a TREC run from a collection (or saved index) and topics. */
export async function retrieveCommand(
  argv: readonly string[],
  io: CommandIo & { stderrIsTTY?: boolean },
): Promise<number> {
  const { options, positionals } = getopt(argv, OPTIONS);
  if (options.has('h')) {
    io.stdout(`${RETRIEVE_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const option = (key: string) => options.get(key)?.at(-1);
  const method = option('method');
  if (method === undefined) throw new UsageError('--method is required');
  const withModels = (MODEL_METHODS as readonly string[]).includes(method);
  if (!withModels && !(RETRIEVAL_METHODS as readonly string[]).includes(method))
    throw new UsageError(
      `--method must be one of ${[...RETRIEVAL_METHODS, ...MODEL_METHODS].join(', ')}, not '${method}'`,
    );
  if (!withModels)
    for (const key of [
      'model',
      'embeddingModel',
      'aggregation',
      'noFeedback',
      'budget',
      'dryRun',
      ...RERANKER_KEYS,
    ])
      if (options.has(key))
        throw new UsageError(
          `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to methods with models`,
        );
  if (options.has('noFeedback') && method !== 'amd')
    throw new UsageError('--no-feedback applies to amd only');
  for (const key of ['rounds', 'minGain', 'rerankBudget', 'decompose'])
    if (options.has(key) && method !== 'grill')
      throw new UsageError(
        `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to grill only`,
      );
  const grillRounds = countOption('--rounds', option('rounds'));
  const minGainText = option('minGain');
  if (minGainText !== undefined && !/^\d+$/.test(minGainText.trim()))
    throw new UsageError(`--min-gain needs a whole number of documents, not '${minGainText}'`);
  const minGain = minGainText === undefined ? undefined : Number(minGainText);
  const rerankBudget = countOption('--rerank-budget', option('rerankBudget'));
  if (options.has('maxRegenerations') && method !== 'llmforum')
    throw new UsageError('--max-regenerations applies to llmforum only');
  const maxRegenerations = option('maxRegenerations');
  if (maxRegenerations !== undefined && !/^\d+$/.test(maxRegenerations.trim()))
    throw new UsageError(
      `--max-regenerations needs a whole number (0 or more), not '${maxRegenerations}'`,
    );
  const aggregation = aggregationOption(method, option('aggregation'));
  if (options.has('firstStageK') && !method.startsWith('gr-'))
    throw new UsageError('--first-stage-k applies to the gr-* methods only');
  const firstStageK = countOption('--first-stage-k', option('firstStageK'));
  const searchAgent = ['srsa', 'simple-search', 'react'].includes(method);
  for (const key of ['searchK', 'maxRounds'])
    if (options.has(key) && !searchAgent)
      throw new UsageError(
        `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to srsa, simple-search and react`,
      );
  if (options.has('maxRounds') && method === 'simple-search')
    throw new UsageError('--max-rounds applies to srsa and react');
  const searchK = countOption('--search-k', option('searchK'));
  const maxRounds = countOption('--max-rounds', option('maxRounds'));
  const today = option('today');
  if (today !== undefined && (!withModels || !isDate(today)))
    throw new UsageError(
      withModels
        ? `--today needs a date YYYY-MM-DD, not '${today}'`
        : '--today applies to methods with models',
    );
  if (options.has('answers') && !(withModels && METHOD_DEFINITIONS[method as ModelMethod].answers))
    throw new UsageError(
      `--answers applies to methods that answer (${MODEL_METHODS.filter((m) => METHOD_DEFINITIONS[m].answers).join(', ')}), not ${method}`,
    );
  const rerank = rerankerOptions(method, option);
  const budget = numberOption('--budget', option('budget'), 0);
  const concurrency = countOption('--concurrency', option('concurrency'));
  const docsFile = option('docs');
  const indexFile = option('index');
  if ((docsFile === undefined) === (indexFile === undefined))
    throw new UsageError('give either --docs FILE or --index INDEX');
  const topicsFile = option('topics');
  if (topicsFile === undefined) throw new UsageError('--topics is required');
  const out = option('out');
  if (out === undefined) throw new UsageError('--out is required');
  if (withModels)
    checkModelArguments(
      {
        method: method as ModelMethod,
        ...defined({ aggregation }),
        ...(method === 'llmforum' ? { forumDense: options.has('embeddingModel') } : {}),
        ...rerank.options,
      },
      {
        hasDocs: docsFile !== undefined,
        ...defined({ model: option('model'), embeddingModel: option('embeddingModel') }),
      },
    );
  const b = numberOption('--b', option('b'), 0);
  if (b !== undefined && b > 1) throw new UsageError(`--b must be between 0 and 1, not ${b}`);
  const fbDocs = countOption('--fb-docs', option('fbDocs'));
  const fbTerms = countOption('--fb-terms', option('fbTerms'));
  const fbWeight = numberOption('--fb-weight', option('fbWeight'), 0);
  if (fbWeight !== undefined && fbWeight > 1)
    throw new UsageError(`--fb-weight must be between 0 and 1, not ${fbWeight}`);
  const alpha = numberOption('--alpha', option('alpha'));
  const beta = numberOption('--beta', option('beta'));
  const gamma = numberOption('--gamma', option('gamma'));
  const retrieveOptions: RetrieveOptions = {
    method: (withModels ? 'bm25' : method) as RetrievalMethod,
    k: countOption('--k', option('k')) ?? 1000,
    bm25: defined({ k1: numberOption('--k1', option('k1'), 0), b }),
    rm3: defined({ fbDocs, fbTerms, originalQueryWeight: fbWeight }),
    rocchio: defined({ fbDocs, fbTerms, alpha, beta, gamma }),
    weightedRocchio: defined({
      fbTerms,
      alpha,
      beta,
      gamma,
      depth: countOption('--fb-depth', option('fbDepth')),
      positives: countOption('--positives', option('positives')),
    }),
    qbd: defined({ fbDocs, fbTerms }),
    tag: option('tag') ?? method,
  };
  const analyzerGiven = options.has('stemmer') || options.has('stopwords');
  const analyzer = analyzerFrom(option('stemmer'), option('stopwords'));

  // Read and check every input before any work that takes long, and before writing.
  const topics = await readQueries(topicsFile);
  let index: Bm25Index;
  let docs: CollectionDocument[] | undefined;
  if (indexFile !== undefined) {
    try {
      index = loadIndex(indexFile, analyzerGiven ? { analyzer } : undefined).index;
    } catch (error) {
      throw new CliError((error as Error).message, 2);
    }
  } else {
    docs = readCollection(docsFile!, option('format'));
    index = indexDocuments(docs, new IndexBuilder(analyzer), io);
  }

  if (withModels)
    return retrieveWithModelsCommand(
      {
        method: method as ModelMethod,
        index,
        topics,
        topicsFile,
        source: docsFile !== undefined ? { docs: docsFile } : { 'index file': indexFile! },
        ...(docs ? { documents: docs } : {}),
        out,
        ...defined({
          model: option('model'),
          embeddingModel: option('embeddingModel'),
          baseUrl: option('baseUrl'),
          methodsDir: option('methods'),
          answersFile: option('answers'),
          rerankerModel: rerank.model,
        }),
        dryRun: options.has('dryRun'),
        options: {
          method: method as ModelMethod,
          k: retrieveOptions.k!,
          bm25: retrieveOptions.bm25!,
          tag: option('tag') ?? method,
          ...defined({ aggregation, budgetUsd: budget, concurrency }),
          ...defined({ firstStageK }),
          ...defined({ searchK, maxRounds, today }),
          ...(options.has('noFeedback') ? { feedback: false } : {}),
          ...defined({ rounds: grillRounds, minGain, rerankBudget }),
          ...(options.has('decompose') ? { decompose: true } : {}),
          ...(method === 'llmforum'
            ? {
                forumDense: options.has('embeddingModel'),
                weightedRocchio: retrieveOptions.weightedRocchio!,
                ...defined({
                  maxRegenerations:
                    maxRegenerations === undefined ? undefined : Number(maxRegenerations),
                }),
              }
            : {}),
          ...rerank.options,
        },
      },
      io,
    );

  const progress = new ProgressReporter({
    label: 'retrieving',
    total: topics.length,
    write: io.stderr,
    tty: io.stderrIsTTY ?? process.stderr.isTTY === true,
    unit: 'queries',
    showCost: false,
  });
  const started = performance.now();
  const { run, parameters } = retrieveRun(index, topics, {
    ...retrieveOptions,
    onProgress: (done) =>
      progress.update({ done, doneThisRun: done, failed: 0, tokens: 0, costUsd: 0 }),
  });
  progress.finish();
  const seconds = (performance.now() - started) / 1000;
  const header = runHeader(parameters, {
    'assay retrieve': ASSAY_CLI_VERSION,
    topics: topicsFile,
    ...(docsFile !== undefined ? { docs: docsFile } : { 'index file': indexFile! }),
  });
  const temporary = `${out}.tmp-${process.pid}`;
  writeFileSync(temporary, header + formatRun(run));
  renameSync(temporary, out);
  let entries = 0;
  for (const list of run.topics.values()) entries += list.length;
  io.stderr(
    `wrote ${out}: ${entries} entries for ${run.topics.size} topics (${method}, ${(topics.length / Math.max(seconds, 1e-9)).toFixed(0)} queries/s)\n`,
  );
  return 0;
}
