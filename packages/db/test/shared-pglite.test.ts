// An embedded PGlite database shared over a Unix socket by the process that holds it: the
// driver contract through the socket, turns on PGlite's one session (never two transactions
// interleaved), and a client that goes away, stalls or is cut off mid-transaction.
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Kysely, sql } from 'kysely';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCollection,
  createDb,
  createRun,
  DatabaseInUseError,
  getRunEntries,
  type AssayDb,
} from '../src/index.js';
import { FifoMutex } from '../src/drivers/mutex.js';
import { PGliteDialect } from '../src/drivers/pglite-dialect.js';
import { PGliteSocketServer } from '../src/drivers/pglite-socket.js';
import { PGliteThread } from '../src/drivers/pglite-thread.js';
import { PostgresJsDialect } from '../src/drivers/postgres-js-dialect.js';
import { sharedSocketPath } from '../src/shared-pglite.js';
import { describeDriverContract, type ScratchDatabase } from './driver-contract.js';
import { OPEN_TIMEOUT_MS } from '@assay/test-support/database';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function scratchFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'assay-shared-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A holder sharing PGlite in `dataDir`, and a second opening of the same folder. */
async function ownerAndClient(dataDir: string, migrate = false) {
  const owner = await createDb({ dataDir, share: true, migrate });
  const client = await createDb({ dataDir, migrate }).catch(async (error: unknown) => {
    await owner.close();
    throw error;
  });
  return { owner, client };
}

describeDriverContract('postgres.js through a shared PGlite socket', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-shared-contract-'));
  const { owner, client } = await ownerAndClient(join(dir, 'pglite'));
  return {
    db: client.db as unknown as Kysely<ScratchDatabase>,
    async close() {
      await client.close();
      await owner.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

/**
 * PGlite on its thread shared on a socket of a scratch folder, the process's own Kysely
 * over it, and a connector of postgres.js pools to the socket.
 */
async function sharedScratch(options: { idleInTransactionMs?: number } = {}) {
  const dir = scratchFolder();
  const socket = join(dir, '.s.PGSQL.5432');
  const pglite = new PGliteThread('memory://');
  const mutex = new FifoMutex();
  const own = new Kysely<ScratchDatabase>({ dialect: new PGliteDialect({ pglite, mutex }) });
  const errors: Error[] = [];
  const server = new PGliteSocketServer({
    pglite,
    mutex,
    onError: (error) => errors.push(error),
    ...options,
  });
  await server.listen(socket);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close();
    await own.destroy();
  };
  cleanups.push(close);
  await sql`create table items (id int primary key, label text not null, payload jsonb)`.execute(
    own,
  );
  const pools: postgres.Sql[] = [];
  cleanups.push(async () => {
    for (const pool of pools) await pool.end({ timeout: 0 });
  });
  return {
    dir,
    socket,
    own,
    server,
    errors,
    close,
    pool(max = 1) {
      const pool = postgres({ path: socket, max, prepare: false, onnotice: () => {} });
      pools.push(pool);
      return pool;
    },
    kysely(max = 2) {
      const db = new Kysely<ScratchDatabase>({
        dialect: new PostgresJsDialect({
          maxConnections: max,
          options: { path: socket, prepare: false, onnotice: () => {} },
        }),
      });
      return db;
    },
    async count() {
      const rows = await sql<{ n: number }>`select count(*)::int as n from items`.execute(own);
      return rows.rows[0]!.n;
    },
  };
}

/** A gate a test opens by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Whether a promise has settled after the event loop has had `turns` macrotask turns. */
async function settledWithin<T>(promise: Promise<T>, turns: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < turns && !settled; i++) await new Promise((r) => setTimeout(r, 10));
  return settled;
}

describe('a shared PGlite session', () => {
  it(
    "runs a client's transaction whole: the holder's own queries wait for it and never see its rows",
    async () => {
      const shared = await sharedScratch();
      const client = shared.pool(1);
      const inside = gate();
      const finish = gate();
      const transaction = client.begin(async (tx) => {
        await tx`insert into items (id, label) values (1, 'uncommitted')`;
        inside.open();
        await finish.opened;
        throw new Error('roll it back');
      });
      transaction.catch(() => {});
      await inside.opened;
      // On one session, a query interleaved with the transaction would see its row.
      const counted = shared.count();
      expect(await settledWithin(counted, 20)).toBe(false);
      finish.open();
      await expect(transaction).rejects.toThrow('roll it back');
      expect(await counted).toBe(0);
      // … and the holder's own transaction keeps clients out the same way.
      const ownInside = gate();
      const ownFinish = gate();
      const own = shared.own.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 2, label: 'own', payload: null }).execute();
        ownInside.open();
        await ownFinish.opened;
      });
      await ownInside.opened;
      const seen = client`select count(*)::int as n from items`;
      expect(await settledWithin(seen, 20)).toBe(false);
      ownFinish.open();
      await own;
      expect((await seen)[0]!.n).toBe(1);
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'greets a connecting client at once while the session is held, then runs its query in turn',
    async () => {
      const shared = await sharedScratch();
      const inside = gate();
      const finish = gate();
      const own = shared.own.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 1, label: 'own', payload: null }).execute();
        inside.open();
        await finish.opened;
      });
      await inside.opened;
      // Connected and ready while the holder's transaction runs (no connect timeout to run out).
      const client = await rawClient(shared.socket);
      const answered = client.send(queryMessage('select count(*) from items'));
      expect(await settledWithin(answered, 20)).toBe(false);
      finish.open();
      await own;
      await answered;
      client.socket.destroy();
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'keeps the describe and bind steps of parameterised queries from several clients apart',
    async () => {
      const shared = await sharedScratch();
      const clients = [shared.pool(3), shared.pool(3), shared.pool(2)];
      const asked: Array<Promise<unknown>> = [];
      for (let n = 0; n < 300; n++) {
        const client = clients[n % clients.length]!;
        // Different statements and parameter types: a statement run with another client's
        // parameters fails or answers wrongly.
        asked.push(
          n % 2 === 0
            ? client`select ${n}::int as n, ${`t${n}`}::text as t`.then((rows) => {
                expect(rows[0]).toEqual({ n, t: `t${n}` });
              })
            : client`select ${`x${n}`}::text || 'y' as s`.then((rows) => {
                expect(rows[0]).toEqual({ s: `x${n}y` });
              }),
        );
        if (n % 25 === 0)
          asked.push(
            sql<{ n: number }>`select ${n}::int as n`
              .execute(shared.own)
              .then((r) => expect(r.rows[0]!.n).toBe(n)),
          );
      }
      await Promise.all(asked);
      expect(shared.errors).toEqual([]);
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'rolls back what a client left open when it disconnects, mid-transaction or mid-query',
    async () => {
      const shared = await sharedScratch();
      // A raw client that sends `frames`, waits for their answer, then vanishes.
      const leaveOpen = async (frames: Buffer[]) => {
        const client = await rawClient(shared.socket);
        await client.send(...frames);
        client.socket.destroy();
      };
      await leaveOpen([queryMessage("begin; insert into items (id, label) values (1, 'left')")]);
      expect(await shared.count()).toBe(0);
      // Extended protocol: Parse, Bind, Execute of an INSERT and a Flush, never the Sync.
      await leaveOpen([
        frame(
          'P',
          Buffer.from(
            "\u0000insert into items (id, label) values (2, 'unsynced')\u0000\u0000\u0000",
          ),
        ),
        frame('B', Buffer.from('\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000')),
        frame('E', Buffer.from('\u0000\u0000\u0000\u0000\u0000')),
        frame('H', Buffer.alloc(0)),
      ]);
      expect(await shared.count()).toBe(0);
      // A failed transaction (an error after BEGIN) is ended too.
      await leaveOpen([queryMessage('begin; select * from missing_table')]);
      expect(await shared.count()).toBe(0);
      // The session is usable and not in a transaction.
      await shared.own
        .insertInto('items')
        .values({ id: 3, label: 'after', payload: null })
        .execute();
      expect(await shared.count()).toBe(1);
      expect(shared.errors).toEqual([]);
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'rolls back the transaction of a client process killed with SIGKILL',
    async () => {
      const shared = await sharedScratch();
      const postgresModule = import.meta.resolve('postgres');
      const script = `
        const { default: postgres } = await import(${JSON.stringify(postgresModule)});
        const sql = postgres({ path: ${JSON.stringify(shared.socket)}, max: 1, prepare: false });
        await sql.begin(async (tx) => {
          await tx\`insert into items (id, label) values (7, 'killed')\`;
          process.stdout.write('inside\\n');
          await new Promise(() => {});
        });`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      cleanups.push(() => void child.kill('SIGKILL'));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('inside')) resolve();
        });
        child.once('exit', () => reject(new Error('the client exited early')));
      });
      const counted = shared.count();
      expect(await settledWithin(counted, 5)).toBe(false);
      child.kill('SIGKILL');
      expect(await counted).toBe(0);
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'cuts off a client idle inside a transaction, rolling it back',
    async () => {
      const shared = await sharedScratch({ idleInTransactionMs: 200 });
      const client = shared.pool(1);
      const inside = gate();
      const stalled = client.begin(async (tx) => {
        await tx`insert into items (id, label) values (1, 'stalled')`;
        inside.open();
        await new Promise(() => {});
      });
      stalled.catch(() => {});
      await inside.opened;
      // The holder's query runs once the stalled client has been cut off and rolled back.
      expect(await shared.count()).toBe(0);
      const other = shared.pool(1);
      expect((await other`select 1 as one`)[0]).toEqual({ one: 1 });
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'cuts off a client that stops reading inside a transaction, rolling it back',
    async () => {
      const shared = await sharedScratch({ idleInTransactionMs: 200 });
      const client = await rawClient(shared.socket);
      const before = client.socket.bytesRead;
      client.socket.pause();
      // An answer far larger than the socket's buffers, never read past its start.
      client.socket.write(
        queryMessage(
          "begin; insert into items (id, label) values (1, 'unread'); select repeat('x', 20000000)",
        ),
      );
      while (client.socket.bytesRead === before) await new Promise((r) => setTimeout(r, 5));
      expect(await shared.count()).toBe(0);
      client.socket.destroy();
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'on close, rolls back a client in a transaction and tells it the database is closing',
    async () => {
      const shared = await sharedScratch();
      const client = await rawClient(shared.socket);
      await client.send(queryMessage("begin; insert into items (id, label) values (1, 'open')"));
      await shared.server.close();
      const farewell = await client.ended;
      expect(farewell).toContain('57P01');
      expect(farewell).toContain('terminating connection because the database is closing');
      expect(await shared.count()).toBe(0);
      await expect(shared.pool(1)`select 1`).rejects.toMatchObject({ code: 'ENOENT' });
    },
    OPEN_TIMEOUT_MS,
  );
});

describe('createDb with share', () => {
  it(
    'lets a second opening of the folder reach the holder, through a socket only its user can use',
    async () => {
      const dir = scratchFolder();
      const dataDir = join(dir, 'pglite');
      const { owner, client } = await ownerAndClient(dataDir, true);
      try {
        expect(owner.socket).toBe(join(`${dataDir}.socket`, '.s.PGSQL.5432'));
        expect(owner.notShared).toBeUndefined();
        expect(statSync(dirname(owner.socket!)).mode & 0o777).toBe(0o700);
        expect(statSync(owner.socket!).mode & 0o777).toBe(0o600);
        expect(client.kind).toBe('pglite');
        expect(client.via).toMatch(/ \(pid \d+\)$/);
        await sql`insert into collections (name) values ('through the socket')`.execute(client.db);
        const seen = await sql<{ name: string }>`select name from collections`.execute(owner.db);
        expect(seen.rows.map((r) => r.name)).toContain('through the socket');
        // A second sharer is refused: it never reaches another's database.
        await expect(createDb({ dataDir, share: true })).rejects.toBeInstanceOf(DatabaseInUseError);
      } finally {
        await client.close();
        await owner.close();
      }
      // Closed, the holder leaves neither lock nor socket, and the folder opens directly.
      expect(existsSync(`${dataDir}.lock`)).toBe(false);
      expect(existsSync(`${dataDir}.socket`)).toBe(false);
      let reopened: AssayDb | undefined;
      try {
        reopened = await createDb({ dataDir });
        expect(reopened.via).toBeUndefined();
        const seen = await sql<{ name: string }>`select name from collections`.execute(reopened.db);
        expect(seen.rows.map((r) => r.name)).toContain('through the socket');
      } finally {
        await reopened?.close();
      }
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'loads a run through the socket (by INSERT: PGlite takes no COPY FROM STDIN there), and a failed load leaves nothing',
    async () => {
      const dataDir = join(scratchFolder(), 'pglite');
      const { owner, client } = await ownerAndClient(dataDir, true);
      try {
        const { id: collectionId } = await createCollection(client.db, { name: 'c' });
        const entries = Array.from({ length: 3_000 }, (_, i) => ({
          topicId: String(1 + Math.floor(i / 1000)),
          docId: `d\t${i}`,
          rank: (i % 1000) + 1,
          score: 1 / (i + 1),
        }));
        // COPY is refused before a row is read, and the rows go in by INSERT.
        const run = await createRun(
          client.db,
          { collectionId, name: 'r', entries },
          { chunkChars: 16_384 },
        );
        expect(run).toMatchObject({ entryCount: 3_000, topicCount: 3 });
        const stored = await getRunEntries(owner.db, run.id, { topicIds: ['3'] });
        expect(stored.get('3')![999]).toEqual({
          topicId: '3',
          docId: 'd\t2999',
          rank: 1000,
          score: 1 / 3000,
        });
        // The last row is refused (rank beyond int4) after the others went through.
        const refused = [...entries, { topicId: '3', docId: 'late', rank: 2 ** 31, score: 0 }];
        await expect(
          createRun(
            client.db,
            { collectionId, name: 's', entries: refused },
            { chunkChars: 16_384 },
          ),
        ).rejects.toMatchObject({ code: '22003' });
        const counts = await sql<{ n: number }>`select count(*)::int as n from run_entries`.execute(
          owner.db,
        );
        expect(counts.rows[0]!.n).toBe(3_000);
      } finally {
        await client.close();
        await owner.close();
      }
    },
    OPEN_TIMEOUT_MS,
  );

  it('puts the socket under the temporary folder when the data folder is too deep for one', () => {
    const deep = join('/', 'x'.repeat(120), 'project', '.assay', 'pglite');
    const socket = sharedSocketPath(deep);
    expect(socket.startsWith(join(tmpdir(), `assay-${process.getuid?.() ?? 'user'}-`))).toBe(true);
    expect(socket.endsWith('/.s.PGSQL.5432')).toBe(true);
    expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(100);
    // One data folder, one socket; another folder, another.
    expect(sharedSocketPath(deep)).toBe(socket);
    expect(sharedSocketPath(`${deep}2`)).not.toBe(socket);
    expect(sharedSocketPath('/srv/p/.assay/pglite')).toBe(
      '/srv/p/.assay/pglite.socket/.s.PGSQL.5432',
    );
  });

  it.runIf(process.getuid?.() === 0)(
    "serves unshared rather than use a socket folder that is another user's",
    async () => {
      const dataDir = join(scratchFolder(), 'pglite');
      mkdirSync(`${dataDir}.socket`);
      chownSync(`${dataDir}.socket`, 65534, 65534);
      const owner = await createDb({ dataDir, share: true, migrate: false });
      try {
        expect(owner.socket).toBeUndefined();
        expect(owner.notShared).toContain('belongs to another user');
        // Others are refused again, as without sharing.
        await expect(createDb({ dataDir, migrate: false })).rejects.toBeInstanceOf(
          DatabaseInUseError,
        );
      } finally {
        await owner.close();
      }
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'refuses, as before, a holder that does not share',
    async () => {
      const dataDir = join(scratchFolder(), 'pglite');
      const holder = await createDb({ dataDir, migrate: false });
      try {
        await expect(createDb({ dataDir, migrate: false })).rejects.toBeInstanceOf(
          DatabaseInUseError,
        );
      } finally {
        await holder.close();
      }
    },
    OPEN_TIMEOUT_MS,
  );
});

// ---- raw wire-protocol clients, for the ones that misbehave on purpose ----

/**
 * A connected, started-up client: `send` writes frames and resolves once an answer to them
 * has arrived; `ended` resolves to everything received (latin1) when the server closes.
 */
async function rawClient(path: string) {
  const socket = connect(path);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const replies: Buffer[] = [];
  const received = () => Buffer.concat(replies).length;
  socket.on('data', (chunk: Buffer) => replies.push(chunk));
  const ended = new Promise<string>((resolve) =>
    socket.once('close', () => resolve(Buffer.concat(replies).toString('latin1'))),
  );
  const waitForMore = async (than: number) => {
    while (received() === than) await new Promise((r) => setTimeout(r, 5));
  };
  socket.write(startupMessage());
  await waitForMore(0);
  while (!Buffer.concat(replies).includes('Z\u0000\u0000\u0000\u0005I', 0, 'latin1'))
    await new Promise((r) => setTimeout(r, 5));
  return {
    socket,
    ended,
    async send(...frames: Buffer[]) {
      const before = received();
      for (const f of frames) socket.write(f);
      await waitForMore(before);
    },
  };
}

function frame(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function queryMessage(text: string): Buffer {
  return frame('Q', Buffer.from(`${text}\u0000`));
}

function startupMessage(): Buffer {
  const body = Buffer.from('user\u0000postgres\u0000database\u0000postgres\u0000\u0000');
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(3 << 16, 4);
  return Buffer.concat([head, body]);
}
