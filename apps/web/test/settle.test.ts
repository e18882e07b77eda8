import { describe, expect, it } from 'vitest';
import { settle } from '../src/lib/settle.js';

const fails = (message: string) => () => Promise.reject(new Error(message));

describe('settle (a page load request)', () => {
  it('gives the answer, or the error with no value', async () => {
    expect(await settle(() => Promise.resolve(3))).toEqual({ value: 3, error: '' });
    expect(await settle(fails('offline'))).toEqual({ value: null, error: 'offline' });
  });

  it('sends nothing when it may not', async () => {
    let sent = false;
    const loaded = await settle(async () => (sent = true), false);
    expect(sent).toBe(false);
    expect(loaded).toEqual({ value: null, error: '' });
  });

  it('keeps the last answer of the same subject when a reload fails, beside the error', async () => {
    await settle(() => Promise.resolve({ runs: 2 }), true, 'collection cranfield');
    await settle(() => Promise.resolve({ runs: 5 }), true, 'collection robust04');
    expect(await settle(fails('server down'), true, 'collection cranfield')).toEqual({
      value: { runs: 2 },
      error: 'server down',
    });
    // Another subject never shows this one's answer.
    expect(await settle(fails('server down'), true, 'collection msmarco')).toEqual({
      value: null,
      error: 'server down',
    });
    // A later answer replaces the kept one.
    await settle(() => Promise.resolve({ runs: 3 }), true, 'collection cranfield');
    expect(await settle(fails('again'), true, 'collection cranfield')).toEqual({
      value: { runs: 3 },
      error: 'again',
    });
  });

  it('keeps a bounded number of subjects, dropping the least recently answered', async () => {
    await settle(() => Promise.resolve('first'), true, 'bounded 0');
    for (let i = 1; i <= 20; i++) await settle(() => Promise.resolve(i), true, `bounded ${i}`);
    expect((await settle(fails('x'), true, 'bounded 0')).value).toBeNull();
    // The sixteen answered last are all kept.
    for (const i of [5, 12, 20])
      expect((await settle(fails('x'), true, `bounded ${i}`)).value).toBe(i);
  });
});
