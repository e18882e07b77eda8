import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import { addUser, authenticate, ensureAdmin, revokeUserTokens } from '../src/index.js';

forEachDatabase('ensureAdmin and authenticate', (t) => {
  it('creates one admin with the given token, once', async () => {
    const first = await ensureAdmin(t.db, { token: 'a-chosen-admin-token-123' });
    expect(first).toEqual({ created: true, token: 'a-chosen-admin-token-123' });
    expect(await ensureAdmin(t.db)).toEqual({ created: false });
    expect(await authenticate(t.db, 'a-chosen-admin-token-123')).toMatchObject({
      name: 'admin',
      role: 'admin',
    });
  });

  it('says a token given once an admin exists is ignored, unless it is a live token', async () => {
    await ensureAdmin(t.db, { token: 'the-first-admin-token-0001' });
    expect(await ensureAdmin(t.db, { token: 'the-first-admin-token-0001' })).toEqual({
      created: false,
    });
    expect(await ensureAdmin(t.db, { token: 'another-admin-token-00002' })).toEqual({
      created: false,
      ignoredToken: true,
    });
    await expect(authenticate(t.db, 'another-admin-token-00002')).rejects.toMatchObject({
      code: 'unauthorized',
    });
    // Revoked (another admin keeps the platform managed), the first token is no live token.
    await addUser(t.db, { name: 'root2', role: 'admin' });
    await revokeUserTokens(t.db, 'admin');
    expect(await ensureAdmin(t.db, { token: 'the-first-admin-token-0001' })).toEqual({
      created: false,
      ignoredToken: true,
    });
  });

  it('generates a token when none is given, and refuses unknown tokens', async () => {
    const created = await ensureAdmin(t.db);
    expect(created.created).toBe(true);
    expect(created.token).toMatch(/^assay_[A-Za-z0-9_-]{40,}$/);
    expect((await authenticate(t.db, created.token)).role).toBe('admin');
    await expect(authenticate(t.db, 'wrong')).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(authenticate(t.db, undefined)).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(authenticate(t.db, '')).rejects.toMatchObject({ code: 'unauthorized' });
  });
});

forEachDatabase('authenticate after a revocation', (t) => {
  it('refuses a token on the very next request once its user is revoked', async () => {
    await ensureAdmin(t.db, { token: 'admin-token-for-revocation-1' });
    const annotator = await addUser(t.db, { name: 'ann', role: 'annotator' });
    // Authenticated once, so the token is now remembered.
    expect((await authenticate(t.db, annotator.token)).name).toBe('ann');
    expect(await revokeUserTokens(t.db, 'ann')).toMatchObject({ revoked: 1 });
    await expect(authenticate(t.db, annotator.token)).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect((await authenticate(t.db, 'admin-token-for-revocation-1')).name).toBe('admin');
  });
});
