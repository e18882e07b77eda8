import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPEN_TIMEOUT_MS } from '@assay/test-support/database';

/** The scratch table the driver tests use (no migrations involved). */
export interface ScratchDatabase {
  items: { id: number; label: string; payload: unknown };
}

/** A Kysely instance over the driver under test, and how to close it. */
export interface OpenedDriver {
  db: Kysely<ScratchDatabase>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function countItems(db: Kysely<ScratchDatabase>): Promise<number> {
  const row = await db
    .selectFrom('items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The behaviour every assay Kysely driver must have, whatever the engine. */
export function describeDriverContract(name: string, open: () => Promise<OpenedDriver>): void {
  describe(`${name}: driver contract`, () => {
    let opened: OpenedDriver;
    let db: Kysely<ScratchDatabase>;

    beforeAll(async () => {
      opened = await open();
      db = opened.db;
      await sql`create table items (id int primary key, label text not null, payload jsonb)`.execute(
        db,
      );
    }, OPEN_TIMEOUT_MS);

    afterAll(async () => {
      await opened?.close();
    }, OPEN_TIMEOUT_MS);

    beforeEach(async () => {
      await sql`truncate items`.execute(db);
    });

    it('runs parameterised queries and returns typed rows', async () => {
      await db
        .insertInto('items')
        .values([
          { id: 1, label: 'a', payload: null },
          { id: 2, label: "it's", payload: null },
        ])
        .execute();
      const rows = await db
        .selectFrom('items')
        .select(['id', 'label'])
        .where('label', '=', "it's")
        .execute();
      expect(rows).toEqual([{ id: 2, label: "it's" }]);
    });

    it('reports affected rows for insert, update and delete, none for select', async () => {
      const inserted = await db
        .insertInto('items')
        .values([1, 2, 3].map((id) => ({ id, label: 'x', payload: null })))
        .executeTakeFirstOrThrow();
      expect(inserted.numInsertedOrUpdatedRows).toBe(3n);
      const updated = await db
        .updateTable('items')
        .set({ label: 'y' })
        .where('id', '<', 3)
        .executeTakeFirstOrThrow();
      expect(updated.numUpdatedRows).toBe(2n);
      const deleted = await db.deleteFrom('items').where('id', '=', 3).executeTakeFirstOrThrow();
      expect(deleted.numDeletedRows).toBe(1n);
      const result = await sql`select id from items where id = ${1}`.execute(db);
      expect(result.numAffectedRows).toBeUndefined();
      expect(result.rows).toEqual([{ id: 1 }]);
    });

    it('runs several statements when a query has no parameters', async () => {
      const result = await sql
        .raw(
          `insert into items (id, label) values (10, 'ten');
           update items set label = 'TEN' where id = 10;
           select label from items where id = 10`,
        )
        .execute(db);
      expect(result.rows).toEqual([{ label: 'TEN' }]);
    });

    it('commits a transaction', async () => {
      const returned = await db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 1, label: 'kept', payload: null }).execute();
        await trx.insertInto('items').values({ id: 2, label: 'kept', payload: null }).execute();
        return 'done';
      });
      expect(returned).toBe('done');
      expect(await countItems(db)).toBe(2);
    });

    it('rolls a transaction back when its callback throws, and rethrows', async () => {
      await expect(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ id: 1, label: 'gone', payload: null }).execute();
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await countItems(db)).toBe(0);
    });

    it('rolls back to a savepoint in a controlled transaction', async () => {
      const trx = await db.startTransaction().execute();
      await trx.insertInto('items').values({ id: 1, label: 'kept', payload: null }).execute();
      const saved = await trx.savepoint('before_second').execute();
      await saved.insertInto('items').values({ id: 2, label: 'undone', payload: null }).execute();
      const back = await saved.rollbackToSavepoint('before_second').execute();
      await back.commit().execute();
      const rows = await db.selectFrom('items').select('id').execute();
      expect(rows).toEqual([{ id: 1 }]);
    });

    it('honours isolation level and access mode settings', async () => {
      await expect(
        db
          .transaction()
          .setAccessMode('read only')
          .execute((trx) =>
            trx.insertInto('items').values({ id: 1, label: 'no', payload: null }).execute(),
          ),
      ).rejects.toMatchObject({ code: '25006' });
      const level = await db
        .transaction()
        .setIsolationLevel('serializable')
        .execute((trx) =>
          sql<{ level: string }>`select current_setting('transaction_isolation') as level`.execute(
            trx,
          ),
        );
      expect(level.rows[0]?.level).toBe('serializable');
    });

    it('propagates errors with their SQLSTATE and stays usable', async () => {
      await db.insertInto('items').values({ id: 1, label: 'a', payload: null }).execute();
      await expect(
        db.insertInto('items').values({ id: 1, label: 'dup', payload: null }).execute(),
      ).rejects.toMatchObject({ code: '23505' });
      await expect(sql`selec 1`.execute(db)).rejects.toMatchObject({ code: '42601' });
      await expect(
        sql`select * from no_such_table where id = ${1}`.execute(db),
      ).rejects.toMatchObject({ code: '42P01' });
      expect(await countItems(db)).toBe(1);
    });

    it('rolls back a transaction whose statement failed, and the next one works', async () => {
      await expect(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ id: 1, label: 'a', payload: null }).execute();
          await trx.insertInto('items').values({ id: 1, label: 'dup', payload: null }).execute();
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await countItems(db)).toBe(0);
      await db
        .transaction()
        .execute((trx) =>
          trx.insertInto('items').values({ id: 1, label: 'ok', payload: null }).execute(),
        );
      expect(await countItems(db)).toBe(1);
    });

    it('answers many concurrent queries, each with its own result', async () => {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          sql<{ doubled: number }>`select ${i}::int * 2 as doubled`.execute(db),
        ),
      );
      expect(results.map((result) => result.rows[0]?.doubled)).toEqual(
        Array.from({ length: 40 }, (_, i) => i * 2),
      );
    });

    it('keeps concurrent transactions apart: failures roll back only themselves', async () => {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) =>
          db.transaction().execute(async (trx) => {
            await trx
              .insertInto('items')
              .values({ id: i * 10, label: `t${i}`, payload: null })
              .execute();
            await sleep(2);
            await trx
              .insertInto('items')
              .values({ id: i * 10 + 1, label: `t${i}`, payload: null })
              .execute();
            if (i % 3 === 0) throw new Error(`fail ${i}`);
          }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(4);
      const labels = await db.selectFrom('items').select('label').distinct().execute();
      expect(labels.map((row) => row.label).sort()).toEqual(
        ['t1', 't10', 't11', 't2', 't4', 't5', 't7', 't8'].sort(),
      );
      expect(await countItems(db)).toBe(16);
    });

    it('never shows a transaction’s uncommitted rows to other queries', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let inserted!: () => void;
      const insertedSignal = new Promise<void>((resolve) => (inserted = resolve));
      const transaction = db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 1, label: 'draft', payload: null }).execute();
        inserted();
        await gate;
        throw new Error('abandon');
      });
      await insertedSignal;
      const outside = countItems(db);
      await sleep(20);
      release();
      await expect(transaction).rejects.toThrow('abandon');
      expect(await outside).toBe(0);
    });

    it('streams a result in chunks', async () => {
      await db
        .insertInto('items')
        .values(Array.from({ length: 5 }, (_, i) => ({ id: i, label: `s${i}`, payload: null })))
        .execute();
      const seen: number[] = [];
      for await (const row of db.selectFrom('items').select('id').orderBy('id').stream(2)) {
        seen.push(row.id);
      }
      expect(seen).toEqual([0, 1, 2, 3, 4]);
    });

    it('introspects tables through the Postgres introspector', async () => {
      const schema = await sql<{ name: string }>`select current_schema() as name`.execute(db);
      const tables = await db.introspection.getTables();
      const items = tables.find(
        (table) => table.name === 'items' && table.schema === schema.rows[0]?.name,
      );
      expect(items?.columns.map((column) => column.name)).toEqual(['id', 'label', 'payload']);
    });
  });
}
