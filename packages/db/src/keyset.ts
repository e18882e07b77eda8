import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';

/** One value of a row's sort key, as a page cursor carries it. */
export type KeyValue = string | number;

/**
 * Which page of a list to read (keyset paging): the rows after the one whose sort key is
 * `after` (from the first row when absent), at most `limit` of them.
 */
export interface Seek {
  limit: number;
  after?: readonly KeyValue[];
}

/**
 * Orders `query` by `keys` (which together name one row; all ascending, or all descending)
 * and, given a page, keeps the rows past `page.after` and at most `limit + 1` of them: the
 * extra row tells the caller that another page follows. Each page costs the same however
 * deep it is, as the database seeks to the key instead of skipping rows.
 */
export function seek<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  keys: readonly RawBuilder<unknown>[],
  page: Seek | undefined,
  direction: 'asc' | 'desc' = 'asc',
): SelectQueryBuilder<DB, TB, O> {
  let ordered = query;
  for (const key of keys) ordered = ordered.orderBy(key, direction);
  if (!page) return ordered;
  if (page.after) {
    if (page.after.length !== keys.length)
      throw new Error(`a cursor of ${keys.length} values was expected, not ${page.after.length}`);
    const values = page.after.map((value) => sql`${value}`);
    const op = direction === 'asc' ? sql`>` : sql`<`;
    ordered = ordered.where(sql<boolean>`(${sql.join(keys)}) ${op} (${sql.join(values)})`);
  }
  return ordered.limit(page.limit + 1);
}
