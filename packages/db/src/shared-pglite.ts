import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { PGliteSocketServer, type PGliteProtocol } from './drivers/pglite-socket.js';
import type { FifoMutex } from './drivers/mutex.js';

/** The socket's file name: PostgreSQL's own, so `psql -h <its folder>` connects too. */
const SOCKET_NAME = '.s.PGSQL.5432';
/** A Unix socket's path holds at most 107 bytes on Linux and 103 on macOS. */
const MAX_SOCKET_PATH = 100;

/**
 * Where the holder of the embedded data folder `dataDir` shares it: the socket
 * `<dataDir>.socket/.s.PGSQL.5432` (beside the lock `<dataDir>.lock`), or, when that path
 * is too long for a socket, a folder of this user's under the temporary directory named
 * after the data folder. Throws, saying why, where Unix sockets are not used (Windows) or
 * no short enough path exists.
 */
export function sharedSocketPath(dataDir: string): string {
  if (process.platform === 'win32') throw new Error('sharing needs Unix sockets (not Windows)');
  const folder = resolve(dataDir);
  const beside = join(`${folder}.socket`, SOCKET_NAME);
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside;
  const digest = createHash('sha256').update(folder).digest('hex').slice(0, 16);
  const user = process.getuid?.() ?? 'user';
  const inTemp = join(tmpdir(), `assay-${user}-${digest}`, SOCKET_NAME);
  if (Buffer.byteLength(inTemp) > MAX_SOCKET_PATH)
    throw new Error(`no socket path short enough (${inTemp})`);
  return inTemp;
}

/**
 * Makes the socket's folder, readable and writable by this user only (0700: nobody else
 * may connect), and removes a socket a killed holder left there. Refuses a folder that is a
 * symbolic link or belongs to another user.
 */
function prepareSocketFolder(socket: string): void {
  const folder = dirname(socket);
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stat = lstatSync(folder);
  if (!stat.isDirectory()) throw new Error(`${folder} is not a folder`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) throw new Error(`${folder} belongs to another user`);
  if ((stat.mode & 0o077) !== 0) chmodSync(folder, 0o700);
  try {
    unlinkSync(socket);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Serves an open embedded database on the Unix socket `socket` (see
 * {@link PGliteSocketServer}); the caller holds the data folder's lock, and `mutex` is the
 * one its own Kysely driver takes. Resolves to the function that stops serving.
 */
export async function shareEmbedded(
  socket: string,
  pglite: PGliteProtocol,
  mutex: FifoMutex,
): Promise<() => Promise<void>> {
  prepareSocketFolder(socket);
  const server = new PGliteSocketServer({ pglite, mutex });
  await server.listen(socket);
  chmodSync(socket, 0o600);
  return async () => {
    // Closing the server removes the socket; the folder goes too when nothing else is in it.
    await server.close();
    try {
      rmdirSync(dirname(socket));
    } catch {
      // not empty, or gone
    }
  };
}
