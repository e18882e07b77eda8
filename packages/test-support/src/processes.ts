// Processes as a killed command leaves them: a child killed while its parent does not reap
// it (a container's PID 1 without an init, a supervisor busy elsewhere) stays a zombie,
// whose pid signals still reach although it holds nothing any more.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A child of a parent that does not reap it until asked to. */
export interface UnreapedChild {
  /** The child's process id. */
  readonly pid: number;
  /** Lets the parent reap its child and exit; resolves once the parent has gone. */
  reap(): Promise<void>;
}

/**
 * The parent: starts the child, relays its pid once the child has written its first output,
 * then blocks its event loop (where Node reaps children) until the release file exists, and
 * exits once it has reaped the child.
 */
const PARENT = `
const { spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const [release, ...args] = process.argv.slice(1);
const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
child.stdout.once('data', () => {
  process.stdout.write(child.pid + '\\n');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!existsSync(release)) Atomics.wait(pause, 0, 0, 20);
  // Back in the event loop: the child is reaped, then the parent goes.
  child.once('exit', () => process.exit(0));
});`;

/**
 * Starts `node ...args` (in `cwd`) under a parent process that does not reap it: once the
 * child is killed it stays a zombie until `reap()`. Resolves when the child has written
 * its first output (it is ready).
 */
export async function startUnreapedChild(
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<UnreapedChild> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-unreaped-'));
  const release = join(dir, 'release');
  const parent = spawn(process.execPath, ['-e', PARENT, release, ...args], {
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => parent.once('exit', () => resolve()));
  const pid = await new Promise<number>((resolve, reject) => {
    let out = '';
    parent.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.endsWith('\n')) resolve(Number(out.trim()));
    });
    parent.once('exit', () => reject(new Error('the parent exited before its child was ready')));
  });
  return {
    pid,
    async reap() {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
      writeFileSync(release, '');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The state letter of a Linux process (`S`, `R`, `Z` for a zombie); undefined once gone. */
export function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0];
  } catch {
    return undefined;
  }
}

/** Kills `pid` with SIGKILL and waits until it is a zombie (its parent has not reaped it). */
export async function killToZombie(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 500 && processState(pid) !== 'Z'; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  if (processState(pid) !== 'Z') throw new Error(`process ${pid} did not become a zombie`);
}
