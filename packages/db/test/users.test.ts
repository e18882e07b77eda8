import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  API_TOKEN_PREFIX,
  createApiToken,
  createUser,
  findUserByName,
  findUserByToken,
  getUser,
  hashApiToken,
  listApiTokens,
  listUsers,
  revokeApiToken,
} from '../src/index.js';
import { forEachDatabase } from '@assay/test-support/database';

forEachDatabase('users and API tokens', (database) => {
  it('creates users with a role and a unique name', async () => {
    const { db } = database;
    const admin = await createUser(db, { name: 'root', role: 'admin' });
    const ann = await createUser(db, { name: 'ann', role: 'annotator' });
    expect(admin).toMatchObject({ name: 'root', role: 'admin' });
    expect(await getUser(db, ann.id)).toEqual(ann);
    expect(await findUserByName(db, 'root')).toEqual(admin);
    expect(await findUserByName(db, 'nobody')).toBeUndefined();
    expect((await listUsers(db)).map((user) => user.name)).toEqual(['ann', 'root']);
    await expect(createUser(db, { name: 'ann', role: 'admin' })).rejects.toMatchObject({
      code: '23505',
    });
    await expect(createUser(db, { name: 'eve', role: 'owner' as 'admin' })).rejects.toMatchObject({
      code: '23514',
    });
  });

  it('stores only the SHA-256 hash of a token and returns the plaintext once', async () => {
    const { db } = database;
    const user = await createUser(db, { name: 'ann', role: 'annotator' });
    const { token, apiToken } = await createApiToken(db, { userId: user.id, label: 'laptop' });
    expect(token.startsWith(API_TOKEN_PREFIX)).toBe(true);
    expect(token.length).toBeGreaterThanOrEqual(API_TOKEN_PREFIX.length + 43);
    expect(apiToken).toMatchObject({ userId: user.id, label: 'laptop', lastUsedAt: null });
    expect(apiToken).not.toHaveProperty('tokenHash');

    const expectedHash = createHash('sha256').update(token).digest('hex');
    expect(hashApiToken(token)).toBe(expectedHash);
    const stored = await sql<Record<string, unknown>>`select * from api_tokens`.execute(db);
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]?.token_hash).toBe(expectedHash);
    const everything = JSON.stringify(stored.rows);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(token.slice(API_TOKEN_PREFIX.length, 20));

    const second = await createApiToken(db, { userId: user.id });
    expect(second.token).not.toBe(token);
    expect((await listApiTokens(db, user.id)).map((t) => t.id)).toEqual([
      second.apiToken.id,
      apiToken.id,
    ]);
  });

  it('finds the user of a live token, marks it used, and forgets revoked ones', async () => {
    const { db } = database;
    const ann = await createUser(db, { name: 'ann', role: 'annotator' });
    const bob = await createUser(db, { name: 'bob', role: 'admin' });
    const annToken = await createApiToken(db, { userId: ann.id });
    const bobToken = await createApiToken(db, { userId: bob.id });

    const found = await findUserByToken(db, annToken.token);
    expect(found).toEqual({ user: ann, tokenId: annToken.apiToken.id });
    expect((await findUserByToken(db, bobToken.token))?.user).toEqual(bob);
    expect(await findUserByToken(db, `${annToken.token}x`)).toBeUndefined();
    expect(await findUserByToken(db, '')).toBeUndefined();

    const [used] = await listApiTokens(db, ann.id);
    expect(used?.lastUsedAt).toBeInstanceOf(Date);

    expect(await revokeApiToken(db, annToken.apiToken.id)).toBe(true);
    expect(await revokeApiToken(db, annToken.apiToken.id)).toBe(false);
    expect(await revokeApiToken(db, 999_999)).toBe(false);
    expect(await findUserByToken(db, annToken.token)).toBeUndefined();
    expect((await listApiTokens(db, ann.id))[0]?.revokedAt).toBeInstanceOf(Date);
    expect((await findUserByToken(db, bobToken.token))?.user.name).toBe('bob');
  });

  it('accepts only lower-case SHA-256 hex as a stored hash, and drops tokens with their user', async () => {
    const { db } = database;
    const user = await createUser(db, { name: 'ann', role: 'annotator' });
    await expect(
      db
        .insertInto('api_tokens')
        .values({ user_id: user.id, token_hash: 'plaintext-token' })
        .execute(),
    ).rejects.toMatchObject({ code: '23514' });
    await createApiToken(db, { userId: user.id });
    await db.deleteFrom('users').where('id', '=', user.id).execute();
    expect(await listApiTokens(db, user.id)).toEqual([]);
  });
});
