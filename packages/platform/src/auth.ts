import {
  createApiToken,
  createUser,
  findUserByToken,
  listUsers,
  withTransaction,
  type Queryable,
  type User,
} from '@assay/db';
import { PlatformError } from './errors.js';

/**
 * Creates the first admin (user `admin`) with an API token when no admin exists yet. The
 * token is returned once, for the caller to show; only its hash is stored.
 */
export async function ensureAdmin(
  db: Queryable,
  options: { token?: string } = {},
): Promise<{ created: boolean; token?: string }> {
  const users = await listUsers(db);
  if (users.some((u) => u.role === 'admin')) return { created: false };
  return withTransaction(db, async (trx) => {
    const user = await createUser(trx, { name: 'admin', role: 'admin' });
    const created = await createApiToken(trx, {
      userId: user.id,
      label: 'bootstrap',
      ...(options.token ? { token: options.token } : {}),
    });
    return { created: true, token: created.token };
  });
}

/** The user a bearer token belongs to; unauthorized for a missing, unknown or revoked token. */
export async function authenticate(db: Queryable, token: string | undefined): Promise<User> {
  if (!token)
    throw new PlatformError(
      'unauthorized',
      'an API token is required (Authorization: Bearer <token>)',
    );
  const found = await findUserByToken(db, token);
  if (!found) throw new PlatformError('unauthorized', 'unknown or revoked API token');
  return found.user;
}
