import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import {
  MissingTopicError,
  PreferenceConflictError,
  evaluateRun,
  formatTrecText,
  type TrecTextOptions,
  prepareJudgmentGroups,
  preparePreferences,
  prepareQrels,
  prepareQrelsColumns,
  resolveMeasures,
  type EvaluationOptions,
  type PreparedRelevance,
  type RunEvaluation,
} from '@assay/measures';
import {
  RunColumnsParser,
  TrecFormatError,
  type Prefs,
  type Qrels,
  type QrelsColumns,
  type QrelsJg,
} from '@assay/trec';
import { CliError, type Parallelism } from '../shell/io.js';
import { ENCODING_HINT, readChunks, STDIN, type InputEncoding } from '../shell/read-input.js';

export { readText } from '../shell/read-input.js';
export type { Parallelism } from '../shell/io.js';

/**
 * Parsed relevance information: TREC qrels (as maps, or as columns read from bytes), or
 * (trec_eval's `-R qrels_jg`, `-R prefs`, `-R qrels_prefs`) judgment-group qrels or
 * preferences. Plain data, so it can be handed
 * to worker threads as it is.
 */
export type RelevanceInput =
  | Qrels
  | { format: 'qrels-columns'; qrels: QrelsColumns }
  | { format: 'qrels_jg'; qrels: QrelsJg }
  | { format: 'prefs'; prefs: Prefs };

/** Prepares parsed relevance information for evaluation. */
export function prepareRelevance(input: RelevanceInput): PreparedRelevance {
  if (input instanceof Map) return prepareQrels(input);
  if (input.format === 'qrels-columns') return prepareQrelsColumns(input.qrels);
  if (input.format === 'qrels_jg') return prepareJudgmentGroups(input.qrels);
  return preparePreferences(input.prefs);
}

/**
 * What an evaluation thread is asked to do: evaluate runs against the qrels, taking the
 * next run index from a counter shared by every thread until none is left.
 */
export interface EvalWorkerRequest {
  qrels: RelevanceInput;
  encoding: InputEncoding;
  measureSpecs: string[];
  options: EvaluationOptions;
  paths: string[];
  /** Next run index to take, over a SharedArrayBuffer (Atomics.add). */
  next: Int32Array;
  /** Also render trec_eval text with these options (done in the worker, in parallel). */
  text?: TrecTextOptions;
}

/** One evaluated run, with its trec_eval text when that was asked for. */
export interface EvaluatedRun {
  result: RunEvaluation;
  text?: string;
}

/** What a worker sends back for each run, then `done` when the queue is empty. */
export type EvalWorkerReply =
  | { index: number; result: RunEvaluation; text?: string }
  | { index: number; error: SerializedError };
type WorkerMessage = EvalWorkerReply | { done: true };

type SerializedError =
  | { kind: 'format'; file: string; line: number; reason: string }
  | { kind: 'missing'; qid: string; runid: string }
  | { kind: 'cli'; message: string; exitCode: number }
  | { kind: 'other'; message: string };

/**
 * Parses and evaluates one run file (`-`: standard input; gzip: decompressed as it is
 * read). The run is read in chunks into compact columns, keeping only the judged topics'
 * entries.
 */
export async function evaluateRunFile(
  qrels: PreparedRelevance,
  path: string,
  measures: ReturnType<typeof resolveMeasures>,
  options: EvaluationOptions,
  encoding: InputEncoding,
): Promise<RunEvaluation> {
  const parser = new RunColumnsParser(path, {
    topics: new Set(qrels.topics),
    encodingHint: ENCODING_HINT,
  });
  await readChunks(path, (chunk) => parser.push(chunk), encoding);
  const run = parser.end();
  try {
    return evaluateRun(qrels, run, measures, options);
  } catch (error) {
    // Contradictory preferences are bad input, found only once a run is ranked.
    if (error instanceof PreferenceConflictError)
      throw new CliError(`inconsistent preferences: ${error.message}`, 2);
    throw error;
  }
}

/**
 * Evaluates every run file and returns the results in argument order. With a worker
 * script, more than one thread and at least `bytesPerThread` of runs for each, this thread and `threads - 1` worker threads take runs
 * from one shared queue (the qrels are parsed once, here, and handed to each worker); the
 * first failing run in argument order decides the error, so output never depends on thread
 * timing.
 */
export async function evaluateRunFiles(
  qrels: RelevanceInput,
  runPaths: readonly string[],
  measureSpecs: string[],
  options: EvaluationOptions,
  parallelism?: Parallelism,
  text?: TrecTextOptions,
  encoding: InputEncoding = 'utf-8',
): Promise<EvaluatedRun[]> {
  // Standard input can be read once, by this thread; small inputs are read faster by one
  // thread than by several that first start up.
  const threads =
    !parallelism || runPaths.includes(STDIN)
      ? 1
      : Math.min(
          parallelism.threads,
          runPaths.length,
          Math.floor(totalBytes(runPaths) / Math.max(1, parallelism.bytesPerThread)),
        );
  if (!parallelism || threads < 2) {
    const measures = resolveMeasures(measureSpecs);
    const prepared = prepareRelevance(qrels);
    const results: EvaluatedRun[] = [];
    for (const path of runPaths) {
      const result = await evaluateRunFile(prepared, path, measures, options, encoding);
      results.push(text ? { result, text: formatTrecText(result, text) } : { result });
    }
    return results;
  }
  const request: EvalWorkerRequest = {
    qrels,
    encoding,
    measureSpecs,
    options,
    paths: [...runPaths],
    next: new Int32Array(new SharedArrayBuffer(4)),
  };
  if (text) request.text = text;
  const replies: EvalWorkerReply[] = [];
  const workers = Array.from({ length: threads - 1 }, () =>
    runWorker(parallelism.workerUrl, request, replies),
  );
  // Workers start on their own threads meanwhile; this one takes runs from the queue too.
  await handleWorkerRequest(request, (reply) => replies.push(reply));
  await Promise.all(workers);
  replies.sort((a, b) => a.index - b.index);
  const results: EvaluatedRun[] = [];
  for (const reply of replies) {
    if ('error' in reply) throw deserializeError(reply.error);
    results.push(
      reply.text === undefined
        ? { result: reply.result }
        : { result: reply.result, text: reply.text },
    );
  }
  return results;
}

/** The size of the files together (a file that cannot be read counts as empty: reading it reports it). */
function totalBytes(paths: readonly string[]): number {
  let total = 0;
  for (const path of paths) {
    try {
      total += statSync(path).size;
    } catch {
      // reported when read
    }
  }
  return total;
}

function runWorker(
  url: URL,
  request: EvalWorkerRequest,
  replies: EvalWorkerReply[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    // A larger young generation: fewer scavenges while a run is parsed and evaluated.
    const worker = new Worker(url, {
      workerData: request,
      resourceLimits: { maxYoungGenerationSizeMb: 96 },
    });
    let done = false;
    worker.on('message', (message: WorkerMessage) => {
      if ('done' in message) {
        done = true;
        void worker.terminate();
      } else replies.push(message);
    });
    worker.on('error', reject);
    worker.on('exit', () => {
      if (done) resolve();
      else reject(new Error('an evaluation worker stopped before the run queue was empty'));
    });
  });
}

/**
 * Evaluates runs from the request's shared queue until it is empty, replying per run; run
 * by this thread and by the worker entry point.
 */
export async function handleWorkerRequest(
  request: EvalWorkerRequest,
  reply: (r: EvalWorkerReply) => void,
): Promise<void> {
  let prepared: PreparedRelevance | undefined;
  let measures: ReturnType<typeof resolveMeasures> | undefined;
  for (;;) {
    const index = Atomics.add(request.next, 0, 1);
    if (index >= request.paths.length) return;
    try {
      prepared ??= prepareRelevance(request.qrels);
      measures ??= resolveMeasures(request.measureSpecs);
      const result = await evaluateRunFile(
        prepared,
        request.paths[index]!,
        measures,
        request.options,
        request.encoding,
      );
      if (request.text) reply({ index, result, text: formatTrecText(result, request.text) });
      else reply({ index, result });
    } catch (error) {
      reply({ index, error: serializeError(error) });
    }
  }
}

function serializeError(error: unknown): SerializedError {
  if (error instanceof TrecFormatError)
    return { kind: 'format', file: error.file, line: error.line, reason: error.reason };
  if (error instanceof MissingTopicError)
    return { kind: 'missing', qid: error.qid, runid: error.runid };
  if (error instanceof CliError)
    return { kind: 'cli', message: error.message, exitCode: error.exitCode };
  return {
    kind: 'other',
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  };
}

function deserializeError(error: SerializedError): Error {
  switch (error.kind) {
    case 'format':
      return new TrecFormatError(error.file, error.line, error.reason);
    case 'missing':
      return new MissingTopicError(error.qid, error.runid);
    case 'cli':
      return new CliError(error.message, error.exitCode);
    case 'other':
      return new Error(error.message);
  }
}
