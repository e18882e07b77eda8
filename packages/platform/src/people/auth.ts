import {
  createApiToken,
  createUser,
  findUserByToken,
  hashApiToken,
  isLiveToken,
  listUsers,
  withTransaction,
  type Queryable,
  type User,
} from '@assay/db';
import { PlatformError, writing } from '../core/errors.js';

/** What ensureAdmin did: created the admin (`token` set, to show once) or nothing. */
export interface EnsureAdminResult {
  created: boolean;
  /** The admin's API token, present only when `created`. */
  token?: string;
  /**
   * True when a token was given but an admin already existed and the given token is not a
   * live token: it was ignored, and signs nobody in (ASSAY_ADMIN_TOKEN changed after the
   * first start, or its token was rotated or revoked).
   */
  ignoredToken?: boolean;
}

/**
 * Creates the first admin (user `admin`, role admin) with an API token when no admin
 * exists yet: the given token (ASSAY_ADMIN_TOKEN) or a freshly generated one. The token
 * is returned once, for the caller to show; only its SHA-256 hash is stored. With an
 * admin already present it writes nothing and returns `{ created: false }`, saying
 * whether a given token was ignored (it is no live token).
 */
export async function ensureAdmin(
  db: Queryable,
  options: { token?: string } = {},
): Promise<EnsureAdminResult> {
  if ((await listUsers(db)).some((u) => u.role === 'admin')) return existingAdmin(db, options);
  return writing(
    () =>
      withTransaction(db, async (trx): Promise<EnsureAdminResult> => {
        // Another process may have bootstrapped meanwhile.
        if ((await listUsers(trx)).some((u) => u.role === 'admin'))
          return existingAdmin(trx, options);
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

async function existingAdmin(
  db: Queryable,
  options: { token?: string },
): Promise<EnsureAdminResult> {
  if (!options.token || (await isLiveToken(db, options.token))) return { created: false };
  return { created: false, ignoredToken: true };
}

/**
 * How long a token that was found stays trusted without asking the database again. A
 * revocation made by this process takes effect at once ({@link forgetUserTokens}); one made
 * by another process (`assay users revoke` against the same PostgreSQL) within this time.
 */
const TOKEN_CACHE_MS = 2_000;

const TOKEN_CACHE_LIMIT = 10_000;

// Per database, token hash → user: one lookup per token every TOKEN_CACHE_MS rather than
// two statements on every request.
const tokenCache = new WeakMap<Queryable, Map<string, { user: User; until: number }>>();

// Per database, how many revocations this process has made. A lookup that was in flight
// while one was made may have read the token before the revocation committed: it lets its
// own request through (which began before the revocation) but does not cache the answer.
const revocations = new WeakMap<Queryable, number>();

/** Drops a user's cached tokens, so that a revocation takes effect on the next request. */
export function forgetUserTokens(db: Queryable, userId: number): void {
  revocations.set(db, (revocations.get(db) ?? 0) + 1);
  const cache = tokenCache.get(db);
  if (!cache) return;
  for (const [hash, entry] of cache) if (entry.user.id === userId) cache.delete(hash);
}

/**
 * The user a bearer token belongs to; unauthorized for a missing, unknown or revoked
 * token. A found token is remembered for {@link TOKEN_CACHE_MS}, unless this process
 * revoked a token while it was being looked up.
 */
export async function authenticate(db: Queryable, token: string | undefined): Promise<User> {
  if (!token)
    throw new PlatformError(
      'unauthorized',
      'an API token is required (Authorization: Bearer <token>)',
    );
  const hash = hashApiToken(token);
  let cache = tokenCache.get(db);
  const now = Date.now();
  const cached = cache?.get(hash);
  if (cached && cached.until > now) return cached.user;
  const before = revocations.get(db) ?? 0;
  const found = await findUserByToken(db, token);
  if (!found) throw new PlatformError('unauthorized', 'unknown or revoked API token');
  if ((revocations.get(db) ?? 0) !== before) return found.user;
  cache = tokenCache.get(db);
  if (!cache) tokenCache.set(db, (cache = new Map()));
  if (cache.size >= TOKEN_CACHE_LIMIT) cache.clear();
  cache.set(hash, { user: found.user, until: now + TOKEN_CACHE_MS });
  return found.user;
}
