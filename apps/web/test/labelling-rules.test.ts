import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  campaignOf,
  ignoredMessage,
  needsFetch,
  notACampaign,
  notAGrade,
  RetryDelay,
} from '../src/lib/labelling-rules.js';

const refused = (status: number, message: string) =>
  ({ kind: 'refused', reason: { status, code: 'x', message } }) as const;

describe('the labelling screen', () => {
  it('opens the campaign its address names by number, and nothing else', () => {
    expect(campaignOf('3')).toBe(3);
    expect(campaignOf('007')).toBe(7);
    expect(campaignOf('123456789012345')).toBe(123456789012345);
    for (const param of ['', 'abc', '3a', '-3', '1.5', ' 3', '1234567890123456'])
      expect(campaignOf(param), param).toBeNull();
    expect(notACampaign('abc')).toBe(
      '"abc" is not a campaign: a labelling address ends in the campaign\'s number, as in /annotate/3.',
    );
  });

  it('fetches the next items when nothing is on screen, few wait in memory or it is not ready', () => {
    const ready = { onScreen: true, inMemory: 3, status: 'ready' as const };
    expect(needsFetch(undefined, ready)).toBe(false);
    expect(needsFetch(undefined, { ...ready, inMemory: 2 })).toBe(true);
    expect(needsFetch(undefined, { ...ready, onScreen: false })).toBe(true);
    expect(needsFetch(undefined, { ...ready, status: 'saving' })).toBe(true);
    expect(needsFetch(undefined, { ...ready, status: 'offline' })).toBe(true);
    // After a skip always (the skipped item moves to the back); before an undo never.
    expect(needsFetch('always', ready)).toBe(true);
    expect(needsFetch('never', { onScreen: false, inMemory: 0, status: 'saving' })).toBe(false);
  });

  it('waits 1 s before trying the server again, doubling up to 10 s, and 1 s once it answers', () => {
    const delay = new RetryDelay();
    expect([1, 2, 3, 4, 5, 6].map(() => delay.next())).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    delay.reset();
    expect(delay.next()).toBe(1000);
  });

  it('waits for the server, or for a sign-in, when a request fails for want of either', () => {
    const screen = { onScreen: true, finished: false, status: 'ready' as const };
    expect(afterFailure({ kind: 'offline' }, screen, 'Cannot undo', '3')).toEqual({
      kind: 'offline',
    });
    expect(afterFailure({ kind: 'signed-out' }, screen, 'Cannot undo', '3')).toEqual({
      kind: 'signed-out',
    });
  });

  it('stops when the first request is refused: no such campaign of this person', () => {
    const first = { onScreen: false, finished: false, status: 'loading' as const };
    expect(
      afterFailure(refused(404, 'no campaign 3'), first, 'Cannot reach the server', '3'),
    ).toEqual({
      kind: 'missing',
      missing:
        'There is no campaign 3 with items for you (it does not exist, or you are not one of its annotators).',
    });
    expect(
      afterFailure(refused(409, 'campaign closed'), first, 'Cannot reach the server', '3'),
    ).toEqual({
      kind: 'missing',
      missing: 'This campaign cannot be opened: campaign closed',
    });
  });

  it('shows a later refusal with its reason, ready when something is on screen', () => {
    const reason = refused(409, 'campaign closed');
    expect(
      afterFailure(
        reason,
        { onScreen: true, finished: false, status: 'saving' },
        'Cannot undo',
        '3',
      ),
    ).toEqual({
      kind: 'shown',
      status: 'ready',
      message: 'Cannot undo: campaign closed',
    });
    expect(
      afterFailure(
        reason,
        { onScreen: false, finished: true, status: 'saving' },
        'Cannot skip',
        '3',
      ),
    ).toEqual({
      kind: 'shown',
      status: 'ready',
      message: 'Cannot skip: campaign closed',
    });
    expect(
      afterFailure(
        reason,
        { onScreen: false, finished: false, status: 'saving' },
        'Cannot skip',
        '3',
      ),
    ).toEqual({
      kind: 'shown',
      status: 'saving',
      message: 'Cannot skip: campaign closed',
    });
  });

  it('says why a key does nothing while it waits, and nothing when it is ready', () => {
    expect(ignoredMessage('Grade 2', 'offline')).toBe(
      'Grade 2 ignored: the server cannot be reached, so this page takes no grade now; your labels are kept on this device and sent when it is back.',
    );
    expect(ignoredMessage('Undo', 'signed-out')).toBe(
      'Undo ignored: sign in again first (your labels are kept on this device).',
    );
    expect(ignoredMessage('Skip', 'saving')).toBe(
      'Skip ignored: waiting for the server to show the next item.',
    );
    expect(ignoredMessage('Skip', 'loading')).toBe(
      'Skip ignored: waiting for the server to show the next item.',
    );
    expect(ignoredMessage('Grade 2', 'ready')).toBeUndefined();
    expect(ignoredMessage('Grade 2', 'missing')).toBeUndefined();
  });

  it('names the grades of the scale when a digit is none of them', () => {
    expect(notAGrade(7, [{ grade: 0 }, { grade: 1 }, { grade: 2 }, { grade: 3 }])).toBe(
      '7 is not a grade of this campaign (0, 1, 2, 3).',
    );
  });
});
