import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, listAppliedMigrations, loadMigrations } from '../src/index.js';

// A new embedded database is dumped once migrated into the template cache; the next new
// one starts from that dump. Tests use a cache folder of their own.
const cache = mkdtempSync(join(tmpdir(), 'assay-pglite-cache-'));
const before = process.env.ASSAY_PGLITE_CACHE;
process.env.ASSAY_PGLITE_CACHE = cache;
afterAll(() => {
  if (before === undefined) delete process.env.ASSAY_PGLITE_CACHE;
  else process.env.ASSAY_PGLITE_CACHE = before;
  rmSync(cache, { recursive: true, force: true });
});

const templates = () => readdirSync(cache).filter((name) => name.endsWith('.tar.gz'));

async function migratedTables(dataDir: string) {
  const assay = await createDb({ dataDir });
  try {
    const applied = await listAppliedMigrations(assay.db);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from collections`.execute(
      assay.db,
    );
    return { applied, collections: rows[0]!.n };
  } finally {
    await assay.close();
  }
}

describe('the template of a new embedded database', () => {
  const all = loadMigrations().then((ms) => ms.map((m) => m.name));

  it(
    'is saved by the first new database and used by the next, on disk and in memory',
    { timeout: 240_000 },
    async () => {
      const expected = await all;
      const first = await migratedTables('memory://');
      expect(first).toEqual({ applied: expected, collections: 0 });
      expect(templates()).toHaveLength(1);

      const dir = mkdtempSync(join(tmpdir(), 'assay-pglite-new-'));
      try {
        const second = await migratedTables(join(dir, 'pglite'));
        expect(second).toEqual({ applied: expected, collections: 0 });
        // The folder holds a real database that opens again.
        expect(existsSync(join(dir, 'pglite', 'PG_VERSION'))).toBe(true);
        expect(await migratedTables(join(dir, 'pglite'))).toEqual(second);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      expect(templates()).toHaveLength(1);
    },
  );

  it(
    'a damaged template is replaced and the database made the long way',
    { timeout: 240_000 },
    async () => {
      const [name] = templates();
      expect(name).toBeDefined();
      writeFileSync(join(cache, name!), 'not a gzipped tar file');
      const dir = mkdtempSync(join(tmpdir(), 'assay-pglite-new-'));
      try {
        const opened = await migratedTables(join(dir, 'pglite'));
        expect(opened).toEqual({ applied: await all, collections: 0 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      expect(templates()).toEqual([name]);
      // Usable again: a new database from it.
      expect(await migratedTables('memory://')).toEqual({ applied: await all, collections: 0 });
    },
  );

  it('is not used for a folder that already holds a database', { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-pglite-new-'));
    try {
      const assay = await createDb({ dataDir: dir });
      await sql`insert into collections (name) values ('kept')`.execute(assay.db);
      await assay.close();
      const again = await createDb({ dataDir: dir });
      const { rows } = await sql<{ name: string }>`select name from collections`.execute(again.db);
      await again.close();
      expect(rows.map((r) => r.name)).toEqual(['kept']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
