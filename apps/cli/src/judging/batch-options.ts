// `--batch`, `--batch-export FILE` and `--batch-import FILE`, shared by the commands whose
// LLM step can go through the OpenAI Batch API or through files for offline engines.
import {
  batchesDir,
  batchInputFile,
  collectStepRequests,
  importBatchOutput,
  judgeBatchClient,
  refusingClient,
  runBatch,
  type AssayConfig,
  type BatchImport,
  type JudgeEndpointOptions,
  type LlmStep,
  type ModelPrice,
} from '@assay/platform';
import { EXIT } from '../shell/exit-codes.js';
import { FILE, FLAG, number, UsageError, type OptionSpec } from '../shell/getopt.js';
import type { PlatformCommandIo } from '../shell/platform-session.js';
import { formatCost } from '../shell/progress.js';
import { readText } from '../shell/read-input.js';
import { writeAtomically } from '../shell/write-atomically.js';

const POLL_SECONDS = number({ above: 0 });

/**
 * The batch options, declared once; `submit` names the Batch API flag (`batch`; the RAG
 * steps, whose `--batch N` is the items per prompt, say `batch-api`).
 */
export function batchOptions(submit: 'batch' | 'batch-api' = 'batch'): OptionSpec[] {
  return [
    {
      long: submit,
      key: submitKey(submit),
      kind: FLAG,
      help: `send the calls through the OpenAI Batch API (at batch prices): upload,
poll, import the answers, then finish from the stored answers; nothing is
sent live; a run stopped while it waits picks up the same batch`,
    },
    {
      long: 'batch-poll',
      key: 'batchPoll',
      kind: POLL_SECONDS,
      arg: 'SECONDS',
      help: `with --${submit}, time between polls of the batch (default 30)`,
    },
    {
      long: 'batch-export',
      key: 'batchExport',
      kind: FILE,
      arg: 'FILE',
      help: `write the calls still needed as a batch input file (JSONL, as the Batch
API and 'vllm run-batch' read it) and stop`,
    },
    {
      long: 'batch-import',
      key: 'batchImport',
      kind: FILE,
      arg: 'FILE',
      help: `load a batch output file (the Batch API's or 'vllm run-batch''s) into the
call store, then finish from the stored answers; nothing is sent live`,
    },
  ];
}

/** The key of the Batch API flag (`batch-api` beside `--batch N` needs a key of its own). */
function submitKey(submit: 'batch' | 'batch-api'): string {
  return submit === 'batch' ? 'batch' : 'batchApi';
}

/** The batch options of `assay judge` and `assay answers score`. */
export const BATCH_OPTIONS: readonly OptionSpec[] = batchOptions();

/** What the batch options ask for. */
export type BatchMode =
  | { kind: 'submit'; pollMs: number }
  | { kind: 'export'; file: string }
  | { kind: 'import'; file: string };

/** Reads the batch options: at most one of --batch, --batch-export, --batch-import. */
export function batchMode(
  option: (key: string) => string | undefined,
  has: (key: string) => boolean,
  submit: 'batch' | 'batch-api' = 'batch',
): BatchMode | undefined {
  const key = submitKey(submit);
  const given = [key, 'batchExport', 'batchImport'].filter(has);
  if (given.length > 1)
    throw new UsageError(`give only one of --${submit}, --batch-export and --batch-import`);
  const poll = option('batchPoll');
  if (poll !== undefined && !has(key)) throw new UsageError(`--batch-poll goes with --${submit}`);
  // Every command reads --batch-poll through the option layer, which checked it (> 0).
  const seconds = poll === undefined ? 30 : Number(poll);
  if (has(key)) return { kind: 'submit', pollMs: seconds * 1000 };
  const exported = option('batchExport');
  if (exported !== undefined) return { kind: 'export', file: nonEmpty('--batch-export', exported) };
  const imported = option('batchImport');
  if (imported !== undefined) return { kind: 'import', file: nonEmpty('--batch-import', imported) };
  return undefined;
}

function nonEmpty(flag: string, value: string): string {
  if (value.trim() === '') throw new UsageError(`${flag} needs a file`);
  return value;
}

/** The client of a run after a batch: it sends nothing, so what is missing fails with why. */
export function afterBatchClient(mode: BatchMode) {
  return refusingClient(
    mode.kind === 'import'
      ? 'no answer in the imported batch file (export what is missing with --batch-export)'
      : 'the batch did not answer this request (run again to submit it in a new batch)',
  );
}

/**
 * Runs a step's batch mode: export writes the file and returns the exit status; import
 * and submit fill the call store and return undefined (the command goes on, from the
 * stored answers), or an exit status when the wait was stopped.
 */
export async function runBatchMode(
  io: PlatformCommandIo,
  command: string,
  mode: BatchMode,
  db: Parameters<typeof collectStepRequests>[0],
  step: LlmStep,
  context: {
    config: AssayConfig;
    endpoint: JudgeEndpointOptions;
    prices: Readonly<Record<string, ModelPrice>>;
    signal?: AbortSignal;
  },
): Promise<number | undefined> {
  if (mode.kind === 'export') {
    const requests = await collectStepRequests(db, step);
    writeAtomically(mode.file, batchInputFile(requests));
    io.stdout(
      `wrote ${mode.file}: ${requests.length} requests without a stored answer; ` +
        `load the answers with --batch-import\n`,
    );
    return EXIT.ok;
  }
  if (mode.kind === 'import') {
    const text = readText(mode.file);
    const result = await importBatchOutput(db, step, text, context.prices);
    reportImport(io, command, mode.file, result);
    return undefined;
  }
  const result = await runBatch(db, {
    step,
    client: judgeBatchClient(context.config, context.endpoint),
    dir: batchesDir(context.config),
    prices: context.prices,
    pollMs: mode.pollMs,
    ...(context.signal ? { signal: context.signal } : {}),
    onProgress: (p) =>
      io.stderr(
        `${command}: batch ${p.batchId} ${p.status}: ${p.completed + p.failed} of ${p.total} done` +
          `${p.failed ? ` (${p.failed} failed)` : ''}\n`,
      ),
    onNotice: (message) => io.stderr(`${command}: ${message}\n`),
  });
  reportImport(io, command, `batch ${result.batches.join(', ') || '(none needed)'}`, result);
  if (result.stopped) {
    io.stderr(
      `${command}: stopped waiting; batch ${result.batches.at(-1)} goes on — run the same command again to wait for it (it is not submitted again)\n`,
    );
    return EXIT.judgeStopped;
  }
  return undefined;
}

function reportImport(io: PlatformCommandIo, command: string, from: string, r: BatchImport): void {
  const lines = [
    `${command}: ${from}: ${r.imported} answers stored (${formatCost(r.costUsd, r.unpricedCalls, r.imported)}${r.imported ? ' at batch prices' : ''})` +
      `${r.alreadyStored ? `, ${r.alreadyStored} already stored` : ''}` +
      `${r.failed.length ? `, ${r.failed.length} failed` : ''}` +
      `${r.unmatched.length ? `, ${r.unmatched.length} match no request` : ''}` +
      `${r.malformed.length ? `, ${r.malformed.length} unreadable lines` : ''}`,
  ];
  for (const f of r.failed.slice(0, 20)) lines.push(`  failed ${f.customId}: ${f.reason}`);
  for (const id of r.unmatched.slice(0, 20)) lines.push(`  no request has custom_id ${id}`);
  for (const m of r.malformed.slice(0, 20)) lines.push(`  line ${m.line}: ${m.reason}`);
  const more = Math.max(0, r.failed.length - 20) + Math.max(0, r.unmatched.length - 20);
  if (more > 0) lines.push(`  … and ${more} more`);
  io.stderr(`${lines.join('\n')}\n`);
}
