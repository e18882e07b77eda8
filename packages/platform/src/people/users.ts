import {
  createApiToken,
  createUser,
  findUserByName,
  getUser,
  getApiToken,
  listApiTokens,
  listUsers,
  lockName,
  revokeApiToken,
  withTransaction,
  type ApiToken,
  type Queryable,
  type User,
  type UserRole,
} from '@assay/db';
import { forgetUserTokens } from './auth.js';
import { PlatformError, writing } from '../core/errors.js';
import { ADMIN_TOKENS_LOCK } from '../core/name-locks.js';
import { checkNewName } from '../core/names.js';
import { pageOf, seekPage, SMALL_PAGE, type Page, type PageOptions } from '../core/paging.js';

/** A user as created: the token is shown this once (only its hash is stored). */
export interface CreatedUser {
  id: number;
  name: string;
  role: UserRole;
  token: string;
}

/** A user with the state of their tokens (never the tokens themselves). */
export interface UserSummary {
  id: number;
  name: string;
  role: UserRole;
  createdAt: Date;
  /** Tokens not revoked. */
  activeTokens: number;
  /** Most recent use of any of the user's tokens. */
  lastUsedAt: Date | null;
}

/** A user by id (number, or a string of digits that names nobody) or name; not_found otherwise. */
export async function resolveUser(db: Queryable, ref: string | number): Promise<User> {
  let user = typeof ref === 'number' ? await getUser(db, ref) : await findUserByName(db, ref);
  if (!user && typeof ref === 'string' && /^[1-9]\d{0,14}$/.test(ref))
    user = await getUser(db, Number(ref));
  if (!user) throw new PlatformError('not_found', `no user ${JSON.stringify(ref)}`);
  return user;
}

/** Creates a user and their first API token; conflict when the name is taken. */
export async function addUser(
  db: Queryable,
  input: { name: string; role: UserRole },
): Promise<CreatedUser> {
  const name = checkNewName(input.name, 'user name');
  return writing(
    () =>
      withTransaction(db, async (trx) => {
        const user = await createUser(trx, { name, role: input.role });
        const { token } = await createApiToken(trx, { userId: user.id, label: 'created' });
        return { id: user.id, name: user.name, role: user.role, token };
      }),
    `a user named ${JSON.stringify(name)} already exists`,
  );
}

/** Every user by name, with how many live tokens they have and when one was last used. */
export async function listUserSummaries(db: Queryable): Promise<UserSummary[]> {
  return summariseUsers(db, await listUsers(db));
}

/** A page of {@link listUserSummaries} (by name, then id). */
export async function listUserSummariesPage(
  db: Queryable,
  options: PageOptions = {},
): Promise<Page<UserSummary>> {
  const page = seekPage(options, SMALL_PAGE, ['text', 'int']);
  const rows = await listUsers(db, page);
  const { items, next } = pageOf(
    rows,
    page,
    (u) => [u.name, u.id],
    (u) => u,
  );
  return { items: await summariseUsers(db, items), next };
}

async function summariseUsers(db: Queryable, users: readonly User[]): Promise<UserSummary[]> {
  const out: UserSummary[] = [];
  for (const user of users) {
    const tokens = await listApiTokens(db, user.id);
    const live = tokens.filter((t) => t.revokedAt === null);
    const used = tokens
      .map((t) => t.lastUsedAt)
      .filter((d): d is Date => d !== null)
      .sort((a, b) => b.getTime() - a.getTime());
    out.push({ ...user, activeTokens: live.length, lastUsedAt: used[0] ?? null });
  }
  return out;
}

/** A new API token of a user, shown once: the user, the token's record and the secret. */
export interface IssuedToken extends CreatedUser {
  apiToken: ApiToken;
}

/** The longest token label accepted. */
const LABEL_MAX = 200;

function checkLabel(label: string | undefined): string | undefined {
  const trimmed = label?.trim();
  if (trimmed !== undefined && trimmed.length > LABEL_MAX)
    throw new PlatformError('invalid_input', `a token label has at most ${LABEL_MAX} characters`);
  return trimmed === '' ? undefined : trimmed;
}

/**
 * A new API token for a user (a fresh invite link, or one more device), shown once; the
 * user's other tokens stay valid. `label` (default "issued") says what it is for.
 */
export async function issueUserToken(
  db: Queryable,
  ref: string | number,
  options: { label?: string } = {},
): Promise<IssuedToken> {
  const label = checkLabel(options.label) ?? 'issued';
  const user = await resolveUser(db, ref);
  const { token, apiToken } = await createApiToken(db, { userId: user.id, label });
  return { id: user.id, name: user.name, role: user.role, token, apiToken };
}

/**
 * Who asks to see or change tokens through the API: an admin may manage anyone's, any
 * other user only their own. The CLI works on the database directly and passes none.
 */
export interface TokenActor {
  id: number;
  role: UserRole;
}

function checkOwnerOrAdmin(user: User, actor: TokenActor | undefined): void {
  if (actor && actor.role !== 'admin' && actor.id !== user.id)
    throw new PlatformError('forbidden', "only an admin may manage another user's tokens");
}

/** A user's tokens, newest first, revoked ones included: ids and labels, never secrets. */
export async function listUserTokens(
  db: Queryable,
  ref: string | number,
  actor?: TokenActor,
): Promise<{ user: User; tokens: ApiToken[] }> {
  const user = await resolveUser(db, ref);
  checkOwnerOrAdmin(user, actor);
  return { user, tokens: await listApiTokens(db, user.id) };
}

/** A token of a user by id; not_found when the user has no such token. */
async function tokenOf(db: Queryable, user: User, tokenId: number): Promise<ApiToken> {
  const token = Number.isSafeInteger(tokenId) ? await getApiToken(db, tokenId) : undefined;
  if (!token || token.userId !== user.id)
    throw new PlatformError('not_found', `user ${user.name} has no token ${tokenId}`);
  return token;
}

/**
 * Refuses to revoke `revoking` live tokens of `user` when they are the last of the last
 * admin who has any. Run in the revoking transaction: it first takes the admin-tokens lock,
 * so revocations of admins' tokens take turns and each guard sees the ones before it.
 */
async function keepOneAdminToken(
  trx: Parameters<typeof lockName>[0],
  user: User,
  revoking: number | 'all',
): Promise<void> {
  if (user.role !== 'admin') return;
  await lockName(trx, ADMIN_TOKENS_LOCK);
  const others = (await listUserSummaries(trx)).filter(
    (u) => u.role === 'admin' && u.activeTokens > 0 && u.id !== user.id,
  );
  if (others.length > 0) return;
  const live = (await listApiTokens(trx, user.id)).filter((t) => t.revokedAt === null);
  if (revoking === 'all' || live.length <= revoking)
    throw new PlatformError('conflict', 'this is the last admin with a token: revoke refused');
}

/**
 * Revokes one token of a user (it stops working at once; the others stay). not_found when
 * the user has no such token, conflict when it is already revoked or is the last token of
 * the last admin, forbidden when a non-admin actor asks for someone else's.
 */
export async function revokeUserToken(
  db: Queryable,
  ref: string | number,
  tokenId: number,
  actor?: TokenActor,
): Promise<{ user: User; token: ApiToken }> {
  return withTransaction(db, async (trx) => {
    const user = await resolveUser(trx, ref);
    checkOwnerOrAdmin(user, actor);
    const token = await tokenOf(trx, user, tokenId);
    if (token.revokedAt !== null)
      throw new PlatformError('conflict', `token ${tokenId} of ${user.name} is already revoked`);
    await keepOneAdminToken(trx, user, 1);
    // Revoked meanwhile (by a rotation, or a revoke that went first).
    if (!(await revokeApiToken(trx, token.id)))
      throw new PlatformError('conflict', `token ${tokenId} of ${user.name} is already revoked`);
    return { user, token: (await getApiToken(trx, token.id))! };
  }).then((result) => {
    // Tokens this process trusts for a moment are dropped, so the revoke applies at once.
    forgetUserTokens(db, result.user.id);
    return result;
  });
}

/**
 * Replaces one live token of a user by a new one with the same label, in one
 * transaction: the old token stops working, the new secret is returned once.
 */
export async function rotateUserToken(
  db: Queryable,
  ref: string | number,
  tokenId: number,
  actor?: TokenActor,
): Promise<IssuedToken & { revokedTokenId: number }> {
  return withTransaction(db, async (trx) => {
    const user = await resolveUser(trx, ref);
    checkOwnerOrAdmin(user, actor);
    const old = await tokenOf(trx, user, tokenId);
    if (old.revokedAt !== null)
      throw new PlatformError('conflict', `token ${tokenId} of ${user.name} is already revoked`);
    if (!(await revokeApiToken(trx, old.id)))
      throw new PlatformError('conflict', `token ${tokenId} of ${user.name} is already revoked`);
    const { token, apiToken } = await createApiToken(trx, { userId: user.id, label: old.label });
    return {
      id: user.id,
      name: user.name,
      role: user.role,
      token,
      apiToken,
      revokedTokenId: old.id,
    };
  }).then((result) => {
    forgetUserTokens(db, result.id);
    return result;
  });
}

/** The user a token id belongs to (for commands given only the token id). */
export async function findTokenOwner(db: Queryable, tokenId: number): Promise<User> {
  const token = Number.isSafeInteger(tokenId) ? await getApiToken(db, tokenId) : undefined;
  const user = token && (await getUser(db, token.userId));
  if (!user) throw new PlatformError('not_found', `no token ${tokenId}`);
  return user;
}

/**
 * Revokes every live token of a user, who can no longer sign in until given a new one.
 * Refuses to lock out the last admin who still has a token.
 */
export async function revokeUserTokens(
  db: Queryable,
  ref: string | number,
): Promise<{ user: User; revoked: number }> {
  return withTransaction(db, async (trx) => {
    const user = await resolveUser(trx, ref);
    await keepOneAdminToken(trx, user, 'all');
    let revoked = 0;
    for (const token of await listApiTokens(trx, user.id)) {
      if (token.revokedAt === null && (await revokeApiToken(trx, token.id))) revoked++;
    }
    return { user, revoked };
  }).then((result) => {
    forgetUserTokens(db, result.user.id);
    return result;
  });
}
