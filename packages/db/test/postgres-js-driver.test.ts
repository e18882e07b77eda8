import { Kysely, sql } from 'kysely';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, PostgresJsDialect } from '../src/index.js';
import { describeDriverContract, type ScratchDatabase } from './driver-contract.js';
import {
  createIsolatedSchema,
  OPEN_TIMEOUT_MS,
  testDatabaseUrl,
} from '@assay/test-support/database';

const baseUrl = testDatabaseUrl();

/** A Kysely over postgres.js in a fresh schema of its own, with a small pool. */
async function openScratch(max = 4) {
  const isolated = await createIsolatedSchema(baseUrl as string);
  const db = new Kysely<ScratchDatabase>({
    dialect: new PostgresJsDialect({
      url: isolated.url,
      maxConnections: max,
      options: { onnotice: () => {} },
    }),
  });
  return {
    db,
    url: isolated.url,
    async close() {
      await db.destroy();
      await isolated.drop();
    },
  };
}

if (baseUrl) {
  describeDriverContract('PostgresJsDialect', () => openScratch());
}

describe.skipIf(!baseUrl)('PostgresJsDialect: pooled connections', () => {
  it(
    'runs transactions on separate connections at the same time',
    async () => {
      const scratch = await openScratch(4);
      try {
        const { db } = scratch;
        await sql`create table items (id int primary key, label text not null, payload jsonb)`.execute(
          db,
        );
        let releaseA!: () => void;
        const gateA = new Promise<void>((resolve) => (releaseA = resolve));
        const events: string[] = [];
        const a = db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ id: 1, label: 'a', payload: null }).execute();
          events.push('a inserted');
          await gateA;
          events.push('a commits');
        });
        const b = db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ id: 2, label: 'b', payload: null }).execute();
          events.push('b commits');
        });
        await b;
        const whileAOpen = await db.selectFrom('items').select('id').execute();
        releaseA();
        await a;
        expect(events).toEqual(['a inserted', 'b commits', 'a commits']);
        expect(whileAOpen).toEqual([{ id: 2 }]);
      } finally {
        await scratch.close();
      }
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'returns connections to the pool after commits, rollbacks and errors',
    async () => {
      const scratch = await openScratch(2);
      try {
        const { db } = scratch;
        await sql`create table items (id int primary key, label text not null, payload jsonb)`.execute(
          db,
        );
        const outcomes = await Promise.allSettled(
          Array.from({ length: 30 }, (_, i) =>
            db.transaction().execute(async (trx) => {
              await trx.insertInto('items').values({ id: i, label: 'x', payload: null }).execute();
              if (i % 2 === 1) await sql`select 1/0`.execute(trx);
            }),
          ),
        );
        expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(15);
        const rows = await db.selectFrom('items').select('id').orderBy('id').execute();
        expect(rows.map((row) => row.id)).toEqual(Array.from({ length: 15 }, (_, i) => i * 2));
        const idle = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where pid <> pg_backend_pid() and datname = current_database()
            and state like 'idle in transaction%' and application_name = 'postgres.js'`.execute(db);
        expect(idle.rows[0]?.n).toBe(0);
      } finally {
        await scratch.close();
      }
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'opens at most maxConnections connections; queries queue for a free one',
    async () => {
      const scratch = await openScratch(2);
      try {
        const { db } = scratch;
        const pids = await Promise.all(
          Array.from({ length: 8 }, () =>
            sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(db),
          ),
        );
        expect(new Set(pids.map((r) => r.rows[0]!.pid)).size).toBe(2);
      } finally {
        await scratch.close();
      }
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'survives the server closing a connection: the statement fails, the process stays up, the next query gets a new connection',
    async () => {
      const scratch = await openScratch(1);
      const killer = postgres(baseUrl as string, { max: 1, onnotice: () => {} });
      try {
        const { db } = scratch;
        const pidOf = async () =>
          (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
        // Between queries: the connection dies while idle in the pool.
        const first = await pidOf();
        await killer`select pg_terminate_backend(${first})`;
        await new Promise((resolve) => setTimeout(resolve, 100));
        const second = await pidOf();
        expect(second).not.toBe(first);

        // Inside a transaction: the connection dies between two statements. The second
        // statement fails (never sent on another connection, outside the transaction),
        // ROLLBACK is not written to the dead connection, and nothing of it is kept.
        await sql`create table lost (id int)`.execute(db);
        const outcome = await db
          .transaction()
          .execute(async (trx) => {
            await sql`insert into lost values (1)`.execute(trx);
            const { pid } = (
              await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)
            ).rows[0]!;
            await killer`select pg_terminate_backend(${pid})`;
            await new Promise((resolve) => setTimeout(resolve, 100));
            await sql`insert into lost values (2)`.execute(trx);
          })
          .then(
            () => 'committed',
            (error: unknown) => error,
          );
        expect(outcome).toBeInstanceOf(Error);
        expect(isDatabaseUnavailable(outcome)).toBe(true);
        const rows = await sql<{ id: number }>`select id from lost`.execute(db);
        expect(rows.rows).toEqual([]);

        // A statement in flight when the connection dies fails the same way.
        const third = await pidOf();
        // The outcome is taken at once: the statement may fail before the kill's own answer
        // arrives, and a rejection left without a handler until then counts as unhandled.
        const slow = sql`select pg_sleep(5)`.execute(db).then(
          () => undefined,
          (error: unknown) => error,
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
        await killer`select pg_terminate_backend(${third})`;
        const failure = await slow;
        expect(isDatabaseUnavailable(failure)).toBe(true);
        expect(await pidOf()).not.toBe(third);
      } finally {
        await killer.end();
        await scratch.close();
      }
    },
    OPEN_TIMEOUT_MS,
  );
});

describe('isDatabaseUnavailable', () => {
  it('knows a database that cannot be reached from one that refuses a statement', () => {
    const withCode = (code: string, cause?: unknown) =>
      Object.assign(new Error(code), { code }, cause === undefined ? {} : { cause });
    for (const code of ['CONNECTION_CLOSED', 'CONNECT_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET'])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    // SQLSTATE class 08 and the shutdown codes.
    for (const code of ['08006', '08001', '57P01', '57P02', '57P03'])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    // Somewhere in the cause chain.
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: withCode('EPIPE') }))).toBe(true);
    // Refusals of the data or the statement are not.
    for (const code of ['23505', '22003', '42P01', '57014', '40001'])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(false);
    expect(isDatabaseUnavailable(new Error('no code'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
