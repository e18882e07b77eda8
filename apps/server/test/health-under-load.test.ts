// /api/health answers at once whatever holds the database: it says whether the database
// answered, and when embedded PGlite is held by a long transaction it says "busy" instead
// of waiting behind it.
import { expect, it } from 'vitest';
import { forEachDatabase } from '@assay/platform/testing';
import { setUpApi } from './helpers.js';

forEachDatabase('health under load', (t) => {
  it('reports the database ok with the time of its last round trip', async () => {
    const api = await setUpApi(t.db);
    const before = Date.now();
    const response = await api.call('GET', '/api/health');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { database: string; lastDatabaseRoundTrip: string };
    expect(body).toMatchObject({ status: 'ok', database: 'ok' });
    expect(Date.parse(body.lastDatabaseRoundTrip)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('answers while a transaction holds the database, without queueing behind it', async () => {
    const api = await setUpApi(t.db);
    await api.call('GET', '/api/health'); // one round trip on record
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    const transaction = t.db.transaction().execute(async (trx) => {
      await trx.selectFrom('users').select('id').execute();
      started();
      await held;
    });
    await holding;
    try {
      // PGlite runs one statement at a time: the check cannot get through, and says so,
      // with the time of the last round trip.
      // PostgreSQL serves it on another connection: it is ok once that connection is open.
      const states: string[] = [];
      for (let i = 0; i < 20 && !states.includes('ok'); i++) {
        const body = (await (await api.call('GET', '/api/health')).json()) as {
          database: string;
          lastDatabaseRoundTrip: string | null;
        };
        expect(body.lastDatabaseRoundTrip).not.toBeNull();
        states.push(body.database);
      }
      if (t.kind === 'pglite') expect(new Set(states)).toEqual(new Set(['busy']));
      else expect(states).toContain('ok');
    } finally {
      release();
      await transaction;
    }
    // Once the transaction ends, the check that was in flight completes and the next is ok.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = (await (await api.call('GET', '/api/health')).json()) as { database: string };
    expect(after.database).toBe('ok');
  });
});
