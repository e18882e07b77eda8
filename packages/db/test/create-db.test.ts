import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  createCollection,
  createDb,
  getCollectionByName,
  insertDocuments,
  getDocument,
  listAppliedMigrations,
  loadMigrations,
} from '../src/index.js';
import { forEachDatabase, OPEN_TIMEOUT_MS } from '@assay/test-support/database';

forEachDatabase('createDb', (database) => {
  it('opens the expected engine, migrated', async () => {
    const expected = database.kind;
    const engine = await sql<{ version: string }>`select version() as version`.execute(database.db);
    expect(engine.rows[0]?.version).toMatch(/PostgreSQL/);
    expect(await listAppliedMigrations(database.db)).toContain('0001_create_core_tables.sql');
    expect(['pglite', 'postgres']).toContain(expected);
  });

  it('reads bigint as numbers and timestamptz as Dates', async () => {
    const collection = await createCollection(database.db, { name: 'types' });
    expect(typeof collection.id).toBe('number');
    expect(collection.createdAt).toBeInstanceOf(Date);
    const result = await sql<{ big: number; count: number }>`
      select 9007199254740991::int8 as big, count(*) as count from collections`.execute(
      database.db,
    );
    expect(result.rows[0]).toEqual({ big: 9007199254740991, count: 1 });
  });

  it('stores JS values in jsonb as themselves, strings included', async () => {
    const { id } = await createCollection(database.db, { name: 'json' });
    const metadata = {
      text: '{"looks":"like json"}',
      quote: 'say "hi" \\ bye',
      nested: { list: [1, 'two', null, { three: true }] },
      unicode: 'naïve café 東京 🙂',
    };
    await insertDocuments(database.db, id, [{ docId: 'd1', text: 't', metadata }]);
    expect((await getDocument(database.db, id, 'd1'))?.metadata).toEqual(metadata);
    const stored = await sql<{ kind: string }>`
      select jsonb_typeof(metadata -> 'text') as kind from documents`.execute(database.db);
    expect(stored.rows[0]?.kind).toBe('string');
  });

  it('returns text as stored, a leading U+FEFF (byte-order mark) included', async () => {
    const { id } = await createCollection(database.db, { name: 'bom' });
    await insertDocuments(database.db, id, [
      {
        docId: '\ufeffd1',
        title: '\ufeffTitle',
        text: '\ufeffText',
        metadata: { note: '\ufeffn' },
      },
    ]);
    const doc = await getDocument(database.db, id, '\ufeffd1');
    expect(doc).toMatchObject({
      docId: '\ufeffd1',
      title: '\ufeffTitle',
      text: '\ufeffText',
      metadata: { note: '\ufeffn' },
    });
    const computed = await sql<{ bom: string; length: number }>`
      select chr(65279) || 'x' as bom, length(chr(65279) || 'x') as length`.execute(database.db);
    expect(computed.rows[0]).toEqual({ bom: '\ufeffx', length: 2 });
  });

  it(
    'does not migrate when migrate is false',
    async () => {
      // No template without migrations: this database is made the long way (initdb).
      const fresh = await database.openFresh({ migrate: false });
      expect(fresh.kind).toBe(database.kind);
      expect(await listAppliedMigrations(fresh.db)).toEqual([]);
    },
    OPEN_TIMEOUT_MS,
  );
});

describe('createDb on disk (PGlite)', () => {
  it(
    'keeps data in dataDir across reopenings and migrates only once',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'assay-pglite-'));
      const dataDir = join(dir, 'nested', 'pglite');
      try {
        const first = await createDb({ dataDir });
        expect(first.kind).toBe('pglite');
        await createCollection(first.db, { name: 'persisted' });
        await first.close();

        const second = await createDb({ dataDir });
        try {
          expect(await getCollectionByName(second.db, 'persisted')).toMatchObject({
            name: 'persisted',
          });
          const recorded = await second.db.selectFrom('schema_migrations').selectAll().execute();
          expect(recorded).toHaveLength((await loadMigrations()).length);
          // Set at every start (not stored in the folder): a small buffer pool for one session.
          const shown = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(
            second.db,
          );
          expect(shown.rows[0]?.shared_buffers).toBe('32MB');
        } finally {
          await second.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    OPEN_TIMEOUT_MS,
  );

  it(
    'closes the database when migrations fail',
    async () => {
      await expect(
        createDb({
          dataDir: 'memory://',
          migrations: [{ name: '0001_break_things.sql', sql: 'select * from nowhere;' }],
        }),
      ).rejects.toThrow(/0001_break_things.sql failed/);
    },
    OPEN_TIMEOUT_MS,
  );
});
