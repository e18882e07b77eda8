import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { errorOf, setUpApi, type TestApi } from './helpers.js';

interface TokenRecord {
  id: number;
  label: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface Issued {
  id: number;
  name: string;
  token: string;
  tokenInfo: TokenRecord;
}

forEachDatabase('API tokens', (t) => {
  let api: TestApi;
  const admin = () => ({ token: api.admin });
  const me = async (token: string) => (await api.call('GET', '/api/me', { token })).status;

  beforeEach(async () => {
    api = await setUpApi(t.db);
  });

  async function issue(user: string, label?: string): Promise<Issued> {
    const query = label === undefined ? '' : `?label=${encodeURIComponent(label)}`;
    const response = await api.call('POST', `/api/users/${user}/tokens${query}`, admin());
    expect(response.status).toBe(201);
    return (await response.json()) as Issued;
  }

  async function tokensOf(user: string, token = api.admin): Promise<TokenRecord[]> {
    const response = await api.call('GET', `/api/users/${user}/tokens`, { token });
    expect(response.status).toBe(200);
    return (await response.json()) as TokenRecord[];
  }

  it('gives a user several labelled tokens and lists them without their secrets', async () => {
    const laptop = await issue('ann', 'laptop');
    const phone = await issue('ann', 'phone');
    expect(laptop.tokenInfo).toMatchObject({ label: 'laptop', revokedAt: null });
    expect(await me(laptop.token)).toBe(200);
    expect(await me(phone.token)).toBe(200);
    expect(await me(api.annotator)).toBe(200);

    const response = await api.call('GET', '/api/users/ann/tokens', admin());
    const text = await response.clone().text();
    for (const secret of [laptop.token, phone.token, api.annotator])
      expect(text).not.toContain(secret);
    const listed = (await response.json()) as TokenRecord[];
    // Newest first: phone, laptop, then the token made with the user ("created").
    expect(listed.map((x) => x.label)).toEqual(['phone', 'laptop', 'created']);
    expect(Object.keys(listed[0]!).sort()).toEqual([
      'createdAt',
      'id',
      'label',
      'lastUsedAt',
      'revokedAt',
    ]);
    // The laptop token was used above.
    expect(listed[1]!.lastUsedAt).not.toBeNull();
  });

  it('revokes one token, which stops working at once while the others stay', async () => {
    const laptop = await issue('ann', 'laptop');
    const phone = await issue('ann', 'phone');
    const revoked = await api.call('DELETE', `/api/users/ann/tokens/${laptop.tokenInfo.id}`, {
      token: phone.token,
    });
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as TokenRecord).revokedAt).not.toBeNull();
    expect(await me(laptop.token)).toBe(401);
    expect(await me(phone.token)).toBe(200);
    expect(
      await errorOf(
        await api.call('DELETE', `/api/users/ann/tokens/${laptop.tokenInfo.id}`, admin()),
      ),
    ).toMatchObject({ status: 409, code: 'conflict' });
  });

  it('rotates a token: the old one stops, the new one (same label) is shown once', async () => {
    const laptop = await issue('ann', 'laptop');
    const response = await api.call('POST', `/api/users/ann/tokens/${laptop.tokenInfo.id}/rotate`, {
      token: laptop.token,
    });
    expect(response.status).toBe(201);
    const rotated = (await response.json()) as Issued;
    expect(rotated).toMatchObject({ name: 'ann', tokenInfo: { label: 'laptop' } });
    expect(rotated.tokenInfo.id).not.toBe(laptop.tokenInfo.id);
    expect(await me(laptop.token)).toBe(401);
    expect(await me(rotated.token)).toBe(200);
    const listed = await tokensOf('ann', rotated.token);
    expect(listed.find((x) => x.id === rotated.tokenInfo.id)?.revokedAt).toBeNull();
    expect(listed.find((x) => x.id === laptop.tokenInfo.id)?.revokedAt).not.toBeNull();
  });

  it("lets a user manage only their own tokens; an admin anyone's", async () => {
    const created = await api.call('POST', '/api/users', {
      ...admin(),
      json: { name: 'bob', role: 'annotator' },
    });
    const bob = (await created.json()) as { token: string };
    const bobTokens = await tokensOf('bob');
    expect(
      await errorOf(await api.call('GET', '/api/users/bob/tokens', { token: api.annotator })),
    ).toMatchObject({ status: 403, code: 'forbidden' });
    expect(
      await errorOf(
        await api.call('DELETE', `/api/users/bob/tokens/${bobTokens[0]!.id}`, {
          token: api.annotator,
        }),
      ),
    ).toMatchObject({ status: 403 });
    expect(
      await errorOf(
        await api.call('POST', `/api/users/bob/tokens/${bobTokens[0]!.id}/rotate`, {
          token: api.annotator,
        }),
      ),
    ).toMatchObject({ status: 403 });
    // Issuing tokens stays admin only.
    expect((await api.call('POST', '/api/users/ann/tokens', { token: api.annotator })).status).toBe(
      403,
    );
    // A token id of another user is not found under this user.
    const annTokens = await tokensOf('ann');
    expect(
      await errorOf(await api.call('DELETE', `/api/users/bob/tokens/${annTokens[0]!.id}`, admin())),
    ).toMatchObject({ status: 404, code: 'not_found' });
    expect(await me(bob.token)).toBe(200);
    expect(
      (await api.call('DELETE', `/api/users/bob/tokens/${bobTokens[0]!.id}`, admin())).status,
    ).toBe(200);
    expect(await me(bob.token)).toBe(401);
  });

  it('keeps the last token of the last admin', async () => {
    const [only] = await tokensOf('admin');
    expect(
      await errorOf(await api.call('DELETE', `/api/users/admin/tokens/${only!.id}`, admin())),
    ).toEqual({
      status: 409,
      code: 'conflict',
      message: 'this is the last admin with a token: revoke refused',
    });
    expect(await me(api.admin)).toBe(200);
    // Rotating it is fine: the admin still holds a token afterwards.
    const rotated = await api.call('POST', `/api/users/admin/tokens/${only!.id}/rotate`, admin());
    expect(rotated.status).toBe(201);
    expect(await me(api.admin)).toBe(401);
    expect(await me(((await rotated.json()) as Issued).token)).toBe(200);
  });
});
