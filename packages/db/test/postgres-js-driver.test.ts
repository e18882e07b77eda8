import { Kysely, sql } from 'kysely';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { PostgresJsDialect } from '../src/index.js';
import { describeDriverContract, type ScratchDatabase } from './driver-contract.js';
import { createIsolatedSchema, OPEN_TIMEOUT_MS, testDatabaseUrl } from './helpers.js';

const baseUrl = testDatabaseUrl();

/** A Kysely over postgres.js in a fresh schema of its own, with a small pool. */
async function openScratch(max = 4) {
  const isolated = await createIsolatedSchema(baseUrl as string);
  const pool = postgres(isolated.url, { max, onnotice: () => {} });
  const db = new Kysely<ScratchDatabase>({ dialect: new PostgresJsDialect({ sql: pool }) });
  return {
    db,
    pool,
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
    'leaves the pool open when endOnDestroy is false',
    async () => {
      const isolated = await createIsolatedSchema(baseUrl as string);
      const pool = postgres(isolated.url, { max: 1, onnotice: () => {} });
      try {
        const db = new Kysely<ScratchDatabase>({
          dialect: new PostgresJsDialect({ sql: pool, endOnDestroy: false }),
        });
        await sql`select 1`.execute(db);
        await db.destroy();
        expect(Array.from(await pool`select 2 as two`)).toEqual([{ two: 2 }]);
      } finally {
        await pool.end();
        await isolated.drop();
      }
    },
    OPEN_TIMEOUT_MS,
  );
});
