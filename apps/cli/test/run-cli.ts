import { runCli } from '../src/main.js';

/** What a CLI run returned: its exit code and what it printed. */
export type CliResult = { code: number; stdout: string; stderr: string };

/** Runs the CLI in-process and captures what it prints. */
export async function cli(...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}

/** The environment a test hands the CLI (DATABASE_URL, ASSAY_DATA_DIR, OPENAI_* ...). */
export type Env = Record<string, string | undefined>;

/**
 * Runs the CLI in-process with `env` as its environment (so against the database it
 * configures) and captures what it prints; `stderrIsTTY` fixes whether progress draws.
 */
export async function cliWith(
  options: { env: Env; stderrIsTTY?: boolean },
  ...argv: string[]
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    ...options,
  });
  return { code, stdout, stderr };
}

/** Runs the CLI in-process against the database `env` configures, progress never drawn. */
export function assay(env: Env, ...argv: string[]): Promise<CliResult> {
  return cliWith({ env, stderrIsTTY: false }, ...argv);
}
