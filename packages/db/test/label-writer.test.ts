// One owner of the labels table: no source file but the label writer inserts, updates or
// deletes labels (the other repositories embed its statements).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WRITES_LABELS =
  /\b(insert\s+into|update|delete\s+from|merge\s+into)\s+labels\b|\b(insertInto|updateTable|deleteFrom|mergeInto)\(\s*['"]labels['"]|\btable:\s*['"]labels['"]/i;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.(ts|js|mjs|svelte)$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe('the labels table', () => {
  it('is written by packages/db/src/repositories/label-writer.ts only', () => {
    const roots = ['packages', 'apps'].flatMap((group) =>
      readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name, 'src')),
    );
    const files = roots.flatMap((dir) => {
      try {
        return sources(dir);
      } catch {
        return [];
      }
    });
    expect(files.length).toBeGreaterThan(100);
    const writers = files
      .filter((file) => WRITES_LABELS.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
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
