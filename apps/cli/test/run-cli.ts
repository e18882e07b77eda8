import { runCli } from '../src/main.js';

/** Runs the CLI in-process and captures what it prints. */
export async function cli(
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
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
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    ...options,
  });
  return { code, stdout, stderr };
}
