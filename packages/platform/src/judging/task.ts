import {
  getJudgeJob,
  isDatabaseUnavailable,
  type ClaimedJudgeTask,
  type JsonObject,
  type JudgeTaskFailure,
  type JudgeTaskLabel,
  type Queryable,
} from '@assay/db';
import {
  buildJudgeRequest,
  judgeItem,
  type JudgeDeps,
  type JudgeSettings,
  type JudgeTemplate,
  type TemplateValues,
} from '@assay/judge';
import { chatRequestHash, firstAttemptOf, type LlmCallRecord } from '@assay/llm';
import { whileUnavailable } from '../core/database-retry.js';

/** What judging a job's tasks needs: the template and settings stored with the job. */
export interface JudgeJobSpec {
  template: JudgeTemplate;
  settings: JudgeSettings;
}

/** What became of one task: a label, a failure, or the task goes back to pending. */
export type JudgeTaskResult =
  | { kind: 'label'; label: JudgeTaskLabel; cached: boolean; paidCalls: LlmCallRecord[] }
  | { kind: 'fail'; failure: JudgeTaskFailure; paidCalls: LlmCallRecord[] }
  | {
      kind: 'release';
      /**
       * stopped: the run is stopping; endpoint, database: it could not be reached; timeout:
       * the endpoint did not answer in time (the call's timeouts are spent).
       */
      why: 'stopped' | 'endpoint' | 'database' | 'timeout';
      /** What went wrong, naming the endpoint. */
      error?: string;
      paidCalls: LlmCallRecord[];
    };

/**
 * Judges one claimed task with its job's template and settings (judgeItem: stored answers
 * reused, every call recorded through `deps.store`; a task tried again after failing asks
 * with new attempt numbers) and says what to write: its label, its
 * failure with the reason and raw answer, or that it goes back to pending because the run
 * is stopping, nothing could be reached (the endpoint, or the database for a stored
 * answer) or the endpoint did not answer in time. Writes nothing itself.
 */
export async function judgeTask(
  task: ClaimedJudgeTask,
  job: JudgeJobSpec,
  deps: JudgeDeps,
): Promise<JudgeTaskResult> {
  const { template, settings } = job;
  let outcome;
  try {
    // A task tried again after failing asks anew (its own attempt numbers): the answers
    // that could not be read last time are kept, but not read again.
    outcome = await judgeItem(
      template,
      task.values as TemplateValues,
      settings,
      deps,
      task.retries,
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (isDatabaseUnavailable(error))
      return { kind: 'release', why: 'database', error: reason, paidCalls: [] };
    // Not an endpoint failure (judgeItem reports those): the template cannot render the item.
    return { kind: 'fail', failure: { error: reason }, paidCalls: [] };
  }
  const paidCalls = outcome.paidCalls;
  const costUsd = paidCalls.reduce((sum, call) => sum + (call.costUsd ?? 0), 0);
  if (outcome.status === 'stopped') return { kind: 'release', why: 'stopped', paidCalls };
  if (outcome.status === 'failed') {
    if (outcome.unreachable)
      return { kind: 'release', why: 'endpoint', error: outcome.reason, paidCalls };
    // A hanging endpoint is no fault of the item's: it goes back to pending (the worker
    // fails it if it times out again in the same run).
    if (outcome.timedOut)
      return { kind: 'release', why: 'timeout', error: outcome.reason, paidCalls };
    return {
      kind: 'fail',
      failure: {
        error: outcome.reason,
        raw: outcome.raw ?? null,
        callHash: outcome.callHash ?? null,
        costUsd,
      },
      paidCalls,
    };
  }
  return {
    kind: 'label',
    label: {
      grade: outcome.judgment.grade!,
      producedBy: settings.model,
      rationale: justificationOf(outcome.judgment.fields),
      distribution: (outcome.distribution as unknown as JsonObject) ?? null,
      callHash: outcome.call.hash,
      costUsd,
    },
    cached: outcome.cached,
    paidCalls,
  };
}

/**
 * The request hashes of the first calls these tasks would make (a task whose template
 * cannot render it has none: it fails when judged).
 */
export async function firstRequestHashes(
  tasks: readonly ClaimedJudgeTask[],
  jobs: JudgeJobSpecs,
): Promise<string[]> {
  const hashes: string[] = [];
  for (const task of tasks) {
    const { template, settings } = await jobs.get(task.jobId);
    try {
      hashes.push(
        chatRequestHash(
          buildJudgeRequest(
            template,
            task.values as TemplateValues,
            settings,
            firstAttemptOf(settings, task.retries),
          ),
        ),
      );
    } catch {
      // Reported when the task is judged.
    }
  }
  return hashes;
}

/** The judge jobs' templates and settings, each read from the database once. */
export class JudgeJobSpecs {
  private readonly jobs = new Map<number, Promise<JudgeJobSpec>>();

  constructor(
    private readonly db: Queryable,
    /** Stops waiting for a database that cannot be reached. */
    private readonly signal?: AbortSignal,
  ) {}

  /** The spec of job `jobId` (a job that does not exist is an error). */
  get(jobId: number): Promise<JudgeJobSpec> {
    let loaded = this.jobs.get(jobId);
    if (!loaded) {
      loaded = whileUnavailable(() => getJudgeJob(this.db, jobId), { signal: this.signal }).then(
        (job) => {
          if (!job) throw new Error(`judge job ${jobId} does not exist`);
          return {
            template: job.template as unknown as JudgeTemplate,
            settings: job.settings as unknown as JudgeSettings,
          };
        },
      );
      // A failed read is tried again by the next caller.
      loaded.catch(() => this.jobs.delete(jobId));
      this.jobs.set(jobId, loaded);
    }
    return loaded;
  }
}

/** The answer fields that hold a judge's justification text, in the order they are looked for. */
const JUSTIFICATION_FIELDS = ['justification', 'rationale', 'reasoning', 'explanation'];

/**
 * A label's rationale: the judge's justification text when its answer has one, else null.
 * Other answer fields (sub-grades such as intent_match) stay in the stored call.
 */
function justificationOf(fields: Record<string, unknown>): string | null {
  for (const name of JUSTIFICATION_FIELDS) {
    const value = fields[name];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
}
