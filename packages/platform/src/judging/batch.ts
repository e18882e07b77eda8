// LLM steps through the OpenAI Batch API or through files for offline engines. A step (a
// judge job, answer scoring, a RAG step) is run once with a client that sends nothing, which collects
// the requests it still needs (the call store answers the others); those go out as a batch
// input file, and the answers that come back go into the call store at batch prices. The
// step then runs as usual and finds every answer stored: nothing is sent live.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listJudgeTasks, type Queryable } from '@assay/db';
import { judgeItem, type TemplateValues } from '@assay/judge';
import {
  batchCallCost,
  batchInputLine,
  batchIsOver,
  ChatCallError,
  chatRequestHash,
  classifyHttpError,
  readBatchOutput,
  type BatchInfo,
  type BatchOutputReading,
  type CallStore,
  type ChatClient,
  type ChatRequest,
  type LlmCallRecord,
  type ModelPrice,
  type OpenAIBatchClient,
} from '@assay/llm';
import { DbCallStore } from '../llm/call-store.js';
import type { AssayConfig } from '../core/config.js';
import { JudgeJobSpecs } from './task.js';

/** What a step is run with: the client it asks and the store it looks answers up in. */
export interface LlmStepDeps {
  client: ChatClient;
  store: CallStore;
}

/** An LLM step (judging a job, scoring answers) run with the given client and store. */
export type LlmStep = (deps: LlmStepDeps) => Promise<unknown>;

/** Why a collecting run's calls fail: nothing is sent. */
const COLLECTED = 'not sent: collected for a batch';

/**
 * The chat requests `step` still needs: those the call store has no answer for, once each,
 * in the order the step asks them. Nothing is sent or written. A stored answer the step
 * cannot use makes its re-ask one of them.
 */
export async function collectStepRequests(db: Queryable, step: LlmStep): Promise<ChatRequest[]> {
  const found = new Map<string, ChatRequest>();
  const stored = new DbCallStore(db);
  await step({
    client: {
      complete: async (request) => {
        found.set(chatRequestHash(request), request);
        throw new ChatCallError(COLLECTED, { retryable: false });
      },
    },
    // Looked up in the database; the failed attempts of this run are not kept.
    store: { get: (hash) => stored.get(hash), put: async () => {} },
  });
  return [...found.values()];
}

/**
 * A step that stores its results only when it ends (the RAG steps: a nugget bank, an
 * assessment set): `run` runs it as a dry run, which reads the call store and stores
 * nothing, and hands every request it would send to `collect`; those reach the step's
 * client, so the batch collects them.
 */
export function dryRunStep(
  run: (deps: LlmStepDeps, collect: (request: ChatRequest) => void) => Promise<unknown>,
): LlmStep {
  return (deps) =>
    run(deps, (request) => {
      // The collecting client records the request and refuses it: nothing is sent.
      deps.client.complete(request).catch(() => {});
    });
}

/** A judge job's step: every pending task judged (16 at once), nothing written. */
export function judgeJobStep(db: Queryable, jobId: number): LlmStep {
  return async (deps) => {
    const tasks = await listJudgeTasks(db, jobId, { status: ['pending'] });
    const jobs = new JudgeJobSpecs(db);
    let next = 0;
    const worker = async () => {
      while (next < tasks.length) {
        const task = tasks[next++]!;
        const { template, settings } = await jobs.get(jobId);
        await judgeItem(template, task.values as TemplateValues, settings, deps, task.retries);
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, tasks.length) }, worker));
  };
}

/** The batch input file of these requests (JSONL, the request hash as `custom_id`). */
export function batchInputFile(requests: readonly ChatRequest[]): string {
  return requests.map((r) => `${batchInputLine(r)}\n`).join('');
}

/** What importing batch output lines did. */
export interface BatchImport {
  /** Answers stored now. */
  imported: number;
  /** Lines whose request already had a stored answer (kept as it was). */
  alreadyStored: number;
  /** Lines whose request failed, with the reason. */
  failed: Array<{ customId: string; reason: string }>;
  /** Lines whose custom_id is none of the step's requests. */
  unmatched: string[];
  /** Lines that are no batch output record (1-based, with the reason). */
  malformed: Array<{ line: number; reason: string }>;
  /** USD of the answers stored (at batch prices) and how many had no price. */
  costUsd: number;
  unpricedCalls: number;
}

function emptyImport(): BatchImport {
  return {
    imported: 0,
    alreadyStored: 0,
    failed: [],
    unmatched: [],
    malformed: [],
    costUsd: 0,
    unpricedCalls: 0,
  };
}

/**
 * Stores the answers of a batch output reading for the requests `wanted` (by request hash),
 * at batch prices; counts and names every other line.
 */
async function importReading(
  db: Queryable,
  reading: BatchOutputReading,
  wanted: ReadonlyMap<string, ChatRequest>,
  prices: Readonly<Record<string, ModelPrice>>,
  into: BatchImport,
): Promise<void> {
  const store = new DbCallStore(db);
  into.malformed.push(...reading.malformed);
  into.failed.push(...reading.failed.filter((f) => wanted.has(f.customId)));
  const others = [...reading.answers, ...reading.failed].filter((l) => !wanted.has(l.customId));
  for (const line of others)
    if (await store.get(line.customId)) into.alreadyStored++;
    else into.unmatched.push(line.customId);
  const now = new Date().toISOString();
  for (const { customId, answer } of reading.answers) {
    const request = wanted.get(customId);
    if (!request) continue;
    if (await store.get(customId)) {
      into.alreadyStored++;
      continue;
    }
    const record: LlmCallRecord = {
      hash: customId,
      model: request.model,
      request,
      response: answer.response,
      promptTokens: answer.promptTokens,
      completionTokens: answer.completionTokens,
      latencyMs: 0,
      createdAt: now,
    };
    if (answer.logprobs) record.logprobs = answer.logprobs;
    const cost = batchCallCost(request.model, answer, prices);
    if (cost === undefined) into.unpricedCalls++;
    else {
      record.costUsd = cost;
      into.costUsd += cost;
    }
    await store.put(record);
    into.imported++;
  }
}

/**
 * Loads a batch output file (OpenAI's or `vllm run-batch`'s) into the call store: the answers
 * to requests `step` still needs, at batch prices. Failed lines, lines that match none of
 * its requests and lines that are no output record are counted and named.
 */
export async function importBatchOutput(
  db: Queryable,
  step: LlmStep,
  text: string,
  prices: Readonly<Record<string, ModelPrice>>,
): Promise<BatchImport> {
  const wanted = new Map((await collectStepRequests(db, step)).map((r) => [chatRequestHash(r), r]));
  const result = emptyImport();
  await importReading(db, readBatchOutput(text), wanted, prices, result);
  return result;
}

/** A batch submitted and not yet imported, as the data directory keeps it. */
interface BatchRecord {
  /** The Batches endpoint it went to (public form). */
  endpoint: string;
  inputFileId: string;
  /** Absent between the upload and the batch's creation. */
  batchId?: string;
  hashes: string[];
  submittedAt: string;
}

/** Where submitted batches are recorded: `<dataDir>/batches/`. */
export function batchesDir(config: Pick<AssayConfig, 'dataDir'>): string {
  return join(config.dataDir, 'batches');
}

function recordPath(dir: string, record: Pick<BatchRecord, 'endpoint' | 'inputFileId'>): string {
  const key = createHash('sha256')
    .update(`${record.endpoint}\n${record.inputFileId}`)
    .digest('hex')
    .slice(0, 24);
  return join(dir, `${key}.json`);
}

function saveRecord(dir: string, record: BatchRecord): void {
  mkdirSync(dir, { recursive: true });
  const path = recordPath(dir, record);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(record)}\n`);
  renameSync(`${path}.tmp`, path);
}

function loadRecords(dir: string, endpoint: string): BatchRecord[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return [];
  }
  const records: BatchRecord[] = [];
  for (const name of names) {
    const record = JSON.parse(readFileSync(join(dir, name), 'utf8')) as BatchRecord;
    if (record.endpoint === endpoint) records.push(record);
  }
  return records;
}

/** Progress of the batch being waited for. */
export interface BatchProgress {
  batchId: string;
  status: string;
  total: number;
  completed: number;
  failed: number;
}

/** Options of {@link runBatch}. */
export interface BatchRunOptions {
  step: LlmStep;
  client: OpenAIBatchClient;
  /** Where submitted batches are recorded (see {@link batchesDir}). */
  dir: string;
  prices: Readonly<Record<string, ModelPrice>>;
  /** Stops waiting: the batch goes on at the provider and the next run picks it up. */
  signal?: AbortSignal;
  /** Time between polls in ms (default 30 000). */
  pollMs?: number;
  /** Batches submitted at most, resubmissions included (default 3). */
  maxSubmissions?: number;
  /** Requests per batch at most (default 50 000, the Batch API's limit). */
  maxRequests?: number;
  onProgress?: (progress: BatchProgress) => void;
  onNotice?: (message: string) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** How a batch run ended. */
export interface BatchRunResult extends BatchImport {
  /** Requests submitted by this run (resubmissions included). */
  submitted: number;
  /** The batches this run submitted or waited for. */
  batches: string[];
  /** Requests the step still needs (the live run will ask them). */
  missing: number;
  /** True when the signal stopped the wait (the batch goes on; run again to import it). */
  stopped: boolean;
}

/**
 * Runs a step's requests through the Batch API: the requests it still needs are uploaded
 * as a batch input file and a batch is created (recorded in `dir` before and after, so a
 * killed run waits for the same batch again instead of submitting another); the batch is
 * polled until it is over; its output and error files are downloaded and the answers
 * stored at batch prices. What is still missing after that (failed lines, an expired or
 * failed batch, re-asks of unusable answers) is submitted again, only that, up to
 * `maxSubmissions` batches in all; a submission that brings no answer ends the run.
 */
export async function runBatch(db: Queryable, options: BatchRunOptions): Promise<BatchRunResult> {
  const { client, dir } = options;
  const sleep = options.sleep ?? pause;
  const maxSubmissions = options.maxSubmissions ?? 3;
  const maxRequests = options.maxRequests ?? 50_000;
  const result: BatchRunResult = {
    ...emptyImport(),
    submitted: 0,
    batches: [],
    missing: 0,
    stopped: false,
  };
  let submissions = 0;
  let importedBefore = -1;
  for (;;) {
    const requests = await collectStepRequests(db, options.step);
    const wanted = new Map(requests.map((r) => [chatRequestHash(r), r]));
    result.missing = wanted.size;
    if (wanted.size === 0) return result;
    const open = loadRecords(dir, client.endpoint).filter((r) =>
      r.hashes.some((h) => wanted.has(h)),
    );
    if (open.length > 0) {
      for (const record of open) {
        if (!(await finish(db, record, wanted, options, sleep, result))) {
          result.stopped = true;
          return result;
        }
      }
      continue;
    }
    // Nothing waited for: submit what is missing, unless the last submission brought nothing.
    if (submissions >= maxSubmissions || result.imported === importedBefore) return result;
    importedBefore = result.imported;
    for (let i = 0; i < requests.length; i += maxRequests) {
      const part = requests.slice(i, i + maxRequests);
      const inputFileId = await client.uploadBatchFile(
        batchInputFile(part),
        `assay-batch-${Date.now()}.jsonl`,
      );
      const record: BatchRecord = {
        endpoint: client.endpoint,
        inputFileId,
        hashes: part.map(chatRequestHash),
        submittedAt: new Date().toISOString(),
      };
      saveRecord(dir, record);
      const batch = await client.createBatch(inputFileId);
      saveRecord(dir, { ...record, batchId: batch.id });
      options.onNotice?.(`submitted batch ${batch.id}: ${part.length} requests`);
      result.submitted += part.length;
    }
    submissions++;
  }
}

/**
 * Waits for a recorded batch to be over and imports its output and error files, then
 * forgets it. False when the signal stopped the wait.
 */
async function finish(
  db: Queryable,
  record: BatchRecord,
  wanted: ReadonlyMap<string, ChatRequest>,
  options: BatchRunOptions,
  sleep: NonNullable<BatchRunOptions['sleep']>,
  result: BatchRunResult,
): Promise<boolean> {
  const { client, dir } = options;
  let batchId = record.batchId;
  if (batchId === undefined) {
    // Killed between the upload and the batch's creation: created it may have been.
    const made =
      (await client.findBatchByInputFile(record.inputFileId)) ??
      (await client.createBatch(record.inputFileId));
    batchId = made.id;
    saveRecord(dir, { ...record, batchId });
  }
  if (!result.batches.includes(batchId)) result.batches.push(batchId);
  let batch: BatchInfo;
  for (;;) {
    if (options.signal?.aborted) return false;
    try {
      batch = await client.getBatch(batchId);
    } catch (error) {
      if (!classifyHttpError(error).retryable) throw error;
      options.onNotice?.(`${(error as Error).message}; polling again`);
      await sleep(options.pollMs ?? 30_000, options.signal);
      continue;
    }
    options.onProgress?.({
      batchId,
      status: batch.status,
      total: batch.counts?.total ?? record.hashes.length,
      completed: batch.counts?.completed ?? 0,
      failed: batch.counts?.failed ?? 0,
    });
    if (batchIsOver(batch.status)) break;
    await sleep(options.pollMs ?? 30_000, options.signal);
  }
  if (batch.status !== 'completed')
    options.onNotice?.(
      `batch ${batchId} ${batch.status}${batch.errors.length ? `: ${batch.errors.slice(0, 3).join('; ')}` : ''}; what it did not answer is submitted again`,
    );
  for (const file of [batch.outputFileId, batch.errorFileId])
    if (file !== undefined)
      await importReading(
        db,
        readBatchOutput(await client.fileContent(file)),
        wanted,
        options.prices,
        result,
      );
  rmSync(recordPath(dir, record), { force: true });
  return true;
}

/** Waits `ms`, or less when the signal aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A client for runs that must send nothing live: every call fails with `reason`. */
export function refusingClient(reason: string): ChatClient {
  return {
    complete: async () => {
      throw new ChatCallError(reason, { retryable: false });
    },
  };
}
