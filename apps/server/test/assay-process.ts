// `assay serve` as a child process, as users start it (npm start runs the same command):
// shared by the process-level tests.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Builds the CLI bundle when it is missing (test/global-setup.ts builds it before a run). */
export function ensureCliBundle(): void {
  // Rebuilding while other test files run `assay` would pull files from under them.
  if (!existsSync(join(root, 'apps/cli/dist/assay.mjs')))
    execFileSync(process.execPath, ['apps/cli/build.mjs'], { cwd: root });
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A running `assay serve`. */
export interface Assay {
  child: ChildProcess;
  port: number;
  url: string;
  output(): string;
  /** Sends a signal and resolves with the exit code (or the signal's name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

const started = new Set<ChildProcess>();

/** Kills (SIGKILL) every `assay serve` still running; for afterEach. */
export function killStartedAssays(): void {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  started.clear();
}

/** Starts `node apps/cli/bin/assay.js serve …` and waits until /api/health answers. */
export async function startAssay(env: Record<string, string>, args: string[] = []): Promise<Assay> {
  const port = Number(env.PORT ?? args[args.indexOf('--port') + 1]);
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  if (!('DATABASE_URL' in env)) delete childEnv.DATABASE_URL;
  if (!('ASSAY_ADMIN_TOKEN' in env)) delete childEnv.ASSAY_ADMIN_TOKEN;
  const child = spawn(process.execPath, ['apps/cli/bin/assay.js', 'serve', ...args], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const url = `http://127.0.0.1:${port}/api`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`assay serve exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`assay serve did not answer in time:\n${output}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    port,
    url,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
