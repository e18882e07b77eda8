import { beforeEach, expect, it } from 'vitest';
import { forEachDatabase, holdTransaction, waitUntilBlockedBy } from '@assay/platform/testing';
import { setUpApi, type TestApi } from './helpers.js';

// Two admins revoking each other at the same moment. The last-admin guard reads every
// admin's live tokens; under READ COMMITTED both guards used to see the other admin's token
// still live, both revocations went through and nobody could use the API. Revocations of
// admins' tokens now take turns: one goes through, the other is refused (409).

forEachDatabase('two admins revoking each other at once', (t) => {
  let api: TestApi;
  let root2: string;
  let tokenIds: { admin: number; root2: number };

  beforeEach(async () => {
    api = await setUpApi(t.db);
    const created = await api.call('POST', '/api/users', {
      token: api.admin,
      json: { name: 'root2', role: 'admin' },
    });
    expect(created.status).toBe(201);
    root2 = ((await created.json()) as { token: string }).token;
    const idOf = async (user: string) => {
      const response = await api.call('GET', `/api/users/${user}/tokens`, { token: api.admin });
      return ((await response.json()) as Array<{ id: number }>)[0]!.id;
    };
    tokenIds = { admin: await idOf('admin'), root2: await idOf('root2') };
    // Both tokens have been used: signing in records no further use for a minute, so the
    // requests below touch the token rows only to revoke them.
    expect((await api.call('GET', '/api/me', { token: root2 })).status).toBe(200);
  });

  const revocations = {
    'one token each': () => [
      api.call('DELETE', `/api/users/root2/tokens/${tokenIds.root2}`, { token: api.admin }),
      api.call('DELETE', `/api/users/admin/tokens/${tokenIds.admin}`, { token: root2 }),
    ],
    'every token of the other': () => [
      api.call('POST', '/api/users/root2/revoke', { token: api.admin }),
      api.call('POST', '/api/users/admin/revoke', { token: root2 }),
    ],
  };

  for (const [what, send] of Object.entries(revocations)) {
    it(`revoking ${what}: one succeeds, the other is refused, an admin keeps a token`, async () => {
      let responses: Response[];
      if (t.kind === 'postgres') {
        // Both requests must read the guard's state before either revokes: the token rows
        // are held here, so each revocation waits just before its write.
        const blocker = await holdTransaction(t.db, [
          `select id from api_tokens where id in (${tokenIds.admin}, ${tokenIds.root2}) for update`,
        ]);
        const sent = send();
        await waitUntilBlockedBy(t.db, blocker.pid, { count: 2 });
        await blocker.release();
        responses = await Promise.all(sent);
      } else {
        responses = await Promise.all(send());
      }
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
      const refused = responses.find((r) => r.status === 409)!;
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /last admin with a token/,
      );
      // Whichever admin kept their token can still manage the server.
      const statuses = await Promise.all(
        [api.admin, root2].map(
          async (token) => (await api.call('GET', '/api/users', { token })).status,
        ),
      );
      expect(statuses.sort()).toEqual([200, 401]);
      expect(api.logged).toEqual([]);
    });
  }
});
