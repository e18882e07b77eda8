import { sql } from 'kysely';
import type { Queryable } from './bulk.js';

/** One round trip to the database (`select 1`); rejects when it cannot answer. */
export async function pingDatabase(db: Queryable): Promise<void> {
  await sql`select 1`.execute(db);
}
