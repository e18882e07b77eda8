import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, resolve } from 'node:path';

/**
 * Another live process holds the embedded data directory. PGlite is a single-process
 * database: a second process writing the same files would lose writes silently.
 */
export class DatabaseInUseError extends Error {
  constructor(
    /** The lock holder's process id. */
    readonly pid: number,
    /** What the holder runs (`assay serve`). */
    readonly holder: string,
    /** The lock file. */
    readonly lockFile: string,
    /** The Unix socket on which the holder shares the database, when it does. */
    readonly socket?: string,
  ) {
    super(
      `database in use by ${holder} (pid ${pid}); stop it, or use the API, or set DATABASE_URL`,
    );
    this.name = 'DatabaseInUseError';
  }
}

/** What a lock file records about its holder. */
interface LockRecord {
  pid: number;
  holder: string;
  host: string;
  /** Linux: the holder's start time in clock ticks since boot (tells a reused pid apart). */
  startTicks?: string;
  /** Random: tells this lock from a later one by the same pid. */
  token: string;
  /** The Unix socket on which the holder shares the database with local processes. */
  socket?: string;
}

/** An exclusive lock on a data directory; `release()` removes it (once). */
export interface DataDirLock {
  readonly lockFile: string;
  /** Stops naming a socket (the holder could not share after all): others are refused again. */
  forgetSocket(): void;
  release(): void;
}

const held = new Set<DataDirLock>();
let exitHookInstalled = false;

/** `assay serve` when this process is the assay command, else the script's name. */
export function describeThisProcess(argv: readonly string[] = process.argv): string {
  const script = argv[1] ? basename(argv[1]) : '';
  if (/^assay(\.m?js)?$/.test(script)) return ['assay', argv[2]].filter(Boolean).join(' ');
  return script ? `node ${script}` : 'another process';
}

/**
 * The fields of /proc/PID/stat after the command name on Linux (field 3, the state, first),
 * else undefined.
 */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The process's start time on Linux (field 22 of /proc/PID/stat), else undefined. */
function startTicks(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/**
 * Whether process `pid` of this machine still runs. A process killed while its parent does
 * not reap it (a container's PID 1 without an init, a supervisor busy elsewhere) stays a
 * zombie, which signals still reach, for as long as the parent runs: on Linux, where
 * /proc tells, a zombie counts as dead, for it holds nothing any more.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const state = procStat(pid)?.[0];
  return !(state && /^[ZXx]$/.test(state));
}

/** Whether the process that wrote `record` still runs (unknowable on another host: yes). */
function holderAlive(record: LockRecord): boolean {
  if (record.host !== hostname()) return true;
  if (!processAlive(record.pid)) return false;
  const ticks = startTicks(record.pid);
  // Same pid, different start time: the holder died and the pid was reused.
  return !(record.startTicks && ticks && ticks !== record.startTicks);
}

function readRecord(path: string): LockRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockRecord>;
    if (typeof parsed.pid !== 'number' || typeof parsed.token !== 'string') return undefined;
    return parsed as LockRecord;
  } catch {
    return undefined;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Takes the exclusive lock of an embedded data directory: the file `<dataDir>.lock`,
 * created atomically (hard link of a complete file) and naming its holder (and `socket`,
 * where the holder will share the database). A lock whose holder is dead (killed with
 * SIGKILL, say) is taken over; a live holder's lock throws {@link DatabaseInUseError},
 * which names the holder's socket when it has one. The lock is released by `release()` or
 * when the process exits.
 */
export function lockDataDir(
  dataDir: string,
  holder = describeThisProcess(),
  options: { socket?: string } = {},
): DataDirLock {
  const lockFile = `${resolve(dataDir)}.lock`;
  const record: LockRecord = {
    pid: process.pid,
    holder,
    host: hostname(),
    token: randomBytes(8).toString('hex'),
  };
  if (options.socket) record.socket = options.socket;
  const ticks = startTicks(process.pid);
  if (ticks) record.startTicks = ticks;
  const draft = `${lockFile}.${process.pid}.${record.token}`;
  writeFileSync(draft, `${JSON.stringify(record)}\n`);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(draft, lockFile);
        return register(lockFile, record);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const existing = readRecord(lockFile);
      if (existing && holderAlive(existing)) {
        // A socket is of use only on the holder's machine.
        const socket = existing.host === hostname() ? existing.socket : undefined;
        throw new DatabaseInUseError(existing.pid, existing.holder, lockFile, socket);
      }
      takeOverStale(lockFile, existing);
    }
    throw new Error(`could not take the lock ${lockFile}: other processes keep taking it`);
  } finally {
    removeQuietly(draft);
  }
}

/**
 * Moves a dead holder's lock aside. If another process replaced it meanwhile (the moved
 * file is not the one judged stale), it is put back for its owner.
 */
function takeOverStale(lockFile: string, stale: LockRecord | undefined): void {
  const aside = `${lockFile}.stale.${process.pid}`;
  try {
    renameSync(lockFile, aside);
  } catch {
    return; // someone else moved it first: try again
  }
  const moved = readRecord(aside);
  if (stale && moved && moved.token !== stale.token) {
    try {
      linkSync(aside, lockFile);
    } catch {
      // a third process took the lock: it is theirs now
    }
  }
  removeQuietly(aside);
}

function register(lockFile: string, record: LockRecord): DataDirLock {
  const { token } = record;
  const lock: DataDirLock = {
    lockFile,
    forgetSocket() {
      if (!held.has(lock) || readRecord(lockFile)?.token !== token) return;
      const draft = `${lockFile}.${process.pid}.${token}.new`;
      writeFileSync(draft, `${JSON.stringify({ ...record, socket: undefined })}\n`);
      renameSync(draft, lockFile);
    },
    release() {
      if (!held.delete(lock)) return;
      if (readRecord(lockFile)?.token === token) removeQuietly(lockFile);
    },
  };
  held.add(lock);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const open of [...held]) open.release();
    });
  }
  return lock;
}
