import {
  createApiToken,
  createUser,
  findUserByName,
  getUser,
  listApiTokens,
  listUsers,
  revokeApiToken,
  withTransaction,
  type Queryable,
  type User,
  type UserRole,
} from '@assay/db';
import { PlatformError, writing } from './errors.js';
import { checkNewName } from './names.js';

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
  const users = await listUsers(db);
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

/** A new API token for a user (e.g. a fresh invite link), shown once. */
export async function issueUserToken(db: Queryable, ref: string | number): Promise<CreatedUser> {
  const user = await resolveUser(db, ref);
  const { token } = await createApiToken(db, { userId: user.id, label: 'issued' });
  return { id: user.id, name: user.name, role: user.role, token };
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
    if (user.role === 'admin') {
      const admins = (await listUserSummaries(trx)).filter(
        (u) => u.role === 'admin' && u.activeTokens > 0 && u.id !== user.id,
      );
      if (admins.length === 0)
        throw new PlatformError('conflict', 'this is the last admin with a token: revoke refused');
    }
    let revoked = 0;
    for (const token of await listApiTokens(trx, user.id)) {
      if (token.revokedAt === null && (await revokeApiToken(trx, token.id))) revoked++;
    }
    return { user, revoked };
  });
}
