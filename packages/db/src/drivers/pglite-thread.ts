import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PGlite, Results } from '@electric-sql/pglite';

/** The part of PGlite the driver uses; both PGlite and {@link PGliteThread} have it. */
export type PGliteHandle = Pick<PGlite, 'query' | 'exec' | 'close' | 'closed' | 'waitReady'>;

type Reply = { id: number; result?: unknown; error?: ErrorData };
type ErrorData = { message: string; name: string } & Record<string, string | number>;

/**
 * The worker script: beside this file in the sources; beside the bundle (or one folder up
 * from a bundle chunk) once the CLI is built.
 */
function workerScript(): URL {
  const candidates = ['./pglite-worker.mjs', '../pglite-worker.mjs'].map(
    (path) => new URL(path, import.meta.url),
  );
  return candidates.find((url) => existsSync(fileURLToPath(url))) ?? candidates[0]!;
}

/** An error from the worker as an Error with the same message, name and SQLSTATE fields. */
function revive(data: ErrorData): Error {
  const error = new Error(data.message);
  Object.assign(error, data);
  return error;
}

/**
 * Embedded PGlite running on a worker thread of its own. The main thread keeps serving
 * requests and LLM calls while PGlite executes a statement; statements still run one at a
 * time, in the order sent. Rows, parameters and errors cross the thread boundary by
 * structured clone (dates, byte arrays and JSON values arrive as they left).
 */
export class PGliteThread implements PGliteHandle {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(e: Error): void }>();
  #nextId = 1;
  #closed = false;
  #failure: Error | undefined;
  readonly waitReady: Promise<void>;

  /**
   * Starts the worker and PGlite in `dataDir` (a folder, or `memory://`); a new database
   * starts as a copy of `template` (a gzipped dump of a data folder) when given.
   */
  constructor(dataDir: string, template?: string) {
    this.#worker = new Worker(workerScript(), {
      workerData: template === undefined ? { dataDir } : { dataDir, template },
    });
    this.waitReady = new Promise((resolve, reject) => {
      const onFirst = (message: { ready?: boolean; error?: ErrorData }) => {
        if (message.ready) resolve();
        else reject(revive(message.error ?? { message: 'PGlite did not start', name: 'Error' }));
      };
      this.#worker.once('message', onFirst);
      this.#worker.once('error', reject);
    });
    // An unobserved start failure must not crash the process: callers await waitReady.
    this.waitReady.then(
      () => {
        if (this.#pending.size === 0) this.#worker.unref();
      },
      () => {},
    );
    this.#worker.on('message', (message: Reply) => {
      if (message.id === undefined) return;
      const waiter = this.#pending.get(message.id);
      if (!waiter) return;
      this.#pending.delete(message.id);
      // An idle thread does not keep the process alive, as PGlite in the main thread would not.
      if (this.#pending.size === 0) this.#worker.unref();
      if (message.error) waiter.reject(revive(message.error));
      else waiter.resolve(message.result);
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => {
      this.#closed = true;
      this.#fail(new Error(`the PGlite worker thread exited (code ${code})`));
    });
  }

  /** Whether the database has been closed (or its thread has ended). */
  get closed(): boolean {
    return this.#closed;
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
  }

  #send<T>(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.#closed || this.#failure) {
      return Promise.reject(this.#failure ?? new Error('the PGlite database is closed'));
    }
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#worker.ref();
      this.#worker.postMessage({ ...message, id }, transfer);
    });
  }

  /**
   * One statement, with parameters (PGlite's extended protocol); `blob` is what
   * `COPY … FROM '/dev/blob'` reads.
   */
  async query<T>(sql: string, params?: unknown[], options?: { blob?: Blob }): Promise<Results<T>> {
    if (options?.blob === undefined)
      return this.#send({ kind: 'query', sql, params: params ?? [] });
    const bytes = await options.blob.arrayBuffer();
    return this.#send({ kind: 'query', sql, params: params ?? [], blob: bytes }, [bytes]);
  }

  /** The data folder as a gzipped tar file (PGlite's dumpDataDir). */
  dumpDataDir(): Promise<Uint8Array> {
    return this.#send({ kind: 'dump' });
  }

  /** Any number of statements without parameters; one result per statement. */
  exec(sql: string): Promise<Array<Results>> {
    return this.#send({ kind: 'exec', sql });
  }

  /**
   * Complete wire-protocol messages run on PGlite's session as sent; resolves to the
   * backend's reply (what a PostgreSQL server would send back on a socket).
   */
  execProtocolRaw(message: Uint8Array): Promise<Uint8Array> {
    const bytes = message.slice();
    return this.#send({ kind: 'protocol', bytes }, [bytes.buffer]);
  }

  /** Closes PGlite (flushing its files) and ends the thread. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#send({ kind: 'close' });
    this.#closed = true;
    await this.#worker.terminate();
  }
}
