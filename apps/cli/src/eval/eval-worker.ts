// Worker-thread entry point of `assay eval`: evaluates runs from the shared queue, replies
// per run, then says it is done (see evaluate-files.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { handleWorkerRequest, type EvalWorkerRequest } from './evaluate-files.js';

await handleWorkerRequest(workerData as EvalWorkerRequest, (reply) =>
  parentPort!.postMessage(reply),
);
parentPort!.postMessage({ done: true });
