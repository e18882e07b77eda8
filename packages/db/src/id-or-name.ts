import { sql, type SelectQueryBuilder } from 'kysely';

/** How a caller names a row: by id (when it gave a number) and always by name. */
export interface IdOrName {
  id?: number;
  name: string;
}

/**
 * Narrows `query` to the one row named by `ref` under assay's naming rule: the row whose
 * id is `ref.id` when there is one, else the row whose name is `ref.name`. `alias` is the
 * table alias whose `id` and `name` columns are meant.
 */
export function whereIdOrName<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  alias: string,
  ref: IdOrName,
): SelectQueryBuilder<DB, TB, O> {
  const id = sql.ref(`${alias}.id`);
  const name = sql.ref(`${alias}.name`);
  if (ref.id === undefined) return query.where(sql<boolean>`${name} = ${ref.name}`).limit(1);
  return query
    .where(sql<boolean>`(${id} = ${ref.id} or ${name} = ${ref.name})`)
    .orderBy(sql`case when ${id} = ${ref.id} then 0 else 1 end`)
    .limit(1);
}
