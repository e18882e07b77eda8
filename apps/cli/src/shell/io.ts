/** Where the evaluation worker script is and how many threads may run it. */
export interface Parallelism {
  workerUrl: URL;
  threads: number;
  /**
   * Bytes of run files each thread gets at least: a worker thread costs its start-up
   * (loading the code, copying the qrels), which pays only on large inputs.
   */
  bytesPerThread: number;
}

/** Where a command writes; tests pass their own to capture output. */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Worker threads commands may use for CPU-heavy work (absent: single-threaded). */
  parallelism?: Parallelism;
}

/** A failure the CLI reports as one line on stderr with the given exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
