// One owner of each label table: no source file but the label writer inserts, updates or
// deletes labels, and none but the revisions module writes label revisions (the other
// repositories embed their statements).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Whether a source writes `table`, in SQL, through Kysely or through bulkInsert. */
function writes(table: string): RegExp {
  return new RegExp(
    `\\b(insert\\s+into|update|delete\\s+from|merge\\s+into)\\s+${table}\\b|` +
      `\\b(insertInto|updateTable|deleteFrom|mergeInto)\\(\\s*['"]${table}['"]|` +
      `\\btable:\\s*['"]${table}['"]`,
    'i',
  );
}
const WRITES_LABELS = writes('labels');
const WRITES_REVISIONS = writes('label_revisions');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.(ts|js|mjs|svelte)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Every source file of every package and app, relative to the repository. */
function allSources(): Array<{ file: string; text: string }> {
  const roots = ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name, 'src')),
  );
  return roots
    .flatMap((dir) => {
      try {
        return sources(dir);
      } catch {
        return [];
      }
    })
    .map((file) => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }));
}

describe('the labels table', () => {
  it('is written by packages/db/src/repositories/label-writer.ts only', () => {
    const files = allSources();
    expect(files.length).toBeGreaterThan(100);
    const writers = files.filter((f) => WRITES_LABELS.test(f.text)).map((f) => f.file);
    expect(writers).toEqual(['packages/db/src/repositories/label-writer.ts']);
  });

  it('is recognised when written in either form', () => {
    expect(WRITES_LABELS.test("db.insertInto('labels')")).toBe(true);
    expect(WRITES_LABELS.test('delete from labels l using item')).toBe(true);
    expect(WRITES_LABELS.test("bulkInsert(trx, { table: 'labels' })")).toBe(true);
    expect(WRITES_LABELS.test("db.selectFrom('labels')")).toBe(false);
    expect(WRITES_LABELS.test('insert into label_revisions')).toBe(false);
  });
});

describe('the label_revisions table', () => {
  it('is written by packages/db/src/repositories/label-revisions.ts only', () => {
    const writers = allSources()
      .filter((f) => WRITES_REVISIONS.test(f.text))
      .map((f) => f.file);
    expect(writers).toEqual(['packages/db/src/repositories/label-revisions.ts']);
  });

  it('is recognised when written in either form', () => {
    expect(WRITES_REVISIONS.test("trx.insertInto('label_revisions')")).toBe(true);
    expect(WRITES_REVISIONS.test('insert into label_revisions (label_set_id)')).toBe(true);
    expect(WRITES_REVISIONS.test("db.updateTable('label_revisions')")).toBe(true);
    expect(WRITES_REVISIONS.test('delete from label_revisions where id = 1')).toBe(true);
    expect(WRITES_REVISIONS.test("bulkInsert(trx, { table: 'label_revisions' })")).toBe(true);
    expect(WRITES_REVISIONS.test("db.selectFrom('label_revisions')")).toBe(false);
    expect(WRITES_REVISIONS.test("db.insertInto('labels')")).toBe(false);
  });
});
