import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
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
  resolveMeasures,
  type EvaluationOptions,
  type PreparedRelevance,
  type RunEvaluation,
} from '@assay/measures';
import { parseRun, TrecFormatError, type Prefs, type Qrels, type QrelsJg } from '@assay/trec';
import { CliError } from './io.js';

/**
 * Parsed relevance information: TREC qrels, or (trec_eval's `-R qrels_jg`, `-R prefs`,
 * `-R qrels_prefs`) judgment-group qrels or preferences. Plain data, so it can be handed
 * to worker threads as it is.
 */
export type RelevanceInput =
  Qrels | { format: 'qrels_jg'; qrels: QrelsJg } | { format: 'prefs'; prefs: Prefs };

/** Prepares parsed relevance information for evaluation. */
export function prepareRelevance(input: RelevanceInput): PreparedRelevance {
  if (input instanceof Map) return prepareQrels(input);
  if (input.format === 'qrels_jg') return prepareJudgmentGroups(input.qrels);
  return preparePreferences(input.prefs);
}

/** Where the worker script is and how many threads may run it. */
export interface Parallelism {
  workerUrl: URL;
  threads: number;
}

/** What a worker thread is asked to do: evaluate some of the runs against the qrels. */
export interface EvalWorkerRequest {
  qrels: RelevanceInput;
  measureSpecs: string[];
  options: EvaluationOptions;
  jobs: Array<{ index: number; path: string }>;
  /** Also render trec_eval text with these options (done in the worker, in parallel). */
  text?: TrecTextOptions;
}

/** One evaluated run, with its trec_eval text when that was asked for. */
export interface EvaluatedRun {
  result: RunEvaluation;
  text?: string;
}

/** What a worker sends back for each run. */
export type EvalWorkerReply =
  | { index: number; result: RunEvaluation; text?: string }
  | { index: number; error: SerializedError };

type SerializedError =
  | { kind: 'format'; file: string; line: number; reason: string }
  | { kind: 'missing'; qid: string; runid: string }
  | { kind: 'cli'; message: string; exitCode: number }
  | { kind: 'other'; message: string };

/**
 * Reads a UTF-8 text file, turning I/O failures into a CLI error naming the file. Pure-ASCII
 * files (most TREC files) skip UTF-8 decoding, which is several times slower for large runs.
 */
export function readText(path: string): string {
  try {
    const bytes = readFileSync(path);
    return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new CliError(`${path}: cannot read file (${code})`, 2);
  }
}

/** Parses and evaluates one run file. */
export function evaluateRunFile(
  qrels: PreparedRelevance,
  path: string,
  measures: ReturnType<typeof resolveMeasures>,
  options: EvaluationOptions,
): RunEvaluation {
  // Only the judged topics are evaluated, so only their entries are kept.
  const run = parseRun(readText(path), path, { topics: new Set(qrels.topics) });
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
 * script and more than one thread, runs are spread over worker threads (the qrels are
 * parsed once, here, and handed to each worker); the first failing run in argument order
 * decides the error, so output never depends on thread timing.
 */
export async function evaluateRunFiles(
  qrels: RelevanceInput,
  runPaths: readonly string[],
  measureSpecs: string[],
  options: EvaluationOptions,
  parallelism?: Parallelism,
  text?: TrecTextOptions,
): Promise<EvaluatedRun[]> {
  const measures = resolveMeasures(measureSpecs);
  const threads = Math.min(parallelism?.threads ?? 1, runPaths.length);
  if (!parallelism || threads < 2) {
    const prepared = prepareRelevance(qrels);
    return runPaths.map((path) => {
      const result = evaluateRunFile(prepared, path, measures, options);
      return text ? { result, text: formatTrecText(result, text) } : { result };
    });
  }
  const replies: EvalWorkerReply[] = [];
  await Promise.all(
    Array.from({ length: threads }, (_, w) => {
      const jobs = runPaths.flatMap((path, index) =>
        index % threads === w ? [{ index, path }] : [],
      );
      const request: EvalWorkerRequest = { qrels, measureSpecs, options, jobs };
      if (text) request.text = text;
      return runWorker(parallelism.workerUrl, request, replies);
    }),
  );
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

function runWorker(
  url: URL,
  request: EvalWorkerRequest,
  replies: EvalWorkerReply[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    // A larger young generation: parsing allocates many short-lived strings and entries,
    // and fewer scavenges make a run file noticeably faster to read.
    const worker = new Worker(url, {
      workerData: request,
      resourceLimits: { maxYoungGenerationSizeMb: 96 },
    });
    let received = 0;
    worker.on('message', (reply: EvalWorkerReply) => {
      replies.push(reply);
      if (++received === request.jobs.length) void worker.terminate();
    });
    worker.on('error', reject);
    worker.on('exit', () => {
      if (received === request.jobs.length) resolve();
      else
        reject(
          new Error(`evaluation worker stopped after ${received} of ${request.jobs.length} runs`),
        );
    });
  });
}

/** Runs a worker's jobs in order, replying per run; used by the worker entry point. */
export function handleWorkerRequest(
  request: EvalWorkerRequest,
  reply: (r: EvalWorkerReply) => void,
): void {
  const prepared = prepareRelevance(request.qrels);
  const measures = resolveMeasures(request.measureSpecs);
  for (const job of request.jobs) {
    try {
      const result = evaluateRunFile(prepared, job.path, measures, request.options);
      if (request.text)
        reply({ index: job.index, result, text: formatTrecText(result, request.text) });
      else reply({ index: job.index, result });
    } catch (error) {
      reply({ index: job.index, error: serializeError(error) });
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
