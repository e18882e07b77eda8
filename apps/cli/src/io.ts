/** Where a command writes; tests pass their own to capture output. */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
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
