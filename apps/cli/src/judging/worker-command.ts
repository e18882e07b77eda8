import {
  judgeEndpointIdentity,
  judgeJobStatus,
  judgeJobsWithWork,
  judgeWorkLeft,
  newWorkerId,
  releaseDeadLocalLeases,
  startJudgeWorker,
  type JudgeWorkLeftSummary,
  type NotTakenWhy,
} from '@assay/platform';
import {
  commandHelp,
  FLAG,
  getopt,
  HELP_OPTION,
  integer,
  type OptionSpec,
  TEXT,
  UsageError,
} from '../shell/getopt.js';
import { EXIT } from '../shell/exit-codes.js';
import { withInterrupts } from '../shell/interrupts.js';
import type { JudgeCommandIo } from './judge-command.js';
import { ENDPOINT_OPTIONS, endpointOptions, requireEndpoint } from './judge-options.js';
import { withDatabase } from '../shell/platform-session.js';
import { compact, formatCost, ProgressReporter } from '../shell/progress.js';

export const WORKER_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'job',
    key: 'job',
    kind: integer({ min: 1 }),
    arg: 'ID',
    help: `only this job (repeatable), also one that 'assay judge' keeps for itself;
it must be judged at this worker's endpoint (default: every active job open to
workers and recorded at this endpoint)`,
  },
  {
    long: 'model',
    key: 'model',
    kind: TEXT,
    arg: 'M',
    help: 'only jobs judged with model M (repeatable; default: any model)',
  },
  {
    long: 'concurrency',
    key: 'concurrency',
    kind: integer({ min: 1 }),
    arg: 'N',
    help: 'items judged at once (default 8)',
  },
  {
    long: 'follow',
    key: 'follow',
    kind: FLAG,
    help: 'keep polling for new tasks instead of exiting when none are left',
  },
  {
    long: 'lease',
    key: 'lease',
    kind: integer({ min: 1 }),
    arg: 'SECONDS',
    help: 'lease length (default 120), renewed while an item is judged',
  },
  ...ENDPOINT_OPTIONS,
  HELP_OPTION,
];

export const WORKER_USAGE = commandHelp({
  usage: `assay worker [--job ID]... [--model M]... [--concurrency N] [--follow]
                    [--base-url URL] [--rpm N] [--tpm N] [--timeout SECONDS]
                    [--lease SECONDS]`,
  about: `Judges the pending tasks of judge jobs in the database (DATABASE_URL; several workers on
several machines can share one PostgreSQL): claims tasks in priority order under a lease,
calls the model (OPENAI_BASE_URL or --base-url, OPENAI_API_KEY), and writes each label.
A worker that dies loses nothing: its leases expire and another worker takes the tasks
over (on the same machine at once). Jobs are created by 'assay judge' and the API.
Each job records the endpoint it is judged at, and a worker claims only from jobs recorded
at its own (a job with none recorded gets the endpoint of the first worker that takes it),
so one label set is never judged by two endpoints. Without --job it takes the jobs open
to workers ('assay judge --enqueue', the API), never those an 'assay judge' run keeps for
itself; --job N takes job N either way.`,
  sections: [{ specs: WORKER_OPTIONS }],
  notes: `Ctrl-C stops claiming and lets the items in flight finish; a second Ctrl-C puts them
back to pending and exits. When the model endpoint cannot be reached for 3 items in a
row (connection refused, unknown host), or its calls time out for 3 items in a row (each
tried once more), it names the URL, puts those items back and stops (with --follow:
pauses 30 s, doubling up to 10 min, and goes on).
Once out of work it says what is left: items other workers hold under their leases (a dead
worker's come back when its lease ends) and pending items of jobs it does not take, each
job with why (paused, another endpoint or model, kept by its 'assay judge' run).
Exit status: 0 nothing left for it to claim (what other workers hold included); 1 usage,
configuration or database error; 3 unknown job; 4 a job named with --job is judged at
another endpoint or with another model; 5 some items failed; 6 interrupted, or the
endpoint cannot be reached or does not answer in time.`,
});

/** `assay worker`: judge pending tasks of the database's judge jobs. */
export async function workerCommand(argv: readonly string[], io: JudgeCommandIo): Promise<number> {
  const parsed = getopt(argv, WORKER_OPTIONS);
  const { options, positionals } = parsed;
  if (options.has('help')) {
    io.stdout(`${WORKER_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const jobIds = parsed.all('job').map(Number);
  const models = parsed.all('model');
  const concurrency = parsed.number('concurrency') ?? 8;
  const leaseMs = (parsed.number('lease') ?? 120) * 1000;
  const endpoint = endpointOptions(parsed);
  return withDatabase(io, async (db, config, session) => {
    requireEndpoint(config, endpoint);
    for (const id of jobIds) await judgeJobStatus(db, id);
    const where = judgeEndpointIdentity(config, endpoint)!;
    const scope = { endpoint: where, ...(models.length > 0 ? { models } : {}) };
    const freed = await releaseDeadLocalLeases(db);
    const jobs = jobIds.length > 0 ? jobIds : await judgeJobsWithWork(db, scope);
    io.stderr(
      `assay worker: calling ${where}; ${jobs.length === 0 ? `no job open to workers at this endpoint${models.length > 0 ? ` with model ${models.join(', ')}` : ''} has work` : `jobs ${jobs.join(', ')}`}` +
        `${freed ? `; ${freed} tasks taken back from killed workers` : ''}` +
        `${options.has('follow') ? '; following new work' : ''}\n`,
    );
    const workerId = newWorkerId();
    const reporter = new ProgressReporter({
      label: 'worker',
      write: io.stderr,
      tty: io.stderrIsTTY ?? process.stderr.isTTY === true,
    });
    const result = await withInterrupts(io, db, workerId, (signal) =>
      startJudgeWorker(db, {
        config,
        endpoint,
        ...(jobIds.length > 0 ? { jobIds } : {}),
        ...(models.length > 0 ? { models } : {}),
        workerId,
        concurrency,
        leaseMs,
        signal,
        follow: options.has('follow'),
        ...(session.giveUpMs === undefined ? {} : { databaseGiveUpMs: session.giveUpMs }),
        onProgress: (p) =>
          reporter.update({
            done: p.labelled + p.failed,
            doneThisRun: p.labelled + p.failed,
            failed: p.failed,
            tokens: p.promptTokens + p.completionTokens,
            costUsd: p.costUsd,
            unpricedCalls: p.unpricedCalls,
            paidCalls: p.paidCalls,
          }),
        onNotice: (message) => io.stderr(`assay worker: ${message}\n`),
      }).finally(() => reporter.finish()),
    );
    io.stdout(
      `labelled ${result.labelled}, failed ${result.failed}` +
        `${result.lostLeases ? `, ${result.lostLeases} taken over by other workers` : ''}; ` +
        `${result.paidCalls} calls paid, ${result.cachedAnswers} answers from the store, ` +
        `${compact(result.promptTokens + result.completionTokens)} tokens, ${formatCost(result.costUsd, result.unpricedCalls, result.paidCalls)}` +
        `${result.putBack ? `; ${result.putBack} items put back to pending` : ''}\n`,
    );
    for (const f of result.failures.slice(0, 20))
      io.stderr(`failed: job ${f.jobId} ${f.topicId} ${f.docId}: ${f.reason}\n`);
    if (result.stoppedBy === 'endpoint') {
      io.stderr(`assay worker: stopped: ${result.endpointError}\n`);
      return EXIT.judgeStopped;
    }
    if (result.stoppedBy === 'signal') return EXIT.judgeStopped;
    // Out of work is not all done: say what is left, whose it is and why. Items other
    // workers hold are theirs to finish (or, once a dead worker's lease ends, anyone's):
    // this worker has nothing left to do, so a fleet of workers all exit 0.
    const left = await judgeWorkLeft(
      db,
      { ...scope, ...(jobIds.length > 0 ? { jobIds } : {}) },
      workerId,
    );
    for (const line of workLeftLines(left, where)) io.stderr(`assay worker: ${line}\n`);
    return result.failed > 0 ? EXIT.judgeFailed : 0;
  });
}

/** How many jobs' pending items the summary names one by one. */
const NAMED_JOBS = 10;

/** The summary's lines on what a worker out of work leaves (none when nothing is left). */
function workLeftLines(left: JudgeWorkLeftSummary, endpoint: string): string[] {
  const lines: string[] = [];
  const { held } = left;
  if (held.items > 0) {
    const ended =
      held.leaseEnded === held.items
        ? 'their leases have ended: run again to take them over'
        : `the last lease ending in ${Math.ceil(held.lastLeaseEndsInSeconds ?? 0)} s; a dead worker's items are taken over once its lease ends: run again then, or keep a worker running with --follow`;
    lines.push(
      `${held.items} items not judged yet: other workers hold them under their leases (job ${held.jobs.join(', ')}), ${ended}`,
    );
  }
  if (left.pending > 0)
    lines.push(
      `${left.pending} items are pending in the jobs it takes (added or put back since its last claim): run again to judge them`,
    );
  if (left.notTaken.length > 0) {
    const total = left.notTaken.reduce((sum, job) => sum + job.pending, 0);
    const named = left.notTaken
      .slice(0, NAMED_JOBS)
      .map(
        (job) =>
          `job ${job.jobId} (${job.pending} items): ${notTaken(job.why, job.jobId, endpoint)}`,
      );
    const more = left.notTaken.length - NAMED_JOBS;
    lines.push(
      `${total} pending items this worker does not take: ${named.join('; ')}${more > 0 ? `; and ${more} more jobs` : ''}`,
    );
  }
  return lines;
}

function notTaken(why: NotTakenWhy, jobId: number, endpoint: string): string {
  switch (why.reason) {
    case 'paused':
      return 'paused';
    case 'not-named':
      return 'not named with --job';
    case 'kept':
      return `kept by its 'assay judge' run (take it with --job ${jobId})`;
    case 'endpoint':
      return `judged at ${why.endpoint}, and this worker calls ${endpoint}`;
    case 'model':
      return `model ${why.model}, which this worker does not take (--model)`;
  }
}
