import {
  createApiToken,
  createUser,
  findUserByToken,
  listUsers,
  withTransaction,
  type Queryable,
  type User,
} from '@assay/db';
import { PlatformError, writing } from './errors.js';

/** What ensureAdmin did: created the admin (`token` set, to show once) or nothing. */
export interface EnsureAdminResult {
  created: boolean;
  /** The admin's API token, present only when `created`. */
  token?: string;
}

/**
 * Creates the first admin (user `admin`, role admin) with an API token when no admin
 * exists yet: the given token (ASSAY_ADMIN_TOKEN) or a freshly generated one. The token
 * is returned once, for the caller to show; only its SHA-256 hash is stored. With an
 * admin already present it does nothing and returns `{ created: false }`.
 */
export async function ensureAdmin(
  db: Queryable,
  options: { token?: string } = {},
): Promise<EnsureAdminResult> {
  if ((await listUsers(db)).some((u) => u.role === 'admin')) return { created: false };
  return writing(
    () =>
      withTransaction(db, async (trx): Promise<EnsureAdminResult> => {
        // Another process may have bootstrapped meanwhile.
        if ((await listUsers(trx)).some((u) => u.role === 'admin')) return { created: false };
        const user = await createUser(trx, { name: 'admin', role: 'admin' });
        const created = await createApiToken(trx, {
          userId: user.id,
          label: 'bootstrap',
          ...(options.token ? { token: options.token } : {}),
        });
        return { created: true, token: created.token };
      }),
    'cannot create the admin user: the name "admin" or the token is already taken',
  );
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
