import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Queryable } from '../bulk.js';
import type { Row, UserRole } from '../schema.js';
import { seek, type Seek } from '../keyset.js';

/** A person who administers or annotates. */
export interface User {
  id: number;
  name: string;
  role: UserRole;
  createdAt: Date;
}

/** An API token's stored record (never the token itself). */
export interface ApiToken {
  id: number;
  userId: number;
  label: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A freshly created token: `token` is the plaintext, shown to its owner once. */
export interface CreatedApiToken {
  token: string;
  apiToken: ApiToken;
}

/** Prefix of every assay API token (lets secret scanners recognise leaked ones). */
export const API_TOKEN_PREFIX = 'assay_';

/** How stale `last_used_at` may get before a use writes it again. */
const LAST_USED_RESOLUTION = '1 minute';

export function toUser(row: Row<'users'>): User {
  return { id: row.id, name: row.name, role: row.role, createdAt: row.created_at };
}

export function toApiToken(row: Row<'api_tokens'>): ApiToken {
  return {
    id: row.id,
    userId: row.user_id,
    label: row.label,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** SHA-256 hex digest of a token: the only form in which tokens are stored. */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Creates a user; fails with a unique violation (23505) if the name is taken. */
export async function createUser(
  db: Queryable,
  input: { name: string; role: UserRole },
): Promise<User> {
  const row = await db
    .insertInto('users')
    .values({ name: input.name, role: input.role })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toUser(row);
}

/** The user with this id, if any. */
export async function getUser(db: Queryable, id: number): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

/** The user with this name, if any. */
export async function findUserByName(db: Queryable, name: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('name', '=', name).executeTakeFirst();
  return row && toUser(row);
}

/**
 * All users by (name, id); given a page, those after its key (name, id) and at most
 * limit + 1 of them.
 */
export async function listUsers(db: Queryable, page?: Seek): Promise<User[]> {
  const query = db.selectFrom('users').selectAll();
  const rows = await seek(query, [sql.ref('name'), sql.ref('id')], page).execute();
  return rows.map(toUser);
}

/**
 * Creates an API token for a user: 32 random bytes, base64url, prefixed `assay_`.
 * Returns the plaintext once; the database keeps only its SHA-256 hash.
 */
export async function createApiToken(
  db: Queryable,
  input: { userId: number; label?: string | null; token?: string },
): Promise<CreatedApiToken> {
  // A token chosen by the operator (e.g. ASSAY_ADMIN_TOKEN) is stored the same way: hashed.
  const token = input.token ?? API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const row = await db
    .insertInto('api_tokens')
    .values({ user_id: input.userId, token_hash: hashApiToken(token), label: input.label ?? null })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { token, apiToken: toApiToken(row) };
}

/** The token record with this id (never the secret), if any. */
export async function getApiToken(db: Queryable, id: number): Promise<ApiToken | undefined> {
  const row = await db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toApiToken(row);
}

/** A user's tokens, newest first, revoked ones included. */
export async function listApiTokens(db: Queryable, userId: number): Promise<ApiToken[]> {
  const rows = await db
    .selectFrom('api_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toApiToken);
}

/** Whether `token` is a live (stored, not revoked) token of anyone; nothing is marked used. */
export async function isLiveToken(db: Queryable, token: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_tokens')
    .select('id')
    .where('token_hash', '=', hashApiToken(token))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The user a presented token belongs to, if the token exists and is not revoked; marks
 * the token used (at most once a minute, so authentication is not a write per request).
 */
export async function findUserByToken(
  db: Queryable,
  token: string,
): Promise<{ user: User; tokenId: number } | undefined> {
  const row = await db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .selectAll('u')
    .select('t.id as token_id')
    .where('t.token_hash', '=', hashApiToken(token))
    .where('t.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: sql<Date>`now()` })
    .where('id', '=', row.token_id)
    .where((eb) =>
      eb.or([
        eb('last_used_at', 'is', null),
        eb('last_used_at', '<', sql<Date>`now() - ${LAST_USED_RESOLUTION}::interval`),
      ]),
    )
    .execute();
  return { user: toUser(row), tokenId: row.token_id };
}

/** Revokes a token; false if it does not exist or was already revoked. */
export async function revokeApiToken(db: Queryable, tokenId: number): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: sql<Date>`now()` })
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
