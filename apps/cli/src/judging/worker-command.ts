import {
  judgeEndpointIdentity,
  judgeJobStatus,
  judgeJobsWithWork,
  newWorkerId,
  releaseDeadLocalLeases,
  startJudgeWorker,
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
row (connection refused, unknown host) it names the URL, puts those items back and stops
(with --follow: pauses 30 s, doubling up to 10 min, and goes on).
Exit status: 0 nothing left to do; 1 usage, configuration or database error; 3 unknown
job; 4 a job named with --job is judged at another endpoint or with another model;
5 some items failed; 6 interrupted, or the endpoint cannot be reached.`,
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
    return result.failed > 0 ? EXIT.judgeFailed : 0;
  });
}
