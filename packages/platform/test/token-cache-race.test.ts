import { expect, it, vi } from 'vitest';
import { forEachDatabase } from '@assay/test-support/database';
import {
  addUser,
  authenticate,
  ensureAdmin,
  listUserTokens,
  revokeUserToken,
} from '../src/index.js';

// A token looked up while it is being revoked. The lookup can read the token before the
// revocation commits and answer after it: that request was sent before the revocation and
// may go through, but the answer must not be remembered as valid for the next requests.

/** While set, a token lookup that found its token waits for this before answering. */
let pause: Promise<void> | undefined;
let lookedUp: () => void = () => {};

vi.mock('@assay/db', async (importOriginal) => {
  const db = await importOriginal<typeof import('@assay/db')>();
  return {
    ...db,
    findUserByToken: async (...args: Parameters<typeof db.findUserByToken>) => {
      const found = await db.findUserByToken(...args);
      if (pause) {
        lookedUp();
        await pause;
      }
      return found;
    },
  };
});

forEachDatabase('a token revoked while it is being looked up', (t) => {
  it('lets the request in flight through but never caches the token as valid', async () => {
    await ensureAdmin(t.db, { token: 'admin-token-of-the-cache-race-1' });
    const ann = await addUser(t.db, { name: 'ann', role: 'annotator' });
    const [token] = (await listUserTokens(t.db, 'ann')).tokens;

    let resume!: () => void;
    pause = new Promise<void>((resolve) => (resume = resolve));
    const found = new Promise<void>((resolve) => (lookedUp = resolve));
    // A request with ann's token: its lookup has read the token as live, and waits.
    const inFlight = authenticate(t.db, ann.token);
    await found;
    // Meanwhile ann revokes that very token.
    await revokeUserToken(t.db, 'ann', token!.id, { id: ann.id, role: 'annotator' });
    pause = undefined;
    resume();
    expect((await inFlight).name).toBe('ann');
    // The next request with the token is refused, however soon it comes.
    await expect(authenticate(t.db, ann.token)).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
