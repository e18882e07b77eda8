import { availableParallelism } from 'node:os';
import { runCli } from './main.js';

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  // The bundle ships eval-worker.mjs beside assay.mjs.
  parallelism: {
    workerUrl: new URL('./eval-worker.mjs', import.meta.url),
    threads: availableParallelism(),
    // 64 MiB is about a million run lines; ASSAY_EVAL_THREAD_BYTES changes it (tests use 1).
    bytesPerThread: Number(process.env.ASSAY_EVAL_THREAD_BYTES ?? 64 * 1024 * 1024),
  },
});
process.exitCode = code;
