import { sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * Waits for, then holds until the transaction ends, an advisory lock on a name (e.g.
 * `run:3:bm25`, a collection's run called bm25): writers of the same name take turns, so
 * a check-then-write (find the old row, replace it, or create it once) is never raced.
 * The name is hashed to PostgreSQL's 64-bit lock key; a collision only serialises two
 * unrelated writers. PGlite runs one transaction at a time, where the lock is free.
 */
export async function lockName(trx: Transaction<Database>, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(trx);
}
