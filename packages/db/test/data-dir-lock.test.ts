import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { killToZombie, processState, startUnreapedChild } from '@assay/test-support/processes';
import { DatabaseInUseError, describeThisProcess, lockDataDir } from '../src/index.js';

const freshDir = () => join(mkdtempSync(join(tmpdir(), 'assay-lock-')), 'pglite');

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

/**
 * A process holding the lock of `dataDir` (the lock module as built from the sources) under
 * a parent that does not reap it (see startUnreapedChild).
 */
async function unreapedHolder(dataDir: string) {
  const dir = mkdtempSync(join(tmpdir(), 'assay-lock-holder-'));
  const source = fileURLToPath(new URL('../src/data-dir-lock.ts', import.meta.url));
  const built = buildSync({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
  });
  writeFileSync(join(dir, 'lock.mjs'), built.outputFiles[0]!.text);
  writeFileSync(
    join(dir, 'holder.mjs'),
    `import { lockDataDir } from './lock.mjs';
    lockDataDir(process.argv[2], 'assay judge');
    process.stdout.write('locked\\n');
    setInterval(() => {}, 60_000);`,
  );
  return startUnreapedChild(['holder.mjs', dataDir], { cwd: dir });
}

describe('lockDataDir', () => {
  it('refuses a second holder while the first holds the folder, naming it', () => {
    const dir = freshDir();
    const first = lockDataDir(dir, 'assay serve');
    try {
      let caught: unknown;
      try {
        lockDataDir(dir, 'assay import');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(DatabaseInUseError);
      expect((caught as Error).message).toBe(
        `database in use by assay serve (pid ${process.pid}); stop it, or use the API, or set DATABASE_URL`,
      );
    } finally {
      first.release();
    }
    const second = lockDataDir(dir, 'assay import');
    expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8'))).toMatchObject({
      pid: process.pid,
      holder: 'assay import',
    });
    second.release();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it('takes over the lock of a process that died without releasing it', () => {
    const dir = freshDir();
    const pid = deadPid();
    writeFileSync(
      `${dir}.lock`,
      JSON.stringify({ pid, holder: 'assay serve', host: hostname(), token: 'stale' }),
    );
    const lock = lockDataDir(dir, 'assay import');
    expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8'))).toMatchObject({
      pid: process.pid,
      holder: 'assay import',
    });
    lock.release();
  });

  it.skipIf(!existsSync('/proc/self/stat'))(
    'takes over a lock whose pid now belongs to another process (pid reused)',
    () => {
      const dir = freshDir();
      // This process is alive, but started at another time than the one recorded.
      writeFileSync(
        `${dir}.lock`,
        JSON.stringify({
          pid: process.pid,
          holder: 'assay serve',
          host: hostname(),
          startTicks: '1',
          token: 'reused',
        }),
      );
      const lock = lockDataDir(dir, 'assay judge');
      expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8')).holder).toBe('assay judge');
      lock.release();
    },
  );

  it.skipIf(!existsSync('/proc/self/stat'))(
    'takes over the lock of a holder killed with SIGKILL that its parent has not reaped (a zombie)',
    async () => {
      const dir = freshDir();
      const holder = await unreapedHolder(dir);
      try {
        await killToZombie(holder.pid);
        expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8'))).toMatchObject({
          pid: holder.pid,
          holder: 'assay judge',
        });
        const lock = lockDataDir(dir, 'assay judge');
        expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8'))).toMatchObject({
          pid: process.pid,
          holder: 'assay judge',
        });
        lock.release();
      } finally {
        await holder.reap();
      }
      expect(processState(holder.pid)).toBeUndefined();
    },
  );

  it('takes over an unreadable lock file', () => {
    const dir = freshDir();
    writeFileSync(`${dir}.lock`, '');
    const lock = lockDataDir(dir, 'assay serve');
    expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8')).holder).toBe('assay serve');
    lock.release();
  });

  it('leaves a lock another process took alone when releasing', () => {
    const dir = freshDir();
    const lock = lockDataDir(dir, 'assay serve');
    const other = JSON.stringify({ pid: 1, holder: 'x', host: hostname(), token: 'other' });
    writeFileSync(`${dir}.lock`, other);
    lock.release();
    expect(readFileSync(`${dir}.lock`, 'utf8')).toBe(other);
  });

  it('names the assay command it runs in', () => {
    expect(describeThisProcess(['/usr/bin/node', '/x/apps/cli/bin/assay.js', 'serve'])).toBe(
      'assay serve',
    );
    expect(describeThisProcess(['/usr/bin/node', '/usr/local/bin/assay', 'import', 'qrels'])).toBe(
      'assay import',
    );
    expect(describeThisProcess(['/usr/bin/node', '/x/bench/judge.mjs'])).toBe('node judge.mjs');
  });
});
