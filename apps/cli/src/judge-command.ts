import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { countJudgeTasks, releaseJudgeTasks, retryFailedJudgeTasks } from '@assay/db';
import { loadJudgeTemplates, type JudgeTemplate } from '@assay/judge';
import {
  defaultJudgesDir,
  ensureJudgeJob,
  estimateJudgeRun,
  exportLabelsAsQrels,
  judgeValues,
  judgeWorkerDeps,
  listJudgeFailures,
  loadPrices,
  newWorkerId,
  pricesFile,
  releaseDeadLocalLeases,
  runJudgeWorker,
  type JudgeEndpointOptions,
  type JudgeItemInput,
  type JudgeWorkerProgress,
} from '@assay/platform';
import { buildDepthPool } from '@assay/pooling';
import {
  parseCollection,
  parseRun,
  parseTopics,
  TrecFormatError,
  type CollectionDocument,
} from '@assay/trec';
import { readText } from './evaluate-files.js';
import { getopt, UsageError, type OptionSpec } from './getopt.js';
import { CliError } from './io.js';
import {
  EXIT,
  asCliErrors,
  commandConfig,
  withDatabase,
  type PlatformCommandIo,
} from './platform-session.js';
import { modelPriceOptions } from './price-options.js';
import { ProgressReporter, compact } from './progress.js';

/** Exit statuses of `assay judge` beyond the database commands' ones. */
export const JUDGE_EXIT = { failed: 5, stopped: 6 } as const;

export const JUDGE_USAGE = `Usage: assay judge --judge ID --topics FILE --docs FILE (--pool FILE | --depth K RUN...)
                   --out QRELS [--model M] [--concurrency N] [--label-set NAME]
                   [--collection NAME] [--base-url URL] [--dry-run] [--budget USD]
                   [--price-in USD --price-out USD] [--rpm N] [--tpm N] [--timeout SECONDS] [--judges DIR] [--enqueue]

Judges a pool with an LLM judge and writes the labels as TREC qrels (topic 0 docno grade).
Tasks, labels and every LLM call are kept in the database (PostgreSQL when DATABASE_URL
is set, else embedded PGlite under ASSAY_DATA_DIR, default ./.assay), so running the same
command again after a crash or Ctrl-C judges only what is left, and an answer already
paid for is never asked again (the request hash is the cache key).

  --judge ID          a judge template of judges/ (graded-0-3, graded-0-4, binary-filter)
  --topics FILE       topics: TSV, JSONL or TREC <top> (description and narrative are used
                      when the judge asks for them)
  --docs FILE         documents: JSONL {"id","title"?,"text"} or TSV id<TAB>[title<TAB>]text
  --pool FILE         the pool: topic<TAB>docno lines in judging order (assay pool writes it)
  --depth K RUN...    or build the pool here: each run's top K per topic (as assay pool)
  --out QRELS         where the qrels go (written to a temporary file, then renamed)
  --model M           model name (default ASSAY_JUDGE_MODEL, then the judge's own)
  --concurrency N     items judged at once (default 8)
  --label-set NAME    the label set the labels go to (default: --out's name without its
                      extension); another judge, model or prompt needs another name
  --collection NAME   the collection the label set belongs to (default judge-files,
                      created when absent)
  --base-url URL      an OpenAI-compatible endpoint (default OPENAI_BASE_URL, else OpenAI);
                      the key comes from OPENAI_API_KEY
  --dry-run           print the calls, tokens and cost it would spend; send nothing
  --budget USD        stop claiming items once this run has paid USD; the rest stay pending
  --price-in USD, --price-out USD
                      the model's price per million prompt / completion tokens, for the
                      cost, --dry-run and --budget (default: the data directory's
                      prices.json, then assay's list prices of common hosted models)
  --rpm N, --tpm N    at most N requests / tokens per minute
  --timeout SECONDS   per-request timeout (default 120)
  --judges DIR        read judge templates from DIR instead of the shipped judges/
  --enqueue           only create the job and its tasks (for 'assay worker' processes on
                      any machine sharing DATABASE_URL); run without it to write the qrels

Progress (done/total, items/s, ETA, tokens, cost) goes to stderr: a bar on a terminal,
a line every 5 s otherwise. Ctrl-C stops claiming and lets the items in flight finish;
a second Ctrl-C puts them back to pending and exits at once. Failed items (an unreadable
answer after re-asking, or an endpoint that kept failing) are listed with their reason;
the next run tries them again (stored answers cost nothing).

Exit status: 0 every item labelled; 1 usage, configuration or database error;
2 unreadable or malformed input; 4 the label set belongs to another judge configuration;
5 some items failed (the qrels hold the others); 6 stopped by --budget or Ctrl-C with
items left (the qrels hold those labelled so far).`;

const OPTIONS: OptionSpec[] = [
  { long: 'judge', key: 'judge', takesValue: true },
  { long: 'topics', key: 'topics', takesValue: true },
  { long: 'docs', key: 'docs', takesValue: true },
  { long: 'pool', key: 'pool', takesValue: true },
  { long: 'depth', key: 'depth', takesValue: true },
  { long: 'out', key: 'out', takesValue: true },
  { long: 'model', key: 'model', takesValue: true },
  { long: 'concurrency', key: 'concurrency', takesValue: true },
  { long: 'label-set', key: 'labelSet', takesValue: true },
  { long: 'collection', key: 'collection', takesValue: true },
  { long: 'base-url', key: 'baseUrl', takesValue: true },
  { long: 'dry-run', key: 'dryRun', takesValue: false },
  { long: 'budget', key: 'budget', takesValue: true },
  { long: 'price-in', key: 'priceIn', takesValue: true },
  { long: 'price-out', key: 'priceOut', takesValue: true },
  { long: 'rpm', key: 'rpm', takesValue: true },
  { long: 'tpm', key: 'tpm', takesValue: true },
  { long: 'timeout', key: 'timeout', takesValue: true },
  { long: 'judges', key: 'judges', takesValue: true },
  { long: 'enqueue', key: 'enqueue', takesValue: false },
  { short: 'h', long: 'help', key: 'h', takesValue: false },
];

/** CommandIo of the judging commands: whether stderr is a terminal, and signal handling. */
export interface JudgeCommandIo extends PlatformCommandIo {
  /** Whether stderr is a terminal (default: process.stderr.isTTY). */
  stderrIsTTY?: boolean;
}

/** `assay judge`: judge a pool from files, crash-safe and resumable, into a qrels file. */
export async function judgeCommand(argv: readonly string[], io: JudgeCommandIo): Promise<number> {
  const { options, positionals } = getopt(argv, OPTIONS);
  if (options.has('h')) {
    io.stdout(`${JUDGE_USAGE}\n`);
    return 0;
  }
  const option = (key: string) => options.get(key)?.at(-1);
  const required = (key: string, flag: string) => {
    const value = option(key);
    if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
    return value;
  };
  const judgeId = required('judge', '--judge');
  const topicsFile = required('topics', '--topics');
  const docsFile = required('docs', '--docs');
  const out = required('out', '--out');
  const poolFile = option('pool');
  const depthText = option('depth');
  if ((poolFile === undefined) === (depthText === undefined))
    throw new UsageError('give either --pool FILE or --depth K RUN...');
  if (poolFile !== undefined && positionals.length > 0)
    throw new UsageError(`unexpected argument '${positionals[0]}' (runs go with --depth)`);
  if (depthText !== undefined && positionals.length === 0)
    throw new UsageError('--depth needs at least one RUN');
  const concurrency = positiveInteger('--concurrency', option('concurrency') ?? '8');
  const budgetText = option('budget');
  const budget = budgetText === undefined ? undefined : nonNegativeNumber('--budget', budgetText);
  const endpoint = endpointOptions(option);
  const labelSet = option('labelSet') ?? basename(out, extname(out));
  if (labelSet.trim() === '') throw new UsageError('--label-set must not be empty');
  const collection = option('collection') ?? 'judge-files';

  const template = loadTemplate(judgeId, option('judges'));
  const config = await commandConfig(io);
  const model = option('model') ?? config.judgeModel ?? template.model.name;
  if (!model)
    throw new UsageError(
      "no model: give --model, set ASSAY_JUDGE_MODEL, or name one in the judge's front matter (model: { name })",
    );
  const settings = { model };
  const ownPrices = modelPriceOptions(option, model);
  const prices = await asCliErrors(async () => loadPrices(config, ownPrices));

  // Everything is read and checked before the database is opened or anything is sent.
  const items = readItems({
    template,
    topicsFile,
    docsFile,
    poolFile,
    depth: depthText === undefined ? undefined : positiveInteger('--depth', depthText),
    runFiles: positionals,
  });

  if (options.has('dryRun')) {
    return withDatabase(io, async (db) => {
      const e = await estimateJudgeRun(db, {
        collection,
        labelSet,
        template,
        settings,
        items,
        prices,
      });
      io.stdout(
        `dry run: judge ${template.id}, model ${model}, label set "${labelSet}"\n` +
          `  ${e.items} pool items: ${e.alreadyLabelled} already labelled, ${e.cached} answered by stored calls\n` +
          `  calls to send: ${e.calls}\n` +
          `  estimated tokens: ${e.promptTokens} prompt + at most ${e.completionTokens} completion\n` +
          `  estimated cost: ${e.costUsd === undefined ? `unknown (no price for ${model})` : `at most $${e.costUsd.toFixed(4)}`}\n` +
          `nothing was sent.\n`,
      );
      return 0;
    });
  }
  // The same tasks on every run of the same command: what makes a rerun resume.
  const ensureJob = (db: Parameters<typeof ensureJudgeJob>[0]) =>
    ensureJudgeJob(db, { collection, createCollection: true, labelSet, template, settings, items });
  if (options.has('enqueue')) {
    return withDatabase(io, async (db) => {
      const ensured = await ensureJob(db);
      const counts = await countJudgeTasks(db, ensured.job.id);
      io.stdout(
        `judge job ${ensured.job.id} (label set "${labelSet}", id ${ensured.labelSet.id}): ` +
          `${counts.total} items, ${ensured.added} added, ${counts.pending} pending, ${counts.labelled} labelled\n` +
          `run 'assay worker --job ${ensured.job.id}' with the same DATABASE_URL to judge them\n`,
      );
      return 0;
    });
  }
  if (budget !== undefined && !Object.hasOwn(prices, model))
    throw new UsageError(
      `--budget needs the price of ${model}: give --price-in and --price-out (USD per million tokens), or add it to ${pricesFile(config)}`,
    );
  const baseURL = endpoint.baseUrl ?? config.openaiBaseUrl;
  if (!baseURL && !config.openaiApiKey)
    throw new UsageError(
      'set OPENAI_API_KEY (and OPENAI_BASE_URL or --base-url for other endpoints)',
    );

  return withDatabase(io, async (db) => {
    const ensured = await ensureJob(db);
    const jobId = ensured.job.id;
    const freed = await releaseDeadLocalLeases(db, jobId);
    const retried = await retryFailedJudgeTasks(db, jobId);
    const before = await countJudgeTasks(db, jobId);
    io.stderr(
      `assay judge: ${ensured.created ? 'created' : 'resuming'} label set "${labelSet}" (id ${ensured.labelSet.id}): ` +
        `${before.total} items, ${before.labelled} labelled, ${before.pending} to judge` +
        `${ensured.added && !ensured.created ? `, ${ensured.added} new` : ''}` +
        `${retried ? `, ${retried} failed before and tried again` : ''}` +
        `${freed ? `, ${freed} taken back from a killed run` : ''}` +
        `${before.running ? `, ${before.running} held by other workers` : ''}\n`,
    );
    const workerId = newWorkerId();
    const result = await withInterrupts(io, db, workerId, (signal) => {
      const reporter = new ProgressReporter({
        label: 'judging',
        total: before.total,
        write: io.stderr,
        tty: io.stderrIsTTY ?? process.stderr.isTTY === true,
      });
      const show = (p: JudgeWorkerProgress) =>
        reporter.update({
          done: before.labelled + before.failed + p.labelled + p.failed,
          doneThisRun: p.labelled + p.failed,
          failed: p.failed,
          tokens: p.promptTokens + p.completionTokens,
          costUsd: p.costUsd,
        });
      return runJudgeWorker(db, {
        jobIds: [jobId],
        workerId,
        deps: judgeWorkerDeps(config, { ...endpoint, prices: ownPrices }, concurrency),
        concurrency,
        signal,
        ...(budget === undefined ? {} : { budgetUsd: budget }),
        onProgress: show,
      }).finally(() => reporter.finish());
    });

    const after = await countJudgeTasks(db, jobId);
    const qrels = await exportLabelsAsQrels(db, ensured.labelSet.id);
    writeAtomically(out, qrels);
    io.stdout(
      `labelled ${after.labelled} of ${after.total} items (${result.labelled} this run, ${result.cachedAnswers} of them from stored answers); ` +
        `${result.paidCalls} calls paid, ${compact(result.promptTokens + result.completionTokens)} tokens, $${result.costUsd.toFixed(4)}\n` +
        `wrote ${out}: label set "${labelSet}" (id ${ensured.labelSet.id}), ${qrels === '' ? 0 : qrels.split('\n').length - 1} labels\n`,
    );
    if (after.failed > 0) {
      const failures = await listJudgeFailures(db, jobId);
      const reasons = new Map<string, number>();
      for (const f of failures) {
        const reason = f.error.replace(/^(unreadable answer after \d+ attempts):.*$/, '$1');
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
      const lines = [`${after.failed} items failed:`];
      for (const [reason, n] of reasons) lines.push(`  ${n} × ${reason}`);
      for (const f of failures.slice(0, 20))
        lines.push(
          `  ${f.topicId} ${f.docId}: ${f.error}${f.raw ? ` — answer: ${JSON.stringify(f.raw.slice(0, 200))}` : ''}`,
        );
      if (failures.length > 20) lines.push(`  … and ${failures.length - 20} more`);
      io.stderr(`${lines.join('\n')}\n`);
    }
    if (after.pending + after.running > 0) {
      const why =
        result.stoppedBy === 'budget'
          ? `the budget of $${budget} was reached`
          : result.stoppedBy === 'signal'
            ? 'interrupted'
            : 'other workers hold the rest';
      io.stderr(
        `${after.pending + after.running} items not judged yet (${why}); run the same command again to go on\n`,
      );
      return JUDGE_EXIT.stopped;
    }
    return after.failed > 0 ? JUDGE_EXIT.failed : 0;
  });
}

/** Options shared by `assay judge` and `assay worker` for the endpoint and its pacing. */
export type EndpointOptions = JudgeEndpointOptions;

/** Reads --base-url, --rpm, --tpm and --timeout. */
export function endpointOptions(option: (key: string) => string | undefined): EndpointOptions {
  const endpoint: EndpointOptions = {};
  const baseUrl = option('baseUrl');
  if (baseUrl !== undefined) {
    if (!/^https?:\/\//.test(baseUrl))
      throw new UsageError(`--base-url must be an http(s) URL, not '${baseUrl}'`);
    endpoint.baseUrl = baseUrl;
  }
  const rpm = option('rpm');
  if (rpm !== undefined) endpoint.rpm = positiveInteger('--rpm', rpm);
  const tpm = option('tpm');
  if (tpm !== undefined) endpoint.tpm = positiveInteger('--tpm', tpm);
  const timeout = option('timeout');
  if (timeout !== undefined) {
    const seconds = nonNegativeNumber('--timeout', timeout);
    if (seconds <= 0) throw new UsageError('--timeout must be above 0');
    endpoint.timeoutMs = seconds * 1000;
  }
  return endpoint;
}

/**
 * Runs `work` with Ctrl-C (SIGINT) and SIGTERM turned into a graceful stop: the first stops
 * claiming and lets items in flight finish; a second puts this worker's tasks back to
 * pending and exits at once (130).
 */
export async function withInterrupts<T>(
  io: PlatformCommandIo,
  db: Parameters<typeof releaseJudgeTasks>[0],
  workerId: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onSignal = () => {
    if (!controller.signal.aborted) {
      io.stderr('\nstopping: finishing the items in flight (press Ctrl-C again to stop now)\n');
      controller.abort();
      return;
    }
    void releaseJudgeTasks(db, workerId)
      .catch(() => 0)
      .then((n) => {
        io.stderr(`stopped; ${n} items in flight put back to pending\n`);
        process.exit(130);
      });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function loadTemplate(judgeId: string, dir: string | undefined): JudgeTemplate {
  let templates: Map<string, JudgeTemplate>;
  try {
    templates = loadJudgeTemplates(dir ?? defaultJudgesDir());
  } catch (error) {
    throw new CliError(
      `cannot read judge templates: ${(error as Error).message}`,
      EXIT.invalidInput,
    );
  }
  const template = templates.get(judgeId);
  if (!template)
    throw new UsageError(`no judge '${judgeId}' (known: ${[...templates.keys()].join(', ')})`);
  if (!template.gradeField)
    throw new UsageError(
      `judge '${judgeId}' scores answers, not relevance; pick a relevance judge`,
    );
  return template;
}

/** Reads topics, documents and the pool (a file, or built from runs) into judge items. */
function readItems(input: {
  template: JudgeTemplate;
  topicsFile: string;
  docsFile: string;
  poolFile: string | undefined;
  depth: number | undefined;
  runFiles: readonly string[];
}): JudgeItemInput[] {
  const topics = new Map(
    parseTopics(readText(input.topicsFile), input.topicsFile).map((t) => [t.id, t]),
  );
  let pool: Array<{ topic: string; docno: string }>;
  if (input.poolFile !== undefined) pool = parsePoolFile(readText(input.poolFile), input.poolFile);
  else {
    const runs = input.runFiles.map((path) => parseRun(readText(path), path));
    pool = buildDepthPool(runs, { depth: input.depth!, topics: topics.keys() }).items;
  }
  const wanted = new Set(pool.map((p) => p.docno));
  const docs = new Map<string, CollectionDocument>();
  for (const doc of parseCollection(
    readText(input.docsFile),
    input.docsFile,
    docsFormat(input.docsFile),
  ))
    if (wanted.has(doc.id)) docs.set(doc.id, doc);
  const missingTopics = [...new Set(pool.map((p) => p.topic).filter((t) => !topics.has(t)))];
  if (missingTopics.length > 0)
    throw new CliError(
      `${missingTopics.length} pooled topics are not in ${input.topicsFile}: ${preview(missingTopics)}`,
      EXIT.invalidInput,
    );
  const missingDocs = [...wanted].filter((d) => !docs.has(d));
  if (missingDocs.length > 0)
    throw new CliError(
      `${missingDocs.length} pooled documents are not in ${input.docsFile}: ${preview(missingDocs)}`,
      EXIT.invalidInput,
    );
  return pool.map((p) => {
    const topic = topics.get(p.topic)!;
    const doc = docs.get(p.docno)!;
    return {
      topicId: p.topic,
      docId: p.docno,
      values: judgeValues(
        input.template,
        { query: topic.text, description: topic.description, narrative: topic.narrative },
        { title: doc.title, text: doc.text },
      ),
    };
  });
}

/** `topic<TAB>docno` lines (any whitespace), as `assay pool` writes them; blank lines skipped. */
export function parsePoolFile(text: string, file: string): Array<{ topic: string; docno: string }> {
  const items: Array<{ topic: string; docno: string }> = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 2)
      throw new TrecFormatError(
        file,
        index + 1,
        `expected topic<TAB>docno, got ${fields.length} fields`,
      );
    const key = `${fields[0]}\t${fields[1]}`;
    if (seen.has(key))
      throw new TrecFormatError(
        file,
        index + 1,
        `topic ${fields[0]} document ${fields[1]} is listed twice`,
      );
    seen.add(key);
    items.push({ topic: fields[0]!, docno: fields[1]! });
  });
  if (items.length === 0) throw new TrecFormatError(file, 0, 'the pool is empty');
  return items;
}

function docsFormat(file: string): 'jsonl' | 'tsv' {
  const name = basename(file).toLowerCase();
  if (/\.jsonl?$/.test(name)) return 'jsonl';
  if (/\.tsv$/.test(name)) return 'tsv';
  throw new UsageError(`cannot tell the format of ${file}; name it .jsonl or .tsv`);
}

function preview(list: readonly string[]): string {
  return `${list.slice(0, 5).join(', ')}${list.length > 5 ? ', …' : ''}`;
}

/** Writes `text` to `path` through a temporary file and a rename: never a half-written file. */
export function writeAtomically(path: string, text: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new CliError(
      `${path}: cannot write (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      EXIT.invalidInput,
    );
  }
}

/** A `--flag N` value that must be a positive integer. */
export function positiveInteger(name: string, text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1)
    throw new UsageError(`${name} needs a positive integer, not '${text}'`);
  return Number(text);
}

function nonNegativeNumber(name: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0)
    throw new UsageError(`${name} needs a number >= 0, not '${text}'`);
  return value;
}
