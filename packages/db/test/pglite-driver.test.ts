import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { PGliteDialect, PGliteThread } from '../src/index.js';
import { describeDriverContract, type ScratchDatabase } from './driver-contract.js';
import { OPEN_TIMEOUT_MS } from '@assay/test-support/database';

describeDriverContract('PGliteDialect', async () => {
  const db = new Kysely<ScratchDatabase>({
    dialect: new PGliteDialect({ pglite: new PGlite('memory://') }),
  });
  return { db, close: () => db.destroy() };
});

describe('PGliteDialect: single connection', () => {
  it(
    'runs one transaction at a time, never interleaving other queries',
    async () => {
      const pglite = new PGlite('memory://');
      const db = new Kysely<ScratchDatabase>({ dialect: new PGliteDialect({ pglite }) });
      try {
        const events: string[] = [];
        const transaction = (name: string) =>
          db.transaction().execute(async (trx) => {
            events.push(`${name} begin`);
            await sql`select pg_sleep(0.01)`.execute(trx);
            await sql`select 1`.execute(trx);
            events.push(`${name} end`);
          });
        const query = (name: string) => sql`select 1`.execute(db).then(() => events.push(name));
        await Promise.all([transaction('a'), query('q1'), transaction('b'), query('q2')]);
        expect(events).toHaveLength(6);
        for (const name of ['a', 'b']) {
          const begin = events.indexOf(`${name} begin`);
          expect(events[begin + 1]).toBe(`${name} end`);
        }
      } finally {
        await db.destroy();
      }
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'waits for the running transaction before closing PGlite on destroy',
    async () => {
      const pglite = new PGlite('memory://');
      const db = new Kysely<ScratchDatabase>({ dialect: new PGliteDialect({ pglite }) });
      await sql`create table items (id int primary key, label text not null, payload jsonb)`.execute(
        db,
      );
      const running = db.transaction().execute(async (trx) => {
        await sql`select pg_sleep(0.05)`.execute(trx);
        await trx.insertInto('items').values({ id: 1, label: 'x', payload: null }).execute();
        return 'committed';
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await db.destroy();
      expect(await running).toBe('committed');
      expect(pglite.closed).toBe(true);
      await expect(sql`select 1`.execute(db)).rejects.toThrow();
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'leaves the PGlite instance open when closeOnDestroy is false, and takes a factory',
    async () => {
      const pglite = new PGlite('memory://');
      const db = new Kysely<ScratchDatabase>({
        dialect: new PGliteDialect({ pglite: async () => pglite, closeOnDestroy: false }),
      });
      const result = await sql<{ answer: number }>`select 42 as answer`.execute(db);
      expect(result.rows).toEqual([{ answer: 42 }]);
      await db.destroy();
      expect(pglite.closed).toBe(false);
      expect((await pglite.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      await pglite.close();
    },
    OPEN_TIMEOUT_MS,
  );
});

describeDriverContract('PGliteDialect over PGliteThread', async () => {
  const db = new Kysely<ScratchDatabase>({
    dialect: new PGliteDialect({ pglite: new PGliteThread('memory://') }),
  });
  return { db, close: () => db.destroy() };
});

describe('PGliteThread', () => {
  it(
    'carries dates, bytes, JSON and bigints across the thread and fails with SQLSTATE codes',
    async () => {
      const pglite = new PGliteThread('memory://');
      try {
        await pglite.waitReady;
        const when = new Date('2024-05-06T07:08:09.010Z');
        const result = await pglite.query<Record<string, unknown>>(
          'select $1::timestamptz as at, $2::bytea as bytes, $3::jsonb as doc, 9007199254740991::int8 as big',
          [when, new Uint8Array([1, 2, 255]), { a: [1, 'two'] }],
        );
        expect(result.rows).toEqual([
          {
            at: when,
            bytes: new Uint8Array([1, 2, 255]),
            doc: { a: [1, 'two'] },
            big: 2 ** 53 - 1,
          },
        ]);
        await expect(pglite.query('select * from missing_table')).rejects.toMatchObject({
          code: '42P01',
        });
        const many = await pglite.exec('select 1 as a; select 2 as b');
        expect(many.map((r) => r.rows)).toEqual([[{ a: 1 }], [{ b: 2 }]]);
      } finally {
        await pglite.close();
      }
      expect(pglite.closed).toBe(true);
      await expect(pglite.query('select 1')).rejects.toThrow();
    },
    OPEN_TIMEOUT_MS,
  );
});
