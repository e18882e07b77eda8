import { createServer, type Server, type Socket } from 'node:net';
import type { FifoMutex } from './mutex.js';

/** What the socket server needs of PGlite: its wire protocol, one batch of messages at a time. */
export interface PGliteProtocol {
  /** Runs complete frontend messages on PGlite's session; resolves to the backend's reply. */
  execProtocolRaw(message: Uint8Array): Promise<Uint8Array>;
}

/** Options of {@link PGliteSocketServer}. */
export interface PGliteSocketServerOptions {
  /** The database whose session the clients share. */
  pglite: PGliteProtocol;
  /**
   * The lock on PGlite's one session: the same mutex the process's own Kysely driver takes
   * (see `PGliteDialectConfig.mutex`), so a client's transaction and the process's own never
   * interleave.
   */
  mutex: FifoMutex;
  /**
   * A client holding the session inside a transaction (or between the messages of one
   * query) that sends nothing for this long is rolled back and disconnected, so a stopped
   * client cannot block the database (default 60 s).
   */
  idleInTransactionMs?: number;
  /** Told about failures the clients cannot be told about (a rollback that did not end). */
  onError?: (error: Error) => void;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 3;
/** PostgreSQL refuses messages above 1 GB too. */
const MAX_MESSAGE = 1 << 30;
/**
 * Frontend messages after which the client waits for an answer: a batch ends there and is
 * run as one. Sync and Query end a query, Flush asks for the answers so far (postgres.js
 * describes a statement that way before binding it), FunctionCall is answered at once, and
 * the COPY IN messages stream.
 */
const BATCH_END = new Set(['S', 'Q', 'H', 'F', 'd', 'c', 'f'].map((c) => c.charCodeAt(0)));
const TERMINATE = 'X'.charCodeAt(0);
const READY_FOR_QUERY = 'Z'.charCodeAt(0);
const COPY_IN_RESPONSE = 'G'.charCodeAt(0);
const IDLE = 'I'.charCodeAt(0);

/** A frontend message: type byte, length, body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (text: string) => Buffer.from(`${text}\0`, 'utf8');

/** A StartupMessage (protocol 3.0) for user and database `postgres`. */
function startupMessage(): Buffer {
  const body = Buffer.concat([
    cstring('user'),
    cstring('postgres'),
    cstring('database'),
    cstring('postgres'),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(PROTOCOL_3 << 16, 4);
  return Buffer.concat([head, body]);
}
const query = (text: string) => message('Q', cstring(text));
const SYNC = message('S', Buffer.alloc(0));
const COPY_FAIL = message('f', cstring('the client went away'));

/** An ErrorResponse with severity FATAL: the last thing a client is sent before being cut off. */
function fatal(code: string, text: string): Buffer {
  const field = (tag: string, value: string) => Buffer.concat([Buffer.from(tag), cstring(value)]);
  return message(
    'E',
    Buffer.concat([
      field('S', 'FATAL'),
      field('V', 'FATAL'),
      field('C', code),
      field('M', text),
      Buffer.from([0]),
    ]),
  );
}

/** What a reply of PGlite leaves behind: whether the session is idle, and in COPY IN. */
interface ReplyState {
  /** The reply ends with ReadyForQuery "idle": no transaction, nothing half done. */
  idle: boolean;
  /** The server waits for COPY data. */
  copyIn: boolean;
}

/** Walks a backend reply's messages. */
function readReply(reply: Uint8Array, copyIn: boolean): ReplyState {
  const view = Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength);
  let lastType = -1;
  let lastStatus = -1;
  for (let at = 0; at + 5 <= view.length;) {
    const type = view[at]!;
    const length = view.readInt32BE(at + 1);
    if (length < 4) break;
    if (type === READY_FOR_QUERY) {
      lastStatus = view[at + 5] ?? -1;
      copyIn = false;
    } else if (type === COPY_IN_RESPONSE) copyIn = true;
    lastType = type;
    at += 1 + length;
  }
  return { idle: lastType === READY_FOR_QUERY && lastStatus === IDLE, copyIn };
}

/**
 * Serves an embedded PGlite database to other processes of this machine over a Unix
 * socket, in PostgreSQL's wire protocol: they connect with postgres.js (or psql) as to a
 * PostgreSQL server. PGlite has one session, which clients and the process's own Kysely
 * driver take turns on through one FIFO mutex: a client takes the session when it sends a
 * query and gives it back only when PGlite answers ReadyForQuery "idle" — so a
 * transaction, or the describe-then-bind steps of one query, runs whole, never interleaved
 * with another's. A client that disconnects, is idle too long inside a transaction, or is
 * cut off by `close()` has its transaction rolled back before the session goes to anyone
 * else. Who may connect is the socket's folder's business (make it 0700).
 */
export class PGliteSocketServer {
  readonly #options: Required<Omit<PGliteSocketServerOptions, 'onError'>> &
    Pick<PGliteSocketServerOptions, 'onError'>;
  readonly #server: Server;
  readonly #clients = new Set<SocketClient>();
  #closing = false;
  #greeting: Uint8Array | undefined;

  constructor(options: PGliteSocketServerOptions) {
    this.#options = { idleInTransactionMs: 60_000, ...options };
    this.#server = createServer((socket) => {
      if (this.#closing || !this.#greeting) {
        socket.destroy();
        return;
      }
      const client = new SocketClient(socket, this.#options, this.#greeting);
      this.#clients.add(client);
      void client.done.then(() => this.#clients.delete(client));
    });
  }

  /**
   * Listens on the Unix socket `path` (which must not exist). PGlite's answer to a startup
   * message is asked for once, here: every client is greeted with it at once, even while
   * another holds the session (a client's connection timeout never runs out waiting).
   */
  async listen(path: string): Promise<void> {
    const { mutex, pglite } = this.#options;
    await mutex.lock();
    try {
      this.#greeting = (await pglite.execProtocolRaw(startupMessage())).slice();
    } finally {
      mutex.unlock();
    }
    if (!readReply(this.#greeting, false).idle) throw new Error('PGlite did not greet');
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(path, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
  }

  /** Connected clients. */
  get clients(): number {
    return this.#clients.size;
  }

  /**
   * Stops accepting clients and cuts the connected ones off: a query running finishes,
   * then an open transaction is rolled back and the client gets a FATAL "admin shutdown"
   * error. Resolves once every client has given the session back.
   */
  async close(): Promise<void> {
    this.#closing = true;
    const stopped = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    await Promise.all(
      [...this.#clients].map((client) =>
        client.end(fatal('57P01', 'terminating connection because the database is closing')),
      ),
    );
    await stopped;
  }
}

/** One connected client: frames its messages into batches and runs them in order. */
class SocketClient {
  readonly #socket: Socket;
  readonly #options: PGliteSocketServerOptions & { idleInTransactionMs: number };
  /** Received bytes not yet taken as messages (kept as chunks: a large one is copied once). */
  #chunks: Buffer[] = [];
  #size = 0;
  /** Complete messages of the batch being gathered. */
  #batch: Buffer[] = [];
  /** Past the startup message. */
  #started = false;
  /** Holds PGlite's session (the mutex). */
  #holding = false;
  /** The session is as this client found it: idle, no statement half done. */
  #clean = true;
  #copyIn = false;
  /** Batches queued and not started yet. */
  #queued = 0;
  #ended = false;
  #idleTimer: NodeJS.Timeout | undefined;
  /** Every batch, and the end, run one after another on this chain. */
  #chain: Promise<void> = Promise.resolve();
  readonly done: Promise<void>;
  #resolveDone!: () => void;
  /** Resolves when `end()` is called: a wait for a client that does not read stops there. */
  readonly #ending: Promise<void>;
  #resolveEnding!: () => void;

  readonly #greeting: Uint8Array;

  constructor(
    socket: Socket,
    options: PGliteSocketServerOptions & { idleInTransactionMs: number },
    greeting: Uint8Array,
  ) {
    this.#socket = socket;
    this.#options = options;
    this.#greeting = greeting;
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
    this.#ending = new Promise((resolve) => (this.#resolveEnding = resolve));
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', () => void this.end());
    socket.on('close', () => void this.end());
  }

  /** Runs `step` after every step queued before it. */
  #then(step: () => Promise<void>): void {
    this.#chain = this.#chain.then(step).catch((error: unknown) => {
      this.#options.onError?.(error as Error);
      void this.end();
    });
  }

  #onData(chunk: Buffer): void {
    if (this.#ended) return;
    // A client sending (a large statement, say) is not idle.
    this.#idleTimer?.refresh();
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    for (;;) {
      const taken = this.#started ? this.#takeMessage() : this.#takeStartup();
      if (taken === 'wait' || taken === 'ended') return;
    }
  }

  /** The first `n` received bytes, or undefined until they are there (nothing is taken). */
  #peek(n: number): Buffer | undefined {
    if (this.#size < n) return undefined;
    if (this.#chunks[0]!.length < n) this.#chunks = [Buffer.concat(this.#chunks)];
    return this.#chunks[0]!;
  }

  /** Takes the first `n` received bytes (there are at least `n`). */
  #take(n: number): Buffer {
    const whole = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const rest = whole.subarray(n);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#size -= n;
    return whole.subarray(0, n);
  }

  /**
   * The startup phase: SSL/GSS requests are declined; a StartupMessage is answered with
   * PGlite's greeting (authentication ok, its parameters, ready), without the session: the
   * user, database and options it names are those of PGlite's one session anyway.
   */
  #takeStartup(): 'wait' | 'more' | 'ended' {
    const head = this.#peek(8);
    if (!head) return 'wait';
    const length = head.readInt32BE(0);
    const code = head.readInt32BE(4);
    if (length < 8 || length > 10_000) return this.#violation('invalid startup packet length');
    if (this.#size < length) return 'wait';
    this.#take(length);
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      this.#socket.write('N');
      return 'more';
    }
    if (code === CANCEL_REQUEST) {
      // PGlite cannot cancel a statement: the request is dropped, as the protocol allows.
      void this.end();
      return 'ended';
    }
    if (code >> 16 !== PROTOCOL_3) return this.#violation('unsupported frontend protocol');
    this.#started = true;
    this.#socket.write(this.#greeting);
    return 'more';
  }

  /** One typed message; a batch is complete at a message after which the client waits. */
  #takeMessage(): 'wait' | 'more' | 'ended' {
    const head = this.#peek(5);
    if (!head) return 'wait';
    const type = head[0]!;
    const length = head.readInt32BE(1);
    if (length < 4 || length > MAX_MESSAGE) return this.#violation('invalid message length');
    if (this.#size < 1 + length) return 'wait';
    const body = this.#take(1 + length);
    if (type === TERMINATE) {
      void this.end();
      return 'ended';
    }
    this.#batch.push(body);
    if (BATCH_END.has(type)) {
      const batch = Buffer.concat(this.#batch);
      this.#batch = [];
      this.#queue(batch);
    }
    return 'more';
  }

  #queue(batch: Buffer): void {
    this.#queued++;
    this.#stopIdleTimer();
    this.#then(() => this.#run(batch));
  }

  #violation(text: string): 'ended' {
    void this.end(fatal('08P01', text));
    return 'ended';
  }

  /** Runs one batch on the session, taking it first when this client does not hold it. */
  async #run(batch: Buffer): Promise<void> {
    this.#queued--;
    if (this.#ended) return;
    if (!this.#holding) {
      await this.#options.mutex.lock();
      this.#holding = true;
      this.#clean = true;
      // The client left while it waited: end() gives the session back.
      if (this.#ended) return;
    }
    this.#clean = false;
    const reply = await this.#options.pglite.execProtocolRaw(batch);
    const state = readReply(reply, this.#copyIn);
    this.#copyIn = state.copyIn;
    this.#clean = state.idle;
    const drained = this.#write(reply);
    if (state.idle) this.#release();
    else if (this.#queued === 0) this.#armIdleTimer();
    await drained;
  }

  /** Writes to the client; resolves when the socket can take more, is gone, or is ending. */
  #write(data: Uint8Array): Promise<void> {
    if (data.length === 0 || this.#socket.destroyed) return Promise.resolve();
    if (this.#socket.write(data)) return Promise.resolve();
    const drained = new Promise<void>((resolve) => {
      const go = () => {
        this.#socket.off('drain', go);
        this.#socket.off('close', go);
        resolve();
      };
      this.#socket.on('drain', go);
      this.#socket.on('close', go);
    });
    return Promise.race([drained, this.#ending]);
  }

  #stopIdleTimer(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #armIdleTimer(): void {
    this.#stopIdleTimer();
    this.#idleTimer = setTimeout(() => {
      void this.end(fatal('25P03', 'terminating connection due to idle-in-transaction timeout'));
    }, this.#options.idleInTransactionMs);
    this.#idleTimer.unref();
  }

  #release(): void {
    this.#stopIdleTimer();
    if (!this.#holding) return;
    this.#holding = false;
    this.#options.mutex.unlock();
  }

  /**
   * Ends the connection once the batch running (if any) is done: what the client left
   * open on the session is rolled back, the session given back, `farewell` sent, the socket
   * closed. Safe to call more than once.
   */
  end(farewell?: Buffer): Promise<void> {
    if (this.#ended) return this.done;
    this.#ended = true;
    this.#resolveEnding();
    this.#stopIdleTimer();
    this.#chain = this.#chain
      .catch(() => {})
      .then(async () => {
        try {
          if (this.#holding && !this.#clean) await this.#rollBack();
        } catch (error) {
          this.#options.onError?.(error as Error);
        } finally {
          this.#release();
          if (farewell && !this.#socket.destroyed) {
            this.#socket.end(farewell);
            // A client that does not read its farewell is not waited for.
            setTimeout(() => this.#socket.destroy(), 1_000).unref();
          } else this.#socket.destroy();
          this.#resolveDone();
        }
      });
    return this.done;
  }

  /**
   * Leaves the session idle whatever the client left: a COPY is failed; ROLLBACK ends an
   * explicit transaction or the implicit one of an unsynced extended query (and is skipped
   * by PostgreSQL after an error until the Sync, which ends that one); a second ROLLBACK
   * ends an explicit transaction the Sync left failed.
   */
  async #rollBack(): Promise<void> {
    const pglite = this.#options.pglite;
    if (this.#copyIn) await pglite.execProtocolRaw(COPY_FAIL);
    const first = await pglite.execProtocolRaw(Buffer.concat([query('ROLLBACK'), SYNC]));
    if (readReply(first, false).idle) return;
    const second = await pglite.execProtocolRaw(query('ROLLBACK'));
    if (!readReply(second, false).idle)
      throw new Error('a client left PGlite in a transaction that ROLLBACK did not end');
  }
}
