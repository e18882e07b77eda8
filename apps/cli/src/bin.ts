import { availableParallelism } from 'node:os';
import { runCli } from './main.js';

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  // The bundle ships eval-worker.mjs beside assay.mjs.
  parallelism: {
    workerUrl: new URL('./eval-worker.mjs', import.meta.url),
    threads: availableParallelism(),
  },
});
process.exitCode = code;
