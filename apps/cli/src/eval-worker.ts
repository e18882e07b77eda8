// Worker-thread entry point of `assay eval`: evaluates the runs it is given and replies
// per run (see evaluate-files.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { handleWorkerRequest, type EvalWorkerRequest } from './evaluate-files.js';

handleWorkerRequest(workerData as EvalWorkerRequest, (reply) => parentPort!.postMessage(reply));
