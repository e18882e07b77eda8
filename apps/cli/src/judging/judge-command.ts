import { basename, extname } from 'node:path';
import type { JudgeTemplate } from '@assay/judge';
import type { ModelPrice } from '@assay/llm';
import {
  checkRelevanceTemplate,
  ensureJudgeJob,
  estimateJudgeRun,
  exportLabelsAsQrels,
  judgeEndpointIdentity,
  judgeJobProgress,
  judgeJobStep,
  listJudgeFailures,
  newWorkerId,
  releaseDeadLocalLeases,
  retryJudgeJobFailures,
  startJudgeWorker,
  type JudgeItemInput,
  type JudgeWorkerProgress,
  type AssayConfig,
} from '@assay/platform';
import {
  commandHelp,
  FILE,
  FLAG,
  getopt,
  HELP_OPTION,
  integer,
  number,
  type OptionSpec,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import {
  asCliErrors,
  commandConfig,
  withDatabase,
  type PlatformCommandIo,
} from '../shell/platform-session.js';
import { prepareCommandStep, requireBudgetPrice } from '../shell/llm-step.js';
import { ownModelPrice, PRICE_OPTIONS } from '../shell/price-options.js';
import { EXIT } from '../shell/exit-codes.js';
import { withInterrupts } from '../shell/interrupts.js';
import { readItems } from './judge-items.js';
import { DOCS_FORMAT_OPTION } from '../shell/input-files.js';
import {
  ENDPOINT_OPTIONS,
  endpointOptions,
  JUDGES_OPTION,
  MODEL_OPTION,
  requireEndpoint,
  type EndpointOptions,
  loadCheckedTemplate,
} from './judge-options.js';
import { writeAtomically } from '../shell/write-atomically.js';
import { ProgressReporter, compact, formatCost } from '../shell/progress.js';
import {
  afterBatchClient,
  BATCH_OPTIONS,
  batchMode,
  runBatchMode,
  type BatchMode,
} from './batch-options.js';

export const JUDGE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'judge',
    key: 'judge',
    kind: TEXT,
    arg: 'ID',
    help: 'a judge template of judges/ (graded-0-3, graded-0-4, binary-filter)',
  },
  {
    long: 'topics',
    key: 'topics',
    kind: FILE,
    arg: 'FILE',
    help: `topics: TSV, JSONL, TREC <top> or cran.qry (description and narrative are used
when the judge asks for them; JSONL topics' user_background, previous_turns
and reference_answer fill graded-0-4's background, history and reference
answer)`,
  },
  {
    long: 'docs',
    key: 'docs',
    kind: FILE,
    arg: 'FILE',
    help: `documents: JSONL {"id","title"?,"text"}, TSV id<TAB>[title<TAB>]text or
Cranfield cran.all.1400, plain or gzip`,
  },
  DOCS_FORMAT_OPTION,
  {
    long: 'pool',
    key: 'pool',
    kind: FILE,
    arg: 'FILE',
    help: 'the pool: topic<TAB>docno lines in judging order (assay pool writes it)',
  },
  {
    long: 'depth',
    key: 'depth',
    kind: integer({ min: 1 }),
    arg: 'K',
    help: "or build the pool here from the RUNs given: each run's top K per topic (as assay pool)",
  },
  {
    long: 'out',
    key: 'out',
    kind: FILE,
    arg: 'QRELS',
    help: 'where the qrels go (written to a temporary file, then renamed)',
  },
  MODEL_OPTION,
  {
    long: 'concurrency',
    key: 'concurrency',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'items judged at once (default 8)',
  },
  {
    long: 'label-set',
    key: 'labelSet',
    kind: TEXT,
    arg: 'NAME',
    help: `the label set the labels go to (default: --out's name without its
extension); another judge, model or prompt needs another name`,
  },
  {
    long: 'collection',
    key: 'collection',
    kind: TEXT,
    arg: 'NAME',
    help: `the collection the label set belongs to (default judge-files,
created when absent)`,
  },
  ...ENDPOINT_OPTIONS,
  ...BATCH_OPTIONS,
  {
    long: 'dry-run',
    key: 'dryRun',
    kind: FLAG,
    help: 'print the calls, tokens and cost it would spend; send nothing',
  },
  {
    long: 'budget',
    key: 'budget',
    kind: number({ min: 0 }),
    arg: 'USD',
    help: 'stop claiming items once this run has paid USD; the rest stay pending',
  },
  ...PRICE_OPTIONS,
  JUDGES_OPTION,
  {
    long: 'enqueue',
    key: 'enqueue',
    kind: FLAG,
    help: `only create the job and its tasks, open to 'assay worker' processes
(and the server's worker) calling the same endpoint, on any machine sharing
DATABASE_URL; run without it to write the qrels`,
  },
  HELP_OPTION,
];

export const JUDGE_USAGE = commandHelp({
  usage: `assay judge --judge ID --topics FILE --docs FILE [--format jsonl|tsv|cranfield]
                   (--pool FILE | --depth K RUN...) --out QRELS [--model M]
                   [--concurrency N] [--label-set NAME]
                   [--collection NAME] [--base-url URL] [--dry-run] [--budget USD]
                   [--price-in USD --price-out USD]
                   [--rpm N] [--tpm N] [--timeout SECONDS] [--judges DIR] [--enqueue]
                   [--batch [--batch-poll SECONDS] | --batch-export FILE | --batch-import FILE]`,
  about: `Judges a pool with an LLM judge and writes the labels as TREC qrels (topic 0 docno grade).
Tasks, labels and every LLM call are kept in the database (PostgreSQL when DATABASE_URL
is set, else embedded PGlite under ASSAY_DATA_DIR, default ./.assay), so running the same
command again after a crash or Ctrl-C judges only what is left, and an answer already
paid for is never asked again (the request hash is the cache key). The job records the
endpoint it is judged at (--base-url or OPENAI_BASE_URL; never the key) and is judged by
this command alone: the server's worker and 'assay worker' leave it alone unless it was
made with --enqueue or a worker names it with --job on the same endpoint.`,
  sections: [{ specs: JUDGE_OPTIONS }],
  notes: `Progress (done/total, items/s, ETA, tokens, cost) goes to stderr: a bar on a terminal,
a line every 5 s otherwise; a model with no price shows its cost as unknown, never $0.
Ctrl-C stops claiming and sending (no new call or retry) and lets the calls in flight
finish, writing what they answered and putting the rest back; a second Ctrl-C puts the
items in flight back to pending and exits at once. Failed items (an unreadable answer
after re-asking, or an endpoint that kept failing) are listed with their reason; the next
run tries them again with new requests (the unreadable answers stay stored). When the endpoint cannot be reached
at all (connection refused, unknown host) for 3 items in a row, the run stops, names
the URL and leaves those items pending. A call that gets no answer within --timeout is
tried once more, then its item goes back to pending; 3 such items in a row stop the run
the same way. Only answered calls count as paid.

--batch sends the calls still needed through the OpenAI Batch API (half price unless
prices.json gives a "batch" price), polls it, stores the answers and judges from them with
nothing sent live; what a batch did not answer is submitted again (only that), and a run
stopped while it waits picks up the same batch (recorded in the data directory's batches/).
--batch-export writes those calls as a batch input file (JSONL, custom_id = request hash,
as the Batch API and 'vllm run-batch' read it); --batch-import loads the output file.

Exit status: 0 every item labelled; 1 usage, configuration or database error;
2 unreadable or malformed input; 4 the label set belongs to another judge configuration;
5 some items failed (the qrels hold the others); 6 stopped by --budget, Ctrl-C or an
endpoint that cannot be reached or does not answer in time, or other workers hold the
rest, with items left (the qrels hold those labelled so far).`,
});

/** CommandIo of the judging commands: whether stderr is a terminal, and signal handling. */
export interface JudgeCommandIo extends PlatformCommandIo {
  /** Whether stderr is a terminal (default: process.stderr.isTTY). */
  stderrIsTTY?: boolean;
}

/** `assay judge`: judge a pool from files, crash-safe and resumable, into a qrels file. */
export async function judgeCommand(argv: readonly string[], io: JudgeCommandIo): Promise<number> {
  const parsed = getopt(argv, JUDGE_OPTIONS);
  const { options, positionals } = parsed;
  if (options.has('help')) {
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
  const concurrency = parsed.number('concurrency') ?? 8;
  const budget = parsed.number('budget');
  const endpoint = endpointOptions(parsed);
  const labelSet = option('labelSet') ?? basename(out, extname(out));
  if (labelSet.trim() === '') throw new UsageError('--label-set must not be empty');
  const collection = option('collection') ?? 'judge-files';
  const batch = batchMode(option, (key) => options.has(key));

  const template = loadTemplate(judgeId, option('judges'));
  const config = await commandConfig(io);
  const asked = option('model');
  const price = ownModelPrice(parsed);
  const step = await prepareCommandStep(config, {
    ...(asked === undefined ? {} : { model: asked }),
    ...(template.model.name ? { templateModel: template.model.name } : {}),
    endpoint,
    ...(price ? { price } : {}),
    concurrency,
  });
  const { model, prices } = step;

  // Everything is read and checked before the database is opened or anything is sent.
  const items = readItems({
    template,
    topicsFile,
    docsFile,
    docsFormat: option('format'),
    poolFile,
    depth: parsed.number('depth'),
    runFiles: positionals,
  });
  const job: JudgeRun = { collection, labelSet, template, settings: { model }, items };
  const where = await asCliErrors(async () => judgeEndpointIdentity(config, endpoint));
  if (where !== undefined) job.endpoint = where;
  if (options.has('dryRun')) return dryRun(io, job, prices);
  if (options.has('enqueue')) return enqueue(io, job);
  if (budget !== undefined) await requireBudgetPrice(config, prices, model);
  if (batch === undefined || batch.kind === 'submit') requireEndpoint(config, endpoint);
  return judgeIntoQrels(io, job, {
    batch,
    prices,
    out,
    budget,
    concurrency,
    endpoint: step.endpoint,
    config,
  });
}

/** What one `assay judge` command judges: the label set, the judge and the pool items. */
interface JudgeRun {
  collection: string;
  labelSet: string;
  template: JudgeTemplate;
  settings: { model: string };
  items: JudgeItemInput[];
  /** Where it is judged (the configured endpoint), when one is configured. */
  endpoint?: string;
}

/** --dry-run: the calls, tokens and cost the run would spend; nothing is sent or written. */
function dryRun(
  io: JudgeCommandIo,
  job: JudgeRun,
  prices: Readonly<Record<string, ModelPrice>>,
): Promise<number> {
  return withDatabase(io, async (db) => {
    const e = await estimateJudgeRun(db, { ...job, prices });
    const model = job.settings.model;
    io.stdout(
      `dry run: judge ${job.template.id}, model ${model}, label set "${job.labelSet}"\n` +
        `  ${e.items} pool items: ${e.alreadyLabelled} already labelled, ${e.cached} answered by stored calls\n` +
        `  calls to send: ${e.calls}\n` +
        `  estimated tokens: ${e.promptTokens} prompt + at most ${e.completionTokens} completion\n` +
        `  estimated cost: ${e.costUsd === undefined ? `unknown (no price for ${model})` : `at most $${e.costUsd.toFixed(4)}`}\n` +
        `  template slots (what the items fill in):\n` +
        e.slots
          .map(
            (c) =>
              `    {{${c.slot}}}${c.required ? '' : ' (optional)'}: ${c.filled} of ${c.items} items` +
              (c.emptyTopics.length === 0
                ? ''
                : c.filled === 0
                  ? '; empty for every topic'
                  : `; empty for topic${c.emptyTopics.length === 1 ? '' : 's'} ${c.emptyTopics.slice(0, 10).join(', ')}${c.emptyTopics.length > 10 ? ', …' : ''}`) +
              '\n',
          )
          .join('') +
        `nothing was sent.\n`,
    );
    return EXIT.ok;
  });
}

/**
 * The same tasks on every run of the same command: what makes a rerun resume. The job is
 * judged where this command's endpoint is (a rerun with another endpoint moves it there);
 * a new job is this command's alone unless `access` opens it to workers.
 */
function ensureJob(
  db: Parameters<typeof ensureJudgeJob>[0],
  job: JudgeRun,
  access: 'open' | 'reserved',
) {
  return ensureJudgeJob(db, { ...job, createCollection: true, access });
}

/** --enqueue: only the job and its tasks, for `assay worker` processes to judge. */
function enqueue(io: JudgeCommandIo, job: JudgeRun): Promise<number> {
  return withDatabase(io, async (db) => {
    const ensured = await ensureJob(db, job, 'open');
    const counts = await judgeJobProgress(db, ensured.job.id);
    const where = ensured.job.endpoint;
    io.stdout(
      `judge job ${ensured.job.id} (label set "${job.labelSet}", id ${ensured.labelSet.id}): ` +
        `${counts.total} items, ${ensured.added} added, ${counts.pending} pending, ${counts.labelled} labelled\n` +
        (where === null
          ? `it is judged at the endpoint of the first worker that takes it: run 'assay worker' on the same database (DATABASE_URL or data directory)\n`
          : `it is judged at ${where}: run 'assay worker' calling that endpoint (--base-url or OPENAI_BASE_URL) on the same database (DATABASE_URL or data directory)\n`),
    );
    if (ensured.movedFrom !== undefined)
      io.stderr(`assay judge: job ${ensured.job.id} moved from ${ensured.movedFrom} to ${where}\n`);
    return EXIT.ok;
  });
}

/** The default mode: judge what is left here, then write the label set as qrels. */
function judgeIntoQrels(
  io: JudgeCommandIo,
  job: JudgeRun,
  run: {
    batch: BatchMode | undefined;
    prices: Readonly<Record<string, ModelPrice>>;
    out: string;
    budget: number | undefined;
    concurrency: number;
    endpoint: EndpointOptions;
    config: AssayConfig;
  },
): Promise<number> {
  const { out, budget, concurrency, endpoint, config, batch } = run;
  const labelSet = job.labelSet;
  return withDatabase(io, async (db, _config, session) => {
    const ensured = await ensureJob(db, job, 'reserved');
    const jobId = ensured.job.id;
    const freed = await releaseDeadLocalLeases(db, jobId);
    const { retried } = await retryJudgeJobFailures(db, jobId);
    const before = await judgeJobProgress(db, jobId);
    io.stderr(
      `assay judge: ${ensured.created ? 'created' : 'resuming'} label set "${labelSet}" (id ${ensured.labelSet.id}): ` +
        `${before.total} items, ${before.labelled} labelled, ${before.pending} to judge` +
        `${ensured.added && !ensured.created ? `, ${ensured.added} new` : ''}` +
        `${retried ? `, ${retried} failed before and tried again` : ''}` +
        `${freed ? `, ${freed} taken back from a killed run` : ''}` +
        `${before.running ? `, ${before.running} held by other workers` : ''}` +
        `${ensured.movedFrom === undefined ? '' : `; judged at ${ensured.job.endpoint} from now on, no longer at ${ensured.movedFrom}`}\n`,
    );
    const workerId = newWorkerId();
    if (batch) {
      const step = judgeJobStep(db, jobId);
      const stopped = await withInterrupts(io, db, workerId, (signal) =>
        runBatchMode(io, 'assay judge', batch, db, step, {
          config,
          endpoint,
          prices: run.prices,
          signal,
        }),
      );
      if (stopped !== undefined) return stopped;
    }
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
          unpricedCalls: p.unpricedCalls,
          paidCalls: p.paidCalls,
        });
      return startJudgeWorker(db, {
        config,
        endpoint,
        ...(batch ? { client: afterBatchClient(batch) } : {}),
        jobIds: [jobId],
        workerId,
        concurrency,
        signal,
        ...(budget === undefined ? {} : { budgetUsd: budget }),
        ...(session.giveUpMs === undefined ? {} : { databaseGiveUpMs: session.giveUpMs }),
        onProgress: show,
        onNotice: (message) => io.stderr(`assay judge: ${message}\n`),
      }).finally(() => reporter.finish());
    });

    const after = await judgeJobProgress(db, jobId);
    const qrels = await exportLabelsAsQrels(db, ensured.labelSet.id);
    writeAtomically(out, qrels);
    io.stdout(
      `labelled ${after.labelled} of ${after.total} items (${result.labelled} this run, ${result.cachedAnswers} of them from stored answers); ` +
        `${result.paidCalls} calls paid, ${compact(result.promptTokens + result.completionTokens)} tokens, ${formatCost(result.costUsd, result.unpricedCalls, result.paidCalls)}\n` +
        `wrote ${out}: label set "${labelSet}" (id ${ensured.labelSet.id}), ${qrels === '' ? 0 : qrels.split('\n').length - 1} labels\n`,
    );
    if (result.unpricedCalls > 0)
      io.stderr(
        `cost unknown for ${result.unpricedCalls} calls: no price for ${job.settings.model} (give one with --price-in and --price-out, or in prices.json)\n`,
      );
    if (after.failed > 0) reportFailures(io, after.failed, await listJudgeFailures(db, jobId));
    if (result.stoppedBy === 'endpoint')
      io.stderr(`assay judge: stopped: ${result.endpointError}\n`);
    if (after.pending + after.running > 0) {
      const why =
        result.stoppedBy === 'budget'
          ? `the budget of $${budget} was reached`
          : result.stoppedBy === 'signal'
            ? 'interrupted'
            : result.stoppedBy === 'endpoint'
              ? result.endpointTimedOut
                ? 'the model endpoint does not answer in time'
                : 'the model endpoint cannot be reached'
              : 'other workers hold the rest';
      io.stderr(
        `${after.pending + after.running} items not judged yet (${why}); run the same command again to go on\n`,
      );
      return EXIT.judgeStopped;
    }
    return after.failed > 0 ? EXIT.judgeFailed : EXIT.ok;
  });
}

/** The failed items on stderr: a count per reason, then the first 20 with their answers. */
function reportFailures(
  io: JudgeCommandIo,
  failed: number,
  failures: Array<{ topicId: string; docId: string; error: string; raw: string | null }>,
): void {
  const reasons = new Map<string, number>();
  for (const f of failures) {
    const reason = f.error.replace(/^(unreadable answer after \d+ attempts):.*$/, '$1');
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const lines = [`${failed} items failed:`];
  for (const [reason, n] of reasons) lines.push(`  ${n} × ${reason}`);
  for (const f of failures.slice(0, 20))
    lines.push(
      `  ${f.topicId} ${f.docId}: ${f.error}${f.raw ? ` — answer: ${JSON.stringify(f.raw.slice(0, 200))}` : ''}`,
    );
  if (failures.length > 20) lines.push(`  … and ${failures.length - 20} more`);
  io.stderr(`${lines.join('\n')}\n`);
}

/** The relevance judge `judgeId`: an unknown or unfit judge is a usage error. */
function loadTemplate(judgeId: string, dir: string | undefined): JudgeTemplate {
  return loadCheckedTemplate(judgeId, dir, checkRelevanceTemplate);
}
