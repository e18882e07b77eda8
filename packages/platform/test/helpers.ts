import type { Database, Queryable } from '@assay/db';

/** Rows in a table, for before/after comparisons around a failed import. */
export async function countRows(db: Queryable, table: keyof Database): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Row counts of every table an import writes, keyed by table. */
export async function snapshotCounts(db: Queryable): Promise<Record<string, number>> {
  const tables = [
    'collections',
    'documents',
    'topics',
    'runs',
    'run_entries',
    'label_sets',
    'labels',
  ] as const;
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = await countRows(db, table);
  return counts;
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected the call to fail');
}

/** Runs one SQL statement written by a test (no parameters), e.g. DDL a test sets up. */
export async function runSql(db: Queryable, text: string): Promise<void> {
  await db.executeQuery({
    sql: text,
    parameters: [],
    query: { kind: 'RawNode', sqlFragments: [text], parameters: [] },
    queryId: { queryId: 'test' },
  } as unknown as Parameters<Queryable['executeQuery']>[0]);
}

/** A run of `lines` lines, 1,000 per topic, with the given line replaced. */
export function bigRun(
  lines: number,
  tag: string,
  replace?: { line: number; text: string },
): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++)
    out.push(
      `${1 + Math.floor((i - 1) / 1000)} Q0 doc${i} ${((i - 1) % 1000) + 1} ${1 / i} ${tag}`,
    );
  if (replace) out[replace.line - 1] = replace.text;
  return `${out.join('\n')}\n`;
}
